#include "literal_set.hh"

#include <deque>

namespace diag {

int literal_set::add(std::string_view literal)
{
	if (literal.empty())
		return -1;
	ls_literals.emplace_back(literal);
	return static_cast<int>(ls_literals.size() - 1);
}

void literal_set::build()
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

	ls_delta.assign(go.size() * ls_nclasses, 0);
	ls_out_begin.assign(go.size() + 1, 0);
	ls_out.clear();
	for (size_t s = 0; s < go.size(); s++) {
		for (uint32_t k = 0; k < ls_nclasses; k++)
			ls_delta[s * ls_nclasses + k] = go[s][k];
		ls_out_begin[s] = static_cast<uint32_t>(ls_out.size());
		ls_out.insert(ls_out.end(), out[s].begin(), out[s].end());
	}
	ls_out_begin[go.size()] = static_cast<uint32_t>(ls_out.size());
}

} // namespace diag
