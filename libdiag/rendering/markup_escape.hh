// Log bytes shown in HTML or SVG: every byte escaped, invalid UTF-8 and
// control characters replaced by visible characters, never dropped.
#pragma once

#include "rendering/utf8.hh"

#include <string>
#include <string_view>

namespace diag {

// &, <, >, " and ' as entities; invalid UTF-8 as U+FFFD; C0 controls
// (but tab and newline) and DEL as their Control Pictures (U+2400...).
// The result is valid in HTML text, in quoted attributes and in XML.
std::string markup_escape(std::string_view s);

} // namespace diag
