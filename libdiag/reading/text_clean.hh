// Cleaning of raw log lines: terminals and progress bars leave carriage
// returns, ANSI colour and stray control bytes that hide the text a pattern
// looks for.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace diag {

// True when s holds a byte below 0x20 or 0x7f: a line that needs cleaning.
// Sixteen bytes at a time where SSE2 is there (every x86-64).
inline bool has_control(std::string_view s)
{
	const unsigned char *p = reinterpret_cast<const unsigned char *>(s.data());
	size_t n = s.size(), i = 0;
#ifdef __SSE2__
	const __m128i lo = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
		__m128i ctl = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, lo), x), _mm_cmpeq_epi8(x, del));
		if (_mm_movemask_epi8(ctl))
			return true;
	}
#endif
	for (; i < n; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return true;
	return false;
}

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
			// (Trailing blanks carry nothing, as strip() says: a line
			// reads the same whatever its line ending.)
			while (!raw.empty() && raw.back() == ' ')
				raw.remove_suffix(1);
			if (!raw.empty())
				fn(raw);
			return;
		}
		// A run of NULs ends a segment too: it is a hole where a dying
		// writer's data never reached the disk, and what follows belongs
		// to another write, not to the cut-off line. (A stray NUL is
		// dropped like other control bytes.)
		size_t start = 0;
		while (start <= raw.size()) {
			size_t brk = start, skip = 0;
			for (; brk < raw.size(); brk++) {
				if (raw[brk] == '\r') {
					skip = 1;
					break;
				}
				if (raw[brk] == '\0') {
					size_t run = 1;
					while (brk + run < raw.size() && raw[brk + run] == '\0')
						run++;
					if (run >= hole_run) {
						skip = run;
						break;
					}
					brk += run - 1;
				}
			}
			std::string_view clean = strip(raw.substr(start, brk - start));
			if (!clean.empty())
				fn(clean);
			if (brk >= raw.size())
				break;
			start = brk + skip;
		}
	}

	// NULs in a run this long are a hole in the file (see for_each_segment).
	static constexpr size_t hole_run = 16;

	// The line without escapes and control bytes, '\r' kept out.
	std::string_view strip(std::string_view raw);

private:
	static bool is_plain(std::string_view s) { return !has_control(s); }
	std::string lc_buf;
};

} // namespace diag
