// spool.cc - the job's spool directory and atomic record files.
//
// <spool> is the admin's (it must exist; the plugin never creates it; it must
// be root's, and sticky if world-writable). Inside
// it slurmstepd (root) creates <spool>/<job>/ and its subdirectories owned by
// the job's user, mode 0750, relative to directory fds opened with
// O_NOFOLLOW, so a symlink planted by a user is never followed. Several
// nodes may race to create the same directories: EEXIST is fine as long as
// what exists is a real directory owned by the job user (or root, while the
// first creator has not chowned it yet).
#include "spank_denpex.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace denpex {

namespace {

std::string why(const std::string &what, int err)
{
	return what + ": " + strerror(err);
}

int check_dir(int fd, uid_t uid, gid_t gid, const std::string &path, std::string *err)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*err = why(path, errno);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*err = path + ": not a directory";
		return -1;
	}
	if (st.st_uid != uid && st.st_uid != 0) {
		*err = path + ": owned by uid " + std::to_string(st.st_uid) + ", not the job user " +
		       std::to_string(uid);
		return -1;
	}
	// Root-owned: we (or another node's slurmstepd) just created it.
	if (st.st_uid != uid || st.st_gid != gid) {
		if (geteuid() == 0 && fchown(fd, uid, gid) != 0) {
			*err = why(path + ": chown", errno);
			return -1;
		}
	}
	if ((st.st_mode & 07777) != 0750 && fchmod(fd, 0750) != 0 && st.st_uid == uid) {
		*err = why(path + ": chmod", errno);
		return -1;
	}
	return 0;
}

} // namespace

int spool_open_subdir(int dirfd, const char *name, uid_t uid, gid_t gid, std::string *err)
{
	if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST) {
		*err = why(name, errno);
		return -1;
	}
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*err = why(name, errno);
		return -1;
	}
	if (check_dir(fd, uid, gid, name, err) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int spool_open_job_dir(const char *spool, uint32_t job, uid_t uid, gid_t gid, std::string *err)
{
	// The spool itself is the admin's (it may be a symlink the admin made, to a
	// shared file system say); it must belong to root (or to us, in tests), and
	// if others may write to it, it must be sticky like /tmp.
	int sfd = open(spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0) {
		*err = why(std::string("spool ") + spool, errno);
		return -1;
	}
	struct stat st;
	if (fstat(sfd, &st) != 0) {
		*err = why(std::string("spool ") + spool, errno);
		close(sfd);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		*err = std::string("spool ") + spool + ": owned by uid " + std::to_string(st.st_uid) + ", not root";
		close(sfd);
		return -1;
	}
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		*err = std::string("spool ") + spool + ": writable by everyone but not sticky (use mode 0755 or 1777)";
		close(sfd);
		return -1;
	}
	std::string name = std::to_string(job);
	int fd = spool_open_subdir(sfd, name.c_str(), uid, gid, err);
	if (fd < 0)
		*err = std::string(spool) + "/" + *err;
	close(sfd);
	return fd;
}

int spool_write_atomic(int dirfd, const char *name, const std::string &data, uid_t uid, gid_t gid,
		       std::string *err)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	std::string tmp = std::string(".") + name + ".tmp." + std::to_string(getpid()) + "." +
			  std::to_string(ts.tv_nsec);
	int fd = openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		*err = why(tmp, errno);
		return -1;
	}
	const char *p = data.data();
	size_t left = data.size();
	while (left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*err = why(tmp, errno);
			close(fd);
			unlinkat(dirfd, tmp.c_str(), 0);
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	if (uid != (uid_t)-1 && geteuid() == 0 && fchown(fd, uid, gid) != 0) {
		*err = why(tmp + ": chown", errno);
		close(fd);
		unlinkat(dirfd, tmp.c_str(), 0);
		return -1;
	}
	if (close(fd) != 0) {
		*err = why(tmp, errno);
		unlinkat(dirfd, tmp.c_str(), 0);
		return -1;
	}
	if (renameat(dirfd, tmp.c_str(), dirfd, name) != 0) {
		*err = why(name, errno);
		unlinkat(dirfd, tmp.c_str(), 0);
		return -1;
	}
	return 0;
}

} // namespace denpex
