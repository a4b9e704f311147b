#include "rendering/markup_escape.hh"

namespace diag {

std::string markup_escape(std::string_view s)
{
	std::string out;
	out.reserve(s.size() + s.size() / 8);
	for (size_t i = 0; i < s.size();) {
		unsigned char c = static_cast<unsigned char>(s[i]);
		if (c < 0x80) {
			switch (c) {
			case '&': out += "&amp;"; break;
			case '<': out += "&lt;"; break;
			case '>': out += "&gt;"; break;
			case '"': out += "&quot;"; break;
			case '\'': out += "&#39;"; break;
			case '\t': case '\n': out += static_cast<char>(c); break;
			default:
				if (c < 0x20 || c == 0x7f) {
					// U+2400 + c (U+2421 for DEL), in UTF-8.
					unsigned cp = c == 0x7f ? 0x2421 : 0x2400 + c;
					out += static_cast<char>(0xe0 | (cp >> 12));
					out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
					out += static_cast<char>(0x80 | (cp & 0x3f));
				} else {
					out += static_cast<char>(c);
				}
			}
			i++;
			continue;
		}
		size_t n = utf8_sequence_length(s, i);
		if (n) {
			out.append(s.substr(i, n));
			i += n;
		} else {
			out += "\xef\xbf\xbd";
			i++;
		}
	}
	return out;
}

} // namespace diag
