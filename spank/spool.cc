// spool.cc - the job's spool directory and atomic record files.
//
// <spool> is the admin's (it must exist; the plugin never creates it; it must
// be root's, and sticky if world-writable). Inside it slurmstepd (root)
// creates <spool>/<job>/ owned by the job's user, mode 0750, under a private
// name first, with a root-owned marker file .denpex-node.<node> (job, uid,
// restart count, the dir's inode), and renames it into place without
// replacing anything. An existing <spool>/<job> is adopted only when it is
// the job user's and carries such a marker (another node of a shared spool
// made it); anything else there (planted by another user in a 1777 spool,
// left by an earlier job with the same id, a symlink, a file) is removed,
// never followed, never chowned. Subdirectories are opened relative to
// directory fds with O_NOFOLLOW. The marker also lists the job's task pids
// (task_post_fork, as root): the epilog attributes kernel messages by them.
#include "spank_denpex.hh"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

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

namespace {

// Removes dirfd/name and what is under it, as root, never following a
// symlink (each level is opened O_NOFOLLOW relative to its parent). Bounded.
void remove_entry(int parent, const char *name, int depth)
{
	if (unlinkat(parent, name, 0) == 0 || depth > 16)
		return;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (d == nullptr) {
		close(fd);
		return;
	}
	std::vector<std::string> names;
	while (struct dirent *de = readdir(d)) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && names.size() < 100000)
			names.push_back(de->d_name);
	}
	for (const std::string &n : names)
		remove_entry(dirfd(d), n.c_str(), depth + 1);
	closedir(d);
	unlinkat(parent, name, AT_REMOVEDIR);
}

// The marker's first line: what the epilog checks before it reads the dir.
// time_ns and mono_ns, read together, give the boot time on the clock the
// job's own logs were written with: the epilog places kernel messages on it
// even when the node's clock has moved since.
std::string marker_line(const spool_identity &id, uid_t uid, ino_t ino)
{
	int64_t mono = monotonic_ns();
	int64_t real = realtime_ns();
	return std::string("denpex-spool 1 job=") + std::to_string(id.si_job) + " uid=" + std::to_string(uid) +
	       " restart=" + std::to_string(id.si_restart) + " ino=" + std::to_string((unsigned long long)ino) +
	       " time_ns=" + std::to_string((long long)real) + " mono_ns=" + std::to_string((long long)mono) + "\n";
}

