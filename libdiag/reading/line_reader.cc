#include "reading/line_reader.hh"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace diag {

namespace {
constexpr size_t block_size = 256 * 1024;

// How many '\n' in [p, p + n): sixteen bytes at a time where SSE2 is
// there (every x86-64); one call, however short the lines.
uint64_t count_newlines(const char *p, size_t n)
{
	uint64_t count = 0;
	size_t i = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
		count += static_cast<uint64_t>(__builtin_popcount(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl)))));
	}
#endif
	for (; i < n; i++)
		count += p[i] == '\n';
	return count;
}
} // namespace

line_reader::line_reader(int fd, uint64_t max_bytes, size_t max_line)
	: lr_fd(fd), lr_max_bytes(max_bytes), lr_max_line(max_line ? max_line : 1)
{
	lr_buf.resize(1); // the block on the first read that needs it (fill)
	struct stat st;
	bool reg = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (reg)
		lr_size_hint = static_cast<uint64_t>(st.st_size);
	if (max_bytes && reg && lr_size_hint > max_bytes)
		lr_size_hint = max_bytes;
	if (max_bytes && reg &&
	    static_cast<uint64_t>(st.st_size) > max_bytes) {
		lr_head_limit = max_bytes / 2;
		lr_tail_start = static_cast<uint64_t>(st.st_size) - (max_bytes - lr_head_limit);
	}
}

line_reader::line_reader(std::string_view mem, size_t max_line)
	: lr_fd(-1), lr_max_bytes(0), lr_max_line(max_line ? max_line : 1)
{
	lr_buf.assign(mem.begin(), mem.end());
	lr_buf.resize(mem.size() + lr_max_line + 1);
	lr_end = mem.size();
	lr_eof = true;
	lr_bytes_read = mem.size();
	lr_size_hint = mem.size();
}

line_reader::line_reader(std::vector<char> &&mem, size_t max_line)
	: lr_fd(-1), lr_max_bytes(0), lr_max_line(max_line ? max_line : 1)
{
	size_t n = mem.size();
	lr_buf = std::move(mem);
	lr_buf.resize(n + lr_max_line + 1);
	lr_end = n;
	lr_eof = true;
	lr_bytes_read = n;
	lr_size_hint = n;
}

// Reads more bytes behind what is buffered. False when nothing more comes.
bool line_reader::fill(size_t most)
{
	if (lr_eof)
		return false;
	if (lr_begin > 0) {
		memmove(lr_buf.data(), lr_buf.data() + lr_begin, lr_end - lr_begin);
		lr_end -= lr_begin;
		lr_begin = 0;
	}
	// The block grows to its size on the first read of more than a sniff:
	// a file read event-first is only sniffed here (579 rank files zeroed
	// 320 KiB each for it).
	const size_t full = block_size + lr_max_line + 1;
	if (lr_buf.size() < full)
		lr_buf.resize(most < full - lr_end ? std::max(lr_buf.size(), lr_end + most) : full);
	size_t room = std::min(lr_buf.size() - lr_end, most);
	if (room == 0)
		return false;
	if (lr_head_limit && !lr_jumped) {
		uint64_t left = lr_head_limit - lr_bytes_read;
		if (left == 0) {
			if (lseek(lr_fd, static_cast<off_t>(lr_tail_start), SEEK_SET) < 0) {
				lr_eof = true;
				return false;
			}
			lr_jumped = true;
			lr_skipped = lr_tail_start - lr_bytes_read;
			lr_skip_partial = true;
			// The head's unfinished last line is dropped: half a line
			// misleads more than none.
			lr_end = lr_begin;
		} else if (room > left) {
			room = left;
		}
	}
	for (;;) {
		ssize_t n = read(lr_fd, lr_buf.data() + lr_end, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lr_errno = errno;
			lr_eof = true;
			return false;
		}
		if (n == 0) {
			lr_eof = true;
			return false;
		}
		lr_bytes_read += static_cast<uint64_t>(n);
		if (lr_skip_partial) {
			// The tail starts mid-line: drop up to its first newline.
			char *p = lr_buf.data() + lr_end;
			char *nl = static_cast<char *>(memchr(p, '\n', static_cast<size_t>(n)));
			if (!nl)
				continue;
			lr_skip_partial = false;
			size_t keep = static_cast<size_t>(n) - static_cast<size_t>(nl + 1 - p);
			memmove(p, nl + 1, keep);
			n = static_cast<ssize_t>(keep);
			if (n == 0)
				continue;
		}
		lr_end += static_cast<size_t>(n);
		return true;
	}
}

