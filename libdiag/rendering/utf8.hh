// Every text denpex hands out (JSON, the job's Comment, text, reports) is
// strict UTF-8: logs are not, and jansson refuses a string that is not, so
// a field would vanish. One rule for all outputs, so they agree.
#pragma once

#include <string>
#include <string_view>

namespace diag {

// The text with each byte that does not start a well-formed sequence
// replaced by U+FFFD: a stray continuation byte, a lead byte above F4 or
// C0/C1, a sequence cut short, an overlong form, a surrogate (D800-DFFF)
// or a code point above 10FFFF. Nothing is dropped; valid text is unchanged.
std::string valid_utf8(std::string_view s);

// Length of the well-formed sequence at s[i], 0 when there is none.
size_t utf8_sequence_length(std::string_view s, size_t i);

} // namespace diag