// Whether the directory at fd carries a root-written marker for this job
// (any node's): the dir was made by this plugin, for this job and user.
bool has_marker(int fd, const spool_identity &id, uid_t uid)
{
	struct stat dst;
	if (fstat(fd, &dst) != 0)
		return false;
	int dup_fd = dup(fd);
	if (dup_fd < 0)
		return false;
	DIR *d = fdopendir(dup_fd);
	if (d == nullptr) {
		close(dup_fd);
		return false;
	}
	std::string want = std::string("denpex-spool 1 job=") + std::to_string(id.si_job) + " uid=" +
			   std::to_string(uid) + " restart=" + std::to_string(id.si_restart) +
			   " ino=" + std::to_string((unsigned long long)dst.st_ino) + " ";
	bool ok = false;
	unsigned seen = 0;
	while (struct dirent *de = readdir(d)) {
		if (strncmp(de->d_name, DENPEX_MARKER_PREFIX, strlen(DENPEX_MARKER_PREFIX)) != 0)
			continue;
		if (++seen > 4096)
			break;
		int m = openat(fd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (m < 0)
			continue;
		struct stat st;
		char buf[256];
		ssize_t n = -1;
		if (fstat(m, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && st.st_nlink == 1)
			n = read(m, buf, sizeof(buf) - 1);
		close(m);
		if (n > 0) {
			buf[n] = '\0';
			if (strncmp(buf, want.c_str(), want.size()) == 0) {
				ok = true;
				break;
			}
		}
	}
	closedir(d);
	return ok;
}

// Creates this node's marker in the job dir (root:root 0644) if it has none.
int write_marker(int fd, const spool_identity &id, uid_t uid, std::string *err)
{
	if (geteuid() != 0)
		return 0; // tests as a user: nothing only root can write
	struct stat dst;
	if (fstat(fd, &dst) != 0) {
		*err = why("marker", errno);
		return -1;
	}
	std::string name = std::string(DENPEX_MARKER_PREFIX) + id.si_node;
	int m = openat(fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (m < 0) {
		if (errno == EEXIST)
			return 0;
		*err = why(name, errno);
		return -1;
	}
	std::string line = marker_line(id, uid, dst.st_ino);
	bool ok = write(m, line.data(), line.size()) == (ssize_t)line.size() && fchown(m, 0, 0) == 0;
	close(m);
	if (!ok) {
		*err = why(name, errno);
		return -1;
	}
	return 0;
}

// A fresh job dir made under a private name, marked and chowned, then put in
// place atomically: another node never sees it half made, and it never
// replaces an existing entry. 1: in place; 0: the name exists; -1: error.
int create_job_dir(int sfd, const std::string &name, const spool_identity &id, uid_t uid, gid_t gid,
		   std::string *err)
{
	std::string tmp = ".denpex-new." + name + "." + std::to_string(getpid()) + "." +
			  std::to_string((long long)(realtime_ns() % 1000000000LL));
	if (mkdirat(sfd, tmp.c_str(), 0700) != 0) {
		*err = why(tmp, errno);
		return -1;
	}
	int fd = openat(sfd, tmp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*err = why(tmp, errno);
		unlinkat(sfd, tmp.c_str(), AT_REMOVEDIR);
		return -1;
	}
	int rv = -1;
	if (write_marker(fd, id, uid, err) == 0 && check_dir(fd, uid, gid, name, err) == 0) {
		if (renameat2(sfd, tmp.c_str(), sfd, name.c_str(), RENAME_NOREPLACE) == 0)
			rv = 1;
		else if (errno == EEXIST || errno == ENOTEMPTY)
			rv = 0;
		else
			*err = why(name, errno);
	}
	close(fd);
	if (rv != 1)
		remove_entry(sfd, tmp.c_str(), 0);
	return rv;
}

} // namespace

int spool_open_job_dir(const char *spool, const spool_identity &id, uid_t uid, gid_t gid, std::string *err)
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
	std::string name = std::to_string(id.si_job);
	int fd = -1;
	// Twice at most: a foreign entry is removed once, then the name is ours.
	for (int attempt = 0; attempt < 3 && fd < 0; attempt++) {
		int made = create_job_dir(sfd, name, id, uid, gid, err);
		if (made < 0)
			break;
		int cand = openat(sfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat cst;
		bool ours = cand >= 0 && fstat(cand, &cst) == 0 && cst.st_uid == uid &&
			    (geteuid() != 0 || has_marker(cand, id, uid));
		if (ours) {
			// Made by this plugin for this job (by us, or another node of a
			// shared spool): adopt it, with this node's marker.
			if (check_dir(cand, uid, gid, name, err) == 0 && write_marker(cand, id, uid, err) == 0)
				fd = cand;
			else
				close(cand);
			break;
		}
		if (cand >= 0)
			close(cand);
		if (geteuid() != 0) {
			*err = name + ": exists and is not this job's directory";
			break;
		}
		// Planted by a user (a 1777 spool), left by an earlier job with this
		// id, a symlink or a file: never adopted, never read; removed.
		slurm_info("denpex: %s/%s predates job %u or was not made for it; removed", spool, name.c_str(),
			   id.si_job);
		remove_entry(sfd, name.c_str(), 0);
	}
	if (fd < 0 && err->empty())
		*err = name + ": cannot be made";
	if (fd < 0)
		*err = std::string(spool) + "/" + *err;
	close(sfd);
	return fd;
}

int spool_record_task(int job_fd, const spool_identity &id, pid_t pid, uint32_t step, uint32_t task,
		      std::string *err)
{
	if (geteuid() != 0)
		return 0;
	std::string name = std::string(DENPEX_MARKER_PREFIX) + id.si_node;
	int m = openat(job_fd, name.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (m < 0) {
		*err = why(name, errno);
		return -1;
	}
	struct stat st;
	// Only the marker this plugin wrote as root; one write: O_APPEND keeps
	// the lines of concurrent steps whole.
	std::string line = "pid=" + std::to_string((long)pid) + " step=" + step_name(step) + " task=" +
			   std::to_string(task) + "\n";
	int rv = 0;
	if (fstat(m, &st) != 0 || st.st_uid != 0 || st.st_nlink != 1 ||
	    write(m, line.data(), line.size()) != (ssize_t)line.size()) {
		*err = name + ": not written";
		rv = -1;
	}
	close(m);
	return rv;
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
