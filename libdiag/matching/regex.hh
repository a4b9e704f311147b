// PCRE2 with RAII: compiled once, JIT attempted once a pattern is in use (a
// failed JIT falls back to the interpreter). Errors are values.
//
// One match data per thread serves every pattern, and a pattern keeps only
// its own last match's offsets: the interpreter keeps a 20 KiB frame vector
// in the match data it ran with, and one per pattern (five hundred of them,
// each tried once when its samples are checked at load) was most of what a
// diagnosis of a small log touched in memory.
#pragma once

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

struct regex_error {
	std::string message;
	size_t offset = 0; // where in the pattern
};

class regex {
public:
	static std::optional<regex> compile(std::string_view pattern, bool caseless, regex_error &err);
	// A copy that shares nothing (its own compiled code and JIT), for
	// another thread: a plain copy shares the compiled code, whose JIT
	// compilation is not for two threads at once.
	regex own_copy() const;

	// Unanchored search. On a match, captures are available through group().
	bool search(std::string_view subject);
	// Text of capture group i of the last successful search (empty if unset).
	std::string_view group(std::string_view subject, uint32_t i) const;
	bool group_set(uint32_t i) const;
	// Named groups in number order: (name, number).
	const std::vector<std::pair<std::string, uint32_t>> &names() const { return rx_names; }

private:
	struct code_free { void operator()(pcre2_code *c) const { pcre2_code_free(c); } };
	std::shared_ptr<pcre2_code> rx_code;
	// The last successful search's capture offsets, start and end per group.
	std::vector<PCRE2_SIZE> rx_ovector;
	std::vector<std::pair<std::string, uint32_t>> rx_names;
	uint32_t rx_ncap = 0;
	bool rx_jit = false;
	// JIT compiling costs more than a few interpreted matches: only
	// patterns that keep being tried are compiled (most never are).
	uint32_t rx_uses = 0;
};

} // namespace diag
