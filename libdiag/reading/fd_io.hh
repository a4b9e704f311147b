// Whole reads and writes on a file descriptor, and one that closes itself:
// what every reader and writer of files here needs, in one place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace diag {

// Owns a descriptor (-1: none) and closes it at scope's end.
class unique_fd {
public:
	explicit unique_fd(int fd) : uf_fd(fd) {}
	~unique_fd();
	unique_fd(const unique_fd &) = delete;
	unique_fd &operator=(const unique_fd &) = delete;
	int get() const { return uf_fd; }
	int release()
	{
		int fd = uf_fd;
		uf_fd = -1;
		return fd;
	}

private:
	int uf_fd;
};

// n bytes at off, or false (an error, or the file ends before them);
// interrupted reads are resumed.
bool pread_all(int fd, char *buf, size_t n, uint64_t off);

// All n bytes, or false with errno set where the system said why.
bool write_all(int fd, const char *p, size_t n);

} // namespace diag
