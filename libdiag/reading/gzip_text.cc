#include "reading/gzip_text.hh"
#include "reading/fd_io.hh"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace diag {

namespace {

constexpr size_t chunk = 256 << 10;

std::string size_words(uint64_t n)
{
	return std::to_string(static_cast<unsigned long long>(n)) + " bytes of text";
}

} // namespace

bool gzip_magic(std::string_view head)
{
	return head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0x1f &&
	       static_cast<unsigned char>(head[1]) == 0x8b && head[2] == 8;
}

gunzip_stream::~gunzip_stream()
{
	finish();
}

bool gunzip_stream::start(int fd, uint64_t max_out, std::string &err)
{
	gz_in = fd;
	return begin(max_out, err);
}

bool gunzip_stream::start(std::string_view mem, uint64_t max_out, std::string &err)
{
	gz_mem = mem;
	return begin(max_out, err);
}

bool gunzip_stream::start_stream(std::string_view head, int fd, uint64_t max_out, std::string &err)
{
	gz_head.assign(head);
	gz_in = fd;
	gz_stream = true;
	return begin(max_out, err);
}

bool gunzip_stream::begin(uint64_t max_out, std::string &err)
{
	gz_max_out = max_out;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		err = std::string("no pipe for inflating: ") + strerror(errno);
		return false;
	}
	gz_read = p[0];
	gz_write = p[1];
	// A bigger pipe: fewer switches between the threads (a hint only).
	fcntl(gz_write, F_SETPIPE_SZ, 1 << 20);
	try {
		gz_thread = std::thread([this] { inflate_all(); });
	} catch (const std::system_error &e) {
		err = std::string("no thread for inflating: ") + e.what();
		close(gz_write);
		gz_write = -1;
		return false;
	}
	return true;
}

// Runs on the thread: every member in turn, the text written to the pipe
// until its end, the cap, bad data, or a reader that closed its end.
void gunzip_stream::inflate_all() noexcept
{
	// A reader that stopped early makes write fail with EPIPE; the signal
	// stays pending on this thread, which ends with it.
	sigset_t pipe_sig;
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);
	std::string why;
	try {
		std::unique_ptr<unsigned char[]> in(new unsigned char[chunk]), out(new unsigned char[chunk]);
		z_stream z{};
		// 15 + 16: a gzip wrapper, the largest window.
		if (inflateInit2(&z, 15 + 16) != Z_OK)
			throw std::runtime_error("zlib could not start");
		struct ender {
			z_stream &z;
			~ender() { inflateEnd(&z); }
		} end_z{z};
		uint64_t in_off = 0, text = 0;
		bool in_member = false, input_done = false, head_given = false;
		for (;;) {
			if (z.avail_in == 0 && !input_done) {
				// In order: memory, the bytes read before, the descriptor.
				if (!gz_mem.empty() || (gz_in < 0 && gz_head.empty())) {
					z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(gz_mem.data()));
					z.avail_in = static_cast<uInt>(std::min<size_t>(gz_mem.size(), UINT32_MAX));
					gz_mem.remove_prefix(z.avail_in);
					input_done = gz_mem.empty() && gz_in < 0;
				} else if (!head_given && !gz_head.empty()) {
					z.next_in = reinterpret_cast<Bytef *>(gz_head.data());
					z.avail_in = static_cast<uInt>(gz_head.size());
					head_given = true;
					input_done = gz_in < 0;
				} else {
					ssize_t n;
					do
						n = gz_stream ? read(gz_in, in.get(), chunk)
							      : pread(gz_in, in.get(), chunk, static_cast<off_t>(in_off));
					while (n < 0 && errno == EINTR);
					if (n < 0) {
						why = std::string("read error: ") + strerror(errno);
						break;
					}
					in_off += static_cast<uint64_t>(n);
					z.next_in = in.get();
					z.avail_in = static_cast<uInt>(n);
					input_done = n == 0;
				}
			}
			if (z.avail_in == 0 && input_done) {
				if (in_member)
					why = "the gzip data ends early (a truncated file?) after " + size_words(text);
				break;
			}
			if (!in_member) {
				// Between members: another member, or bytes after the
				// last that are not one (padding: ignored, as gzip -d does).
				if (z.avail_in >= 3 &&
				    !gzip_magic(std::string_view(reinterpret_cast<const char *>(z.next_in), 3)))
					break;
				in_member = true;
			}
			z.next_out = out.get();
			z.avail_out = static_cast<uInt>(chunk);
			int r = inflate(&z, Z_NO_FLUSH);
			size_t got = chunk - z.avail_out;
			if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
				why = "corrupt gzip data after " + size_words(text) + " (" +
				      (z.msg ? z.msg : "zlib error " + std::to_string(r)) + ")";
			}
			bool capped = false;
			if (gz_max_out && text + got > gz_max_out) {
				got = static_cast<size_t>(gz_max_out - text);
				capped = true;
			}
			if (got && !write_all(gz_write, reinterpret_cast<const char *>(out.get()), got))
				break; // the reader is done
			text += got;
			if (capped) {
				why = "only the first " + size_words(gz_max_out) + " read (the byte cap)";
				break;
			}
			if (!why.empty())
				break;
			if (r == Z_STREAM_END) {
				in_member = false;
				inflateReset(&z);
			}
		}
	} catch (const std::exception &e) {
		why = std::string("inflating failed: ") + e.what();
	}
	gz_why = why;
	close(gz_write);
	gz_write = -1;
}

std::string gunzip_stream::finish()
{
	if (gz_read >= 0) {
		close(gz_read); // a thread still writing sees EPIPE and ends
		gz_read = -1;
	}
	if (gz_thread.joinable())
		gz_thread.join();
	if (gz_write >= 0) { // no thread was started
		close(gz_write);
		gz_write = -1;
	}
	return gz_why;
}

} // namespace diag
