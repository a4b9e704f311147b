// Many literals found in one pass (Aho-Corasick, as a DFA over byte
// classes): the prefilter that decides which signature patterns are worth
// running on a line at all.
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

	// Calls fn(id) for every occurrence of every literal in text.
	template <typename F>
	void scan(std::string_view text, F &&fn) const
	{
		int32_t s = 0;
		const uint8_t *cls = ls_class;
		const int32_t *delta = ls_delta.data();
		const uint32_t nc = ls_nclasses;
		for (unsigned char c : text) {
			s = delta[static_cast<uint32_t>(s) * nc + cls[c]];
			if (ls_out_begin[s] != ls_out_begin[s + 1])
				for (uint32_t k = ls_out_begin[s]; k < ls_out_begin[s + 1]; k++)
					fn(ls_out[k]);
		}
	}

private:
	std::vector<std::string> ls_literals;
	uint8_t ls_class[256] = {};
	uint32_t ls_nclasses = 1;
	std::vector<int32_t> ls_delta;       // state * nclasses + class -> state
	std::vector<uint32_t> ls_out_begin;  // per state, into ls_out (size states+1)
	std::vector<int32_t> ls_out;
};

} // namespace diag
