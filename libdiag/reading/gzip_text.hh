// Gzip-compressed logs (a rotated kern.log.1.gz, an archived job output, an
// upload) read as their text: zlib inflates on a thread of its own into a
// pipe the line reader reads, so that memory stays flat whatever the size,
// and a reader that stops early stops the inflating too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

namespace diag {

// Whether bytes start as a gzip member does (RFC 1952: 1f 8b, deflate).
bool gzip_magic(std::string_view head);

class gunzip_stream {
public:
	gunzip_stream() = default;
	gunzip_stream(const gunzip_stream &) = delete;
	gunzip_stream &operator=(const gunzip_stream &) = delete;
	~gunzip_stream(); // as finish()

	// Inflates a file from its start (fd: not owned, open until finish())
	// or memory (alive until finish()); concatenated members are one text,
	// as gzip -d gives. max_out: at most this many bytes of text (0: no
	// cap). False, with err, when no pipe or thread could be made.
	bool start(int fd, uint64_t max_out, std::string &err);
	bool start(std::string_view mem, uint64_t max_out, std::string &err);
	// A pipe (stdin): the bytes already read from it, then the rest.
	bool start_stream(std::string_view head, int fd, uint64_t max_out, std::string &err);

	// The text, to read until its end.
	int fd() const { return gz_read; }

	// After reading (or giving up): closes the pipe, waits for the thread,
	// and says what the text lacks: "" when whole, else why (corrupt or
	// truncated data, the cap).
	std::string finish();

private:
	bool begin(uint64_t max_out, std::string &err);
	void inflate_all() noexcept;

	int gz_in = -1;
	bool gz_stream = false; // gz_in read on (read), not by offset
	std::string gz_head;    // read before gz_in
	std::string_view gz_mem;
	uint64_t gz_max_out = 0;
	int gz_read = -1, gz_write = -1;
	std::thread gz_thread;
	std::string gz_why; // written by the thread, read after the join
};

} // namespace diag
