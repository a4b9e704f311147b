#include "matching/compiled_cache.hh"

#include "reading/fd_io.hh"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace diag::compiled_cache {

namespace {

constexpr char magic[] = "denpex-cache 1\n";

// The user's own and no one else's to write.
bool own(const struct stat &st)
{
	return st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

bool plain_name(const std::string &name)
{
	if (name.empty() || name[0] == '.')
		return false;
	for (char c : name)
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			return false;
	return true;
}

// The directory, opened without following a symlink at its last component,
// where it is the user's own (else -1).
int open_dir(const std::string &dir)
{
	int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || !own(st)) {
		close(fd);
		errno = EPERM; // there, but not ours
		return -1;
	}
	return fd;
}

void put64(std::string &s, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		s += static_cast<char>((v >> (8 * i)) & 0xff);
}

// What a file begins with: the magic, the key's length, the key (then the
// checksum of the bytes, and the bytes).
std::string header(const std::string &key)
{
	std::string h(magic);
	put64(h, key.size());
	h += key;
	return h;
}

// FNV-1a over the bytes: a file cut short or damaged on disk is not
// loaded (a compiled database carries no checksum of its own that its
// loader checks).
uint64_t checksum(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
	return h;
}

// Writes the file in the directory dirfd (taken and closed).
bool store_in(int dirfd, const std::string &name, const std::string &key, const std::string &bytes)
{
	unique_fd d(dirfd);
	if (d.get() < 0)
		return false;
	const std::string tmp = "." + name + "." + std::to_string(getpid()) + ".tmp";
	int fd = openat(d.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	std::string h = header(key);
	put64(h, checksum(bytes.data(), bytes.size()));
	bool ok = write_all(fd, h.data(), h.size()) && write_all(fd, bytes.data(), bytes.size());
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(d.get(), tmp.c_str(), d.get(), name.c_str()) != 0) {
		unlinkat(d.get(), tmp.c_str(), 0);
		return false;
	}
	return true;
}

} // namespace

std::string directory()
{
	if (const char *e = getenv("DENPEX_CACHE_DIR"))
		return e[0] == '/' ? std::string(e) : std::string();
	// Root (an epilog, a plugin in slurmstepd) or a changed identity: the
	// environment's HOME may be a user's, whose components that user may
	// turn into symlinks. Only a directory named on purpose.
	if (geteuid() == 0 || geteuid() != getuid())
		return std::string();
	if (const char *x = getenv("XDG_CACHE_HOME"); x && x[0] == '/')
		return std::string(x) + "/denpex";
	if (const char *h = getenv("HOME"); h && h[0] == '/')
		return std::string(h) + "/.cache/denpex";
	return std::string();
}

bool load(const std::string &dir, const std::string &name, const std::string &key, std::string &bytes,
	  size_t max_bytes)
{
	bytes.clear();
	if (dir.empty() || !plain_name(name))
		return false;
	unique_fd d(open_dir(dir));
	if (d.get() < 0)
		return false;
	unique_fd f(openat(d.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	if (f.get() < 0)
		return false;
	struct stat st;
	if (fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || !own(st))
		return false;
	const std::string h = header(key);
	const uint64_t size = static_cast<uint64_t>(st.st_size);
	if (size <= h.size() + 8 || size - h.size() - 8 > max_bytes)
		return false;
	std::string all(static_cast<size_t>(size), '\0');
	if (!pread_all(f.get(), all.data(), all.size(), 0))
		return false; // shorter than it said: being replaced
	if (all.compare(0, h.size(), h) != 0)
		return false; // another key (or another format)
	std::string sum;
	put64(sum, checksum(all.data() + h.size() + 8, all.size() - h.size() - 8));
	if (all.compare(h.size(), 8, sum) != 0)
		return false;
	bytes = all.substr(h.size() + 8);
	return true;
}

bool store(const std::string &dir, const std::string &name, const std::string &key, const std::string &bytes)
{
	if (dir.empty() || !plain_name(name))
		return false;
	unique_fd d(open_dir(dir));
	if (d.get() < 0 && errno == ENOENT) {
		// Made only inside a parent of the user's own, by its handle.
		const size_t slash = dir.find_last_of('/');
		const std::string parent = slash == 0 ? std::string("/") : dir.substr(0, slash),
				  base = dir.substr(slash + 1);
		if (base.empty() || base == "." || base == "..")
			return false;
		unique_fd up(open_dir(parent));
		if (up.get() < 0 || mkdirat(up.get(), base.c_str(), 0700) != 0)
			return false;
		return store_in(open_dir(dir), name, key, bytes);
	}
	return store_in(d.release(), name, key, bytes);
}

} // namespace diag::compiled_cache
