#include "matching/literal_set.hh"

#include <deque>

namespace diag {

int literal_set::add(std::string_view literal)
{
	if (literal.empty())
		return -1;
	ls_literals.emplace_back(literal);
	return static_cast<int>(ls_literals.size() - 1);
}

void literal_set::build(bool with_dfa)
{
	build_filter();
	// The DFA costs milliseconds to build (every start pays them): only
	// where the filter cannot serve, or where asked for.
	if (!ls_use_filter || with_dfa)
		build_dfa();
}

void literal_set::build_dfa()
{
	// Byte classes: every byte used by a literal gets its own class.
	for (auto &c : ls_class)
		c = 0;
	ls_nclasses = 1;
	for (const auto &lit : ls_literals)
		for (unsigned char c : lit)
			if (ls_class[c] == 0)
				ls_class[c] = static_cast<uint8_t>(ls_nclasses++);

	// Trie.
	std::vector<std::vector<int32_t>> go(1, std::vector<int32_t>(ls_nclasses, -1));
	std::vector<std::vector<int32_t>> out(1);
	for (size_t id = 0; id < ls_literals.size(); id++) {
		int32_t s = 0;
		for (unsigned char c : ls_literals[id]) {
			uint8_t k = ls_class[c];
			if (go[s][k] < 0) {
				go[s][k] = static_cast<int32_t>(go.size());
				go.emplace_back(ls_nclasses, -1);
				out.emplace_back();
			}
			s = go[s][k];
		}
		out[s].push_back(static_cast<int32_t>(id));
	}

	// Failure links, turned into a full DFA in BFS order.
	std::vector<int32_t> fail(go.size(), 0);
	std::deque<int32_t> queue;
	for (uint32_t k = 0; k < ls_nclasses; k++) {
		if (go[0][k] < 0) {
			go[0][k] = 0;
		} else {
			fail[go[0][k]] = 0;
			queue.push_back(go[0][k]);
		}
	}
	// Class 0 (bytes in no literal) always goes back to the root.
	for (auto &row : go)
		if (row[0] < 0)
			row[0] = 0;
	while (!queue.empty()) {
		int32_t s = queue.front();
		queue.pop_front();
		const auto &fo = out[fail[s]];
		out[s].insert(out[s].end(), fo.begin(), fo.end());
		for (uint32_t k = 1; k < ls_nclasses; k++) {
			int32_t t = go[s][k];
			if (t < 0) {
				go[s][k] = go[fail[s]][k];
			} else {
				fail[t] = go[fail[s]][k];
				queue.push_back(t);
			}
		}
	}

	// Renumber: states without output first (the root stays 0: literals are
	// never empty), then the states with output.
	size_t n = go.size();
	std::vector<uint32_t> order, newid(n);
	order.reserve(n);
	for (size_t s = 0; s < n; s++)
		if (out[s].empty())
			order.push_back(static_cast<uint32_t>(s));
	uint32_t first_out = static_cast<uint32_t>(order.size());
	for (size_t s = 0; s < n; s++)
		if (!out[s].empty())
			order.push_back(static_cast<uint32_t>(s));
	for (uint32_t i = 0; i < n; i++)
		newid[order[i]] = i;
	ls_first_out = first_out * ls_nclasses;
	ls_delta.assign(n * ls_nclasses, 0);
	ls_out_begin.assign(n + 1, 0);
	ls_out.clear();
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = order[i];
		for (uint32_t k = 0; k < ls_nclasses; k++)
			ls_delta[i * ls_nclasses + k] = newid[static_cast<size_t>(go[s][k])] * ls_nclasses;
		ls_out_begin[i] = static_cast<uint32_t>(ls_out.size());
		ls_out.insert(ls_out.end(), out[s].begin(), out[s].end());
	}
	ls_out_begin[n] = static_cast<uint32_t>(ls_out.size());
}

namespace {

void set_bit(std::vector<uint8_t> &bits, uint32_t x)
{
	bits[x >> 3] = static_cast<uint8_t>(bits[x >> 3] | 1u << (x & 7));
}

} // namespace

void literal_set::build_filter()
{
	ls_use_filter = !ls_literals.empty();
	for (const auto &lit : ls_literals)
		if (lit.size() < 3)
			ls_use_filter = false;
	ls_tri_bits.assign(ls_use_filter ? (1u << 16) / 8 : 0, 0);
	ls_tri_keys.clear();
	ls_tri_begin.clear();
	ls_tri_ids.clear();
	if (!ls_use_filter)
		return;
	std::vector<std::pair<uint32_t, int32_t>> heads;
	for (size_t id = 0; id < ls_literals.size(); id++)
		heads.emplace_back(trigram(reinterpret_cast<const unsigned char *>(ls_literals[id].data())),
				   static_cast<int32_t>(id));
	std::sort(heads.begin(), heads.end());
	for (const auto &h : heads) {
		if (ls_tri_keys.empty() || ls_tri_keys.back() != h.first) {
			ls_tri_keys.push_back(h.first);
			ls_tri_begin.push_back(static_cast<uint32_t>(ls_tri_ids.size()));
			set_bit(ls_tri_bits, trigram_hash(h.first));
		}
		ls_tri_ids.push_back(h.second);
	}
	ls_tri_begin.push_back(static_cast<uint32_t>(ls_tri_ids.size()));

	// Heads by hash, open addressing (a collision takes the next free slot).
	ls_tri_slot.assign(1u << 16, 0);
	if (ls_tri_keys.size() >= 0x8000) {
		ls_use_filter = false; // too many to leave free slots: the DFA
		return;
	}
	for (size_t k = 0; k < ls_tri_keys.size(); k++) {
		uint32_t slot = trigram_hash(ls_tri_keys[k]);
		while (ls_tri_slot[slot])
			slot = (slot + 1) & 0xffff;
		ls_tri_slot[slot] = static_cast<uint16_t>(k + 1);
	}

	// For the scan of even positions (see stride_scan).
	ls_step_bits.assign((1u << 16) / 8, 0);
	ls_short_bits.assign((1u << 16) / 8, 0);
	ls_has_short = false;
	for (const auto &lit : ls_literals) {
		const unsigned char *u = reinterpret_cast<const unsigned char *>(lit.data());
		set_bit(ls_step_bits, trigram_hash(trigram(u)));
		if (lit.size() >= 4) {
			set_bit(ls_step_bits, trigram_hash(trigram(u + 1)));
		} else {
			ls_has_short = true;
			set_bit(ls_short_bits, trigram_hash(trigram(u)));
		}
	}
}

} // namespace diag
