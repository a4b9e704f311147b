#include "own_files.hh"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace denpex::epilog {

std::vector<std::string> dir_names(int dirfd, const std::string &sub, size_t max, bool hidden)
{
	std::vector<std::string> names;
	// fdopendir owns its fd: a copy, so that dirfd stays the caller's.
	int fd = sub.empty() ? fcntl(dirfd, F_DUPFD_CLOEXEC, 0)
			     : openat(dirfd, sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return names;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return names;
	}
	if (sub.empty())
		rewinddir(d); // a dup shares the caller's position
	while (names.size() < max) {
		struct dirent *de = readdir(d);
		if (de == nullptr)
			break;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || (!hidden && de->d_name[0] == '.'))
			continue;
		names.push_back(de->d_name);
	}
	closedir(d);
	return names;
}

std::optional<std::string> read_own_file(int dirfd, const std::string &name, size_t max,
					 const std::function<bool(const struct stat &)> &accept)
{
	int fd = openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return std::nullopt;
	struct stat st;
	if (fstat(fd, &st) != 0 || (accept && !accept(st))) {
		close(fd);
		return std::nullopt;
	}
	std::string text;
	char buf[65536];
	while (text.size() < max) {
		ssize_t r = read(fd, buf, std::min(sizeof(buf), max - text.size()));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		text.append(buf, static_cast<size_t>(r));
	}
	close(fd);
	return text;
}

} // namespace denpex::epilog
