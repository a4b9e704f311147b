#include "reading/fd_io.hh"

#include <cerrno>
#include <sys/types.h>
#include <unistd.h>

namespace diag {

unique_fd::~unique_fd()
{
	if (uf_fd >= 0)
		close(uf_fd);
}

bool pread_all(int fd, char *buf, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t r = pread(fd, buf, n, static_cast<off_t>(off));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		buf += r;
		n -= static_cast<size_t>(r);
		off += static_cast<uint64_t>(r);
	}
	return true;
}

bool write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= static_cast<size_t>(w);
	}
	return true;
}

} // namespace diag
