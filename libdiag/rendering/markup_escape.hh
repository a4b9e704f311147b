// Log bytes shown in HTML or SVG: every byte escaped, invalid UTF-8 and
// control characters replaced by visible characters, never dropped.
#pragma once

#include <string>
#include <string_view>

namespace diag {

// &, <, >, " and ' as entities; invalid UTF-8 as U+FFFD; C0 controls
// (but tab and newline) and DEL as their Control Pictures (U+2400...).
// The result is valid in HTML text, in quoted attributes and in XML.
std::string markup_escape(std::string_view s);

// Length of the well-formed UTF-8 sequence at s[i] (shortest form, no
// surrogates, at most U+10FFFF; 1 for ASCII), or 0 when it is not one.
size_t utf8_sequence_length(std::string_view s, size_t i);

} // namespace diag
