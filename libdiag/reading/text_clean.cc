#include "reading/text_clean.hh"

namespace diag {

std::string_view line_cleaner::strip(std::string_view raw)
{
	lc_buf.clear();
	size_t i = 0, n = raw.size();
	while (i < n) {
		unsigned char c = static_cast<unsigned char>(raw[i]);
		if (c == 0x1b) {
			// CSI: ESC [ params final(0x40-0x7e); OSC: ESC ] ... BEL or ESC \ .
			if (i + 1 < n && raw[i + 1] == '[') {
				i += 2;
				while (i < n && !(raw[i] >= 0x40 && raw[i] <= 0x7e))
					i++;
				i++;
			} else if (i + 1 < n && raw[i + 1] == ']') {
				i += 2;
				while (i < n && raw[i] != '\a' && !(raw[i] == 0x1b && i + 1 < n && raw[i + 1] == '\\'))
					i++;
				i += (i < n && raw[i] == 0x1b) ? 2 : 1;
			} else {
				i += 2;
			}
			continue;
		}
		if (c == '\t')
			lc_buf.push_back(' ');
		else if (c >= 0x20 && c != 0x7f)
			lc_buf.push_back(static_cast<char>(c));
		i++;
	}
	// Trailing blanks carry nothing.
	while (!lc_buf.empty() && lc_buf.back() == ' ')
		lc_buf.pop_back();
	return lc_buf;
}

} // namespace diag
