// Many literals found in one pass: the prefilter that decides which
// signature patterns are worth running on a line at all.
//
// When every literal has three bytes or more, every other position is
// tested against a bitmap of the literals' first and second trigrams
// (hashed, 8 KiB: it stays in L1), and only where one passes are the two
// positions it may belong to compared with the literals that start with
// the trigram there. Positions are independent of each other, so the CPU
// overlaps them; a few positions in a hundred pass in a training log.
//
// Otherwise (a literal of one or two bytes) an Aho-Corasick DFA over byte
// classes is used, laid out for the hot loop: transitions hold the next
// state already multiplied by the number of classes (one add and one load
// per byte), and states with output are numbered last, so "did a literal
// end here" is one compare against a threshold. It is also the reference
// the filter is tested against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

class literal_set {
public:
	// Adds a literal and returns its id (ids count from 0). Empty literals
	// are refused with -1.
	int add(std::string_view literal);
	// Builds the scanner; with_dfa: the DFA too even where the filter
	// serves (for dfa_scan).
	void build(bool with_dfa = false);
	// Whether scans go through the trigram filter (every literal has three
	// bytes or more) rather than the DFA.
	bool uses_filter() const { return ls_use_filter; }
	size_t size() const { return ls_literals.size(); }
	size_t literal_size(int id) const { return ls_literals[static_cast<size_t>(id)].size(); }

	// Calls fn(id) for every occurrence of every literal in text.
	template <typename F>
	void scan(std::string_view text, F &&fn) const
	{
		scan_at(text, [&](int id, size_t) { fn(id); });
	}

	// Calls fn(id, end) for every occurrence of every literal in text;
	// end is one past the occurrence's last byte. The order of the calls
	// is unspecified.
	template <typename F>
	void scan_at(std::string_view text, F &&fn) const
	{
		if (ls_use_filter)
			filter_scan(text, fn);
		else
			dfa_scan(text, fn);
	}

	// The same with the Aho-Corasick DFA only (calls in order of end); it
	// finds nothing unless the DFA was built (see build).
	template <typename F>
	void dfa_scan(std::string_view text, F &&fn) const
	{
		if (ls_delta.empty())
			return;
		uint32_t s = 0;
		const uint8_t *cls = ls_class;
		const uint32_t *delta = ls_delta.data();
		const uint32_t first_out = ls_first_out;
		const unsigned char *p = reinterpret_cast<const unsigned char *>(text.data());
		const size_t n = text.size();
		for (size_t i = 0; i < n; i++) {
			s = delta[s + cls[p[i]]];
			if (__builtin_expect(s >= first_out, 0)) {
				uint32_t st = s / ls_nclasses;
				for (uint32_t k = ls_out_begin[st]; k < ls_out_begin[st + 1]; k++)
					fn(ls_out[k], i + 1);
			}
		}
	}

private:
	void build_filter();
	void build_dfa();
	static uint32_t trigram(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16; }
	static uint32_t trigram_hash(uint32_t t) { return (t * 2654435761u) >> 16; }

	template <typename F>
	void filter_scan(std::string_view text, F &&fn) const
	{
		const unsigned char *p = reinterpret_cast<const unsigned char *>(text.data());
		const size_t n = text.size();
		if (n < 3)
			return;
		if (ls_has_short)
			stride_scan<true>(p, n, fn);
		else
			stride_scan<false>(p, n, fn);
	}

	// Every literal has four bytes or more except the short ones (three
	// bytes), so one at position j shows a trigram the step bitmap knows at
	// the even one of j and j + 1 (its first or its second trigram), or, if
	// short and at an odd j, its own trigram the short bitmap knows at j (a
	// bigram, as before, passed at most positions of English text). Each
	// even position i tests its trigram and, with short literals, the
	// trigram at i - 1; a pass is verified at i - 1 and i, so every
	// position is verified at most once.
	template <bool with_short, typename F>
	void stride_scan(const unsigned char *p, size_t n, F &fn) const
	{
		const uint8_t *step = ls_step_bits.data(), *shrt = ls_short_bits.data();
		size_t i = 0;
		for (; i + 4 <= n; i += 2) {
			uint32_t w;
			memcpy(&w, p + i, 4);
			uint32_t h = trigram_hash(w & 0xffffff);
			unsigned hit = step[h >> 3] >> (h & 7) & 1;
			if (with_short && i) {
				uint32_t v;
				memcpy(&v, p + i - 1, 4);
				uint32_t hs = trigram_hash(v & 0xffffff);
				hit |= shrt[hs >> 3] >> (hs & 7) & 1;
			}
			if (__builtin_expect(hit, 0)) {
				if (i)
					test(p, n, i - 1, fn);
				test(p, n, i, fn);
			}
		}
		// Position i - 1 on was not covered: one by one.
		for (size_t j = i ? i - 1 : 0; j + 2 < n; j++)
			test(p, n, j, fn);
	}

	template <typename F>
	void test(const unsigned char *p, size_t n, size_t i, F &fn) const
	{
		uint32_t w = trigram(p + i);
		uint32_t h = trigram_hash(w);
		if (__builtin_expect(ls_tri_bits[h >> 3] >> (h & 7) & 1, 0))
			verify(p, n, i, w, fn);
	}

	// The literals that start with trigram w, compared at p + i.
	template <typename F>
	void verify(const unsigned char *p, size_t n, size_t i, uint32_t w, F &fn) const
	{
		// The head's slot: by its hash, then the next slots (open
		// addressing) until the head or an empty slot.
		uint32_t k;
		for (uint32_t s = trigram_hash(w);; s = (s + 1) & 0xffff) {
			k = ls_tri_slot[s];
			if (k == 0)
				return;
			if (ls_tri_keys[--k] == w)
				break;
		}
		for (uint32_t j = ls_tri_begin[k]; j < ls_tri_begin[k + 1]; j++) {
			int id = ls_tri_ids[j];
			const std::string &lit = ls_literals[static_cast<size_t>(id)];
			size_t len = lit.size();
			if (len > n - i)
				continue;
			// Literals are short: a loop beats a call to memcmp.
			const unsigned char *a = p + i, *b = reinterpret_cast<const unsigned char *>(lit.data());
			size_t m = 3;
			while (m < len && a[m] == b[m])
				m++;
			if (m == len)
				fn(id, i + len);
		}
	}

	std::vector<std::string> ls_literals;
	bool ls_use_filter = false;
	std::vector<uint8_t> ls_tri_bits;    // 2^16 bits: trigram_hash of a literal's head
	std::vector<uint8_t> ls_step_bits;   // 2^16 bits: trigram_hash of a literal's first and second trigrams
	std::vector<uint8_t> ls_short_bits;  // 2^16 bits: trigram_hash of a short literal
	bool ls_has_short = false;           // some literal has three bytes
	std::vector<uint32_t> ls_tri_keys;   // distinct heads, sorted
	std::vector<uint16_t> ls_tri_slot;   // by trigram_hash (then the next): 1 + index into ls_tri_keys, 0 none
	std::vector<uint32_t> ls_tri_begin;  // per head, into ls_tri_ids (size heads+1)
	std::vector<int32_t> ls_tri_ids;
	uint8_t ls_class[256] = {};
	uint32_t ls_nclasses = 1;
	std::vector<uint32_t> ls_delta;      // state*nclasses + class -> next state*nclasses
	uint32_t ls_first_out = 0;           // (first state with output) * nclasses
	std::vector<uint32_t> ls_out_begin;  // per state, into ls_out (size states+1)
	std::vector<int32_t> ls_out;
};

} // namespace diag
