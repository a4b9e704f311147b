#include "rendering/markup_escape.hh"

namespace diag {

size_t utf8_sequence_length(std::string_view s, size_t i)
{
	auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
	unsigned char c = b(i);
	if (c < 0x80)
		return 1;
	size_t n = s.size() - i;
	auto cont = [&](size_t k) { return (b(k) & 0xc0) == 0x80; };
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && cont(i + 1) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || !cont(i + 1) || !cont(i + 2))
			return 0;
		if ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || !cont(i + 1) || !cont(i + 2) || !cont(i + 3))
			return 0;
		if ((c == 0xf0 && b(i + 1) < 0x90) || (c == 0xf4 && b(i + 1) >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

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
