// Streaming line reader over a file descriptor: one rolling buffer, read(2)
// only (a file truncated under an mmap would raise SIGBUS), a hard cap on
// line length, and an optional cap on bytes read that keeps a file's head
// and tail, where a failure usually is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace diag {

class line_reader {
public:
	// max_line: longer lines are returned in pieces of at most this size.
	// max_bytes: 0 for no cap; otherwise about half is read from the head
	// and half from the tail of a seekable file.
	line_reader(int fd, uint64_t max_bytes = 0, size_t max_line = 64 * 1024);
	// Reads lines from memory (a structured source that turned out to be
	// text); the bytes are copied.
	explicit line_reader(std::string_view mem, size_t max_line = 64 * 1024);
	// Reads lines from memory it takes over (an upload: no second copy).
	explicit line_reader(std::vector<char> &&mem, size_t max_line = 64 * 1024);

	// The next line without its "\n" (a trailing "\r" is kept: cleaning
	// handles it). False at the end or on a read error (see error()).
	bool next(std::string_view &line);

	// For callers that split lines themselves (reading stays cheap where
	// it must be done in order): every complete line buffered, as one
	// chunk that ends in '\n' (or the source's last line, without one),
	// reading more when none is buffered; lines: how many lines it holds
	// (line_no() counts them). A caller splitting it as next() would (at
	// '\n', over-long lines in pieces of max_line() under one number)
	// gets what next() gives (a head/tail cap included). False when next()
	// must be called instead: at the end, or inside an over-long line.
	bool next_lines(std::string_view &chunk, uint64_t &lines);
	size_t max_line() const { return lr_max_line; }
	// The file descriptor (-1 for memory) and the byte cap (0: none), for
	// a reader that reads a regular file by offset instead (event_scan).
	int fd() const { return lr_fd; }
	uint64_t max_bytes() const { return lr_max_bytes; }

	uint64_t line_no() const { return lr_line_no; }   // 1-based number of the last line
	uint64_t bytes_read() const { return lr_bytes_read; }
	uint64_t bytes_skipped() const { return lr_skipped; } // by the head/tail cap
	// About how many bytes there are to read (a regular file's size, or
	// the memory's); 0 when unknown (a pipe).
	uint64_t size_hint() const { return lr_size_hint; }
	bool truncated_line() const { return lr_piece; }   // last line was cut at max_line
	int error() const { return lr_errno; }
	// True when the first block looked binary (NUL bytes in the first 4 KiB
	// outside of text): callers may skip such sources.
	bool looks_binary();
	// The first bytes of the file without consuming them (for sniffing).
	std::string_view peek(size_t n);

private:
	bool fill(size_t most = SIZE_MAX); // reads at most most bytes more

	int lr_fd;
	uint64_t lr_max_bytes;
	size_t lr_max_line;
	std::vector<char> lr_buf;
	size_t lr_begin = 0, lr_end = 0;
	bool lr_eof = false;
	bool lr_piece = false;
	bool lr_prev_piece = false;
	int lr_errno = 0;
	uint64_t lr_line_no = 0;
	uint64_t lr_bytes_read = 0;
	uint64_t lr_skipped = 0;
	uint64_t lr_size_hint = 0;
	uint64_t lr_head_limit = 0;  // bytes to read before jumping to the tail
	uint64_t lr_tail_start = 0;
	bool lr_jumped = false;
	bool lr_skip_partial = false; // after a jump: drop the first partial line
};

} // namespace diag
