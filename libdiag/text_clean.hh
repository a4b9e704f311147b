// Cleaning of raw log lines: terminals and progress bars leave carriage
// returns, ANSI colour and stray control bytes that hide the text a pattern
// looks for.
#pragma once

#include <string>
#include <string_view>

namespace diag {

class line_cleaner {
public:
	// Calls fn(segment) for each non-empty piece of the raw line: the line is
	// split at '\r' (a progress bar rewriting itself, or a CRLF ending), ANSI
	// escape sequences are removed and other control bytes dropped (tabs
	// become spaces). Segments are views valid until fn returns.
	template <typename F>
	void for_each_segment(std::string_view raw, F &&fn)
	{
		if (is_plain(raw)) {
			if (!raw.empty())
				fn(raw);
			return;
		}
		size_t start = 0;
		while (start <= raw.size()) {
			size_t cr = raw.find('\r', start);
			std::string_view piece = raw.substr(start, cr == std::string_view::npos ? std::string_view::npos : cr - start);
			std::string_view clean = strip(piece);
			if (!clean.empty())
				fn(clean);
			if (cr == std::string_view::npos)
				break;
			start = cr + 1;
		}
	}

	// The line without escapes and control bytes, '\r' kept out.
	std::string_view strip(std::string_view raw);

private:
	static bool is_plain(std::string_view s)
	{
		for (unsigned char c : s)
			if (c < 0x20 || c == 0x7f)
				return false;
		return true;
	}
	std::string lc_buf;
};

} // namespace diag