bool line_reader::next(std::string_view &line)
{
	for (;;) {
		const char *start = lr_buf.data() + lr_begin;
		size_t avail = lr_end - lr_begin;
		const char *nl = avail ? static_cast<const char *>(memchr(start, '\n', avail)) : nullptr;
		if (nl && static_cast<size_t>(nl - start) <= lr_max_line) {
			size_t len = static_cast<size_t>(nl - start);
			lr_begin += len + 1;
			lr_piece = false;
			if (!lr_prev_piece)
				lr_line_no++;
			lr_prev_piece = false;
			line = std::string_view(start, len);
			return true;
		}
		if (avail >= lr_max_line) {
			// Over-long line: hand out a piece, keep the line number.
			lr_begin += lr_max_line;
			if (!lr_prev_piece)
				lr_line_no++;
			lr_prev_piece = true;
			lr_piece = true;
			line = std::string_view(start, lr_max_line);
			return true;
		}
		if (!fill()) {
			if (lr_end == lr_begin)
				return false;
			// Last line without a newline.
			size_t len = lr_end - lr_begin;
			lr_begin = lr_end;
			if (!lr_prev_piece)
				lr_line_no++;
			lr_prev_piece = false;
			lr_piece = false;
			line = std::string_view(start, len);
			return true;
		}
	}
}

bool line_reader::next_lines(std::string_view &chunk, uint64_t &lines)
{
	if (lr_prev_piece)
		return false;
	for (;;) {
		const char *start = lr_buf.data() + lr_begin;
		size_t avail = lr_end - lr_begin;
		const char *nl = avail ? static_cast<const char *>(memrchr(start, '\n', avail)) : nullptr;
		if (nl) {
			size_t len = static_cast<size_t>(nl - start) + 1;
			lines = count_newlines(start, len);
			lr_begin += len;
			lr_line_no += lines;
			lr_piece = false;
			chunk = std::string_view(start, len);
			return true;
		}
		// No newline: an over-long line is next()'s to cut; the source's
		// last line is returned whole.
		if (avail >= lr_max_line)
			return false;
		if (!fill()) {
			// fill() may have moved the bytes.
			start = lr_buf.data() + lr_begin;
			avail = lr_end - lr_begin;
			if (avail == 0)
				return false;
			lr_begin = lr_end;
			lr_line_no++;
			lr_piece = false;
			lines = 1;
			chunk = std::string_view(start, avail);
			return true;
		}
	}
}

std::string_view line_reader::peek(size_t n)
{
	// No more than asked for: a file read event-first is read by offset
	// after its sniffing (event_scan), and 579 rank files read a block
	// each for nothing were a fifth of their copying.
	while (lr_end - lr_begin < n && fill(n - (lr_end - lr_begin))) {
	}
	size_t avail = lr_end - lr_begin;
	return std::string_view(lr_buf.data() + lr_begin, avail < n ? avail : n);
}

bool line_reader::looks_binary()
{
	std::string_view head = peek(4096);
	size_t nul = 0, ctrl = 0;
	for (unsigned char c : head) {
		if (c == 0)
			nul++;
		else if (c < 0x09 || (c > 0x0d && c < 0x20 && c != 0x1b))
			ctrl++;
	}
	// A crashed writer leaves a few NULs in text; binaries are full of them.
	return head.size() > 0 && (nul * 8 > head.size() || (nul + ctrl) * 4 > head.size());
}

} // namespace diag
