#include "rendering/utf8.hh"

namespace diag {

size_t utf8_sequence_length(std::string_view s, size_t i)
{
	auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
	unsigned char c = at(i);
	if (c < 0x80)
		return 1;
	// RFC 3629's table: the second byte's range rules out overlong forms
	// (E0, F0), surrogates (ED) and code points above 10FFFF (F4).
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (i + len > s.size() || at(i + 1) < lo || at(i + 1) > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if ((at(i + k) & 0xc0) != 0x80)
			return 0;
	return len;
}

std::string valid_utf8(std::string_view s)
{
	size_t i = 0, n = s.size();
	while (i < n && static_cast<unsigned char>(s[i]) < 0x80)
		i++;
	if (i == n)
		return std::string(s); // plain ASCII, the common case
	std::string out(s.substr(0, i));
	out.reserve(n + 8);
	while (i < n) {
		size_t len = utf8_sequence_length(s, i);
		if (len > 0) {
			out.append(s, i, len);
			i += len;
		} else {
			out += "\xef\xbf\xbd"; // U+FFFD, one for each byte that is not text
			i++;
		}
	}
	return out;
}

} // namespace diag
