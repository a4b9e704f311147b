#include "report.hh"

#include "own_files.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace denpex::epilog {

void remove_tree(int parent, const std::string &name, int depth)
{
	if (depth > 16)
		return;
	int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		unlinkat(parent, name.c_str(), 0);
		return;
	}
	for (const std::string &n : dir_names(fd, "", 100000))
		if (unlinkat(fd, n.c_str(), 0) != 0)
			remove_tree(fd, n, depth + 1);
	close(fd);
	unlinkat(parent, name.c_str(), AT_REMOVEDIR);
}

namespace {

// A directory of ours that a user got to first: in a parent that others may
// write to (a 1777 spool), a symlink or a directory or file that is not
// ours. Removed (never followed), so that a user cannot switch diagnosis
// off by creating it; true when something was removed.
bool remove_planted(const std::string &path, std::string &note)
{
	size_t slash = path.rfind('/');
	std::string parent = slash == 0 ? "/" : path.substr(0, slash);
	std::string base = path.substr(slash + 1);
	struct stat pst, st;
	if (base.empty() || stat(parent.c_str(), &pst) != 0 || !(pst.st_mode & S_IWOTH) ||
	    lstat(path.c_str(), &st) != 0)
		return false;
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid())
		return false;
	int pfd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return false;
	remove_tree(pfd, base);
	close(pfd);
	note = path + " was made by uid " + std::to_string(st.st_uid) + " in a directory anyone may write to; removed";
	return true;
}

} // namespace

bool ensure_private_dir(const std::string &path, mode_t mode, std::string &err)
{
	std::string note;
	if (!path.empty() && path[0] == '/' && remove_planted(path, note))
		err = note; // kept for the caller's log if the rest fails too
	if (path.empty() || path[0] != '/') {
		err = path + ": not an absolute path";
		return false;
	}
	// Intermediate directories as an admin would make them; the last one private.
	for (size_t pos = 1; pos <= path.size(); pos++) {
		if (pos != path.size() && path[pos] != '/')
			continue;
		std::string part = path.substr(0, pos);
		bool last = pos == path.size();
		if (mkdir(part.c_str(), last ? mode : 0755) != 0 && errno != EEXIST) {
			err = part + ": " + strerror(errno);
			return false;
		}
	}
	struct stat st;
	if (lstat(path.c_str(), &st) != 0) {
		err = path + ": " + strerror(errno);
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		err = path + ": not a directory (or a symbolic link)";
		return false;
	}
	if (st.st_uid != geteuid()) {
		err = path + ": owned by uid " + std::to_string(st.st_uid) + ", not by us";
		return false;
	}
	if (st.st_mode & 022) {
		err = path + ": writable by group or others; refusing to use it";
		return false;
	}
	return true;
}

bool write_atomic(const std::string &dir, const std::string &name, const std::string &data,
		  mode_t mode, std::string &err)
{
	std::string tmpl = dir + "/." + name + ".XXXXXX";
	std::vector<char> t(tmpl.begin(), tmpl.end());
	t.push_back('\0');
	int fd = mkostemp(t.data(), O_CLOEXEC);
	if (fd < 0) {
		err = tmpl + ": " + strerror(errno);
		return false;
	}
	bool ok = fchmod(fd, mode) == 0;
	size_t off = 0;
	while (ok && off < data.size()) {
		ssize_t w = write(fd, data.data() + off, data.size() - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			ok = false;
		else
			off += static_cast<size_t>(w);
	}
	if (ok && fsync(fd) != 0)
		ok = false;
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	std::string final_path = dir + "/" + name;
	if (ok && rename(t.data(), final_path.c_str()) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		unlink(t.data());
		err = final_path + ": " + strerror(e);
		return false;
	}
	int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return true;
}

} // namespace denpex::epilog
