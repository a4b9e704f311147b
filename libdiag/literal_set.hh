// Many literals found in one pass (Aho-Corasick, as a DFA over byte
// classes): the prefilter that decides which signature patterns are worth
// running on a line at all.
//
// The DFA is laid out for the hot loop: transitions hold the next state
// already multiplied by the number of classes (one add and one load per
// byte), and states with output are numbered last, so "did a literal end
// here" is one compare against a threshold.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

class literal_set {
public:
	// Adds a literal and returns its id (ids count from 0). Empty literals
	// are refused with -1.
	int add(std::string_view literal);
	void build();
	size_t size() const { return ls_literals.size(); }
	size_t literal_size(int id) const { return ls_literals[static_cast<size_t>(id)].size(); }
	// Whether some literal contains this byte (a newline in none means a
	// scan may run across line ends without finding a literal astride one).
	bool uses_byte(unsigned char c) const { return ls_class[c] != 0; }

	// Calls fn(id) for every occurrence of every literal in text.
	template <typename F>
	void scan(std::string_view text, F &&fn) const
	{
		scan_at(text, [&](int id, size_t) { fn(id); });
	}

	// Calls fn(id, end) for every occurrence of every literal in text;
	// end is one past the occurrence's last byte.
	template <typename F>
	void scan_at(std::string_view text, F &&fn) const
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
	std::vector<std::string> ls_literals;
	uint8_t ls_class[256] = {};
	uint32_t ls_nclasses = 1;
	std::vector<uint32_t> ls_delta;      // state*nclasses + class -> next state*nclasses
	uint32_t ls_first_out = 0;           // (first state with output) * nclasses
	std::vector<uint32_t> ls_out_begin;  // per state, into ls_out (size states+1)
	std::vector<int32_t> ls_out;
};

} // namespace diag
