// Reading user-controlled files as root, safely: a forked child drops to the
// job user's uid/gid, opens with O_NOFOLLOW|O_NONBLOCK, accepts regular files
// only, reads a bounded head and tail and streams them over a pipe; the
// parent writes the copies into a root-owned staging dir and gives up on a
// child that hangs (a dead NFS server) after a timeout.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace denpex::epilog {

struct user_cred {
	uid_t uid = 65534;
	gid_t gid = 65534;
	// False when we are not root (nothing to drop, e.g. as SlurmUser).
	bool drop = true;
};

struct read_limits {
	uint64_t max_bytes_per_file = 16ull << 20;
	// Shared across calls; decremented by what was written.
	uint64_t *budget = nullptr;
	unsigned timeout_s = 10;
	unsigned max_files = 4096;
	unsigned max_depth = 8;
};

struct copied_file {
	std::string src;
	std::string dst; // relative to the staging dir
	uint64_t src_size = 0;
	uint64_t bytes = 0;
	bool truncated = false;
	// A head-and-tail copy: newlines in its head and in what was left out
	// (-1: not counted), so that the copy's line numbers can be mapped back
	// to the original's: copy line c > head_lines + 2 is original line
	// c + omitted_lines - 2.
	int64_t head_lines = -1;
	int64_t omitted_lines = -1;
	bool budget_cut = false; // this side cut it further (caps): no mapping
};

struct skipped_file {
	std::string src;
	std::string reason;
};

struct copy_report {
	std::vector<copied_file> files;
	std::vector<skipped_file> skipped;
};

// The credentials to read a job's files with: the job's uid/gid when we are
// root, else our own.
user_cred cred_for_job(uid_t uid, gid_t gid);

// Copies the file at src to dst_dirfd/dst_name (created 0600, O_EXCL).
void safe_copy_file(const std::string &src, const user_cred &cred, const read_limits &lim,
		    int dst_dirfd, const std::string &dst_name, copy_report &rep);

// Copies the regular files under src_dir to dst_dirfd/dst_prefix/<relpath>.
// Files already present in the destination are skipped (several nodes may
// see the same shared spool).
void safe_copy_tree(const std::string &src_dir, const user_cred &cred, const read_limits &lim,
		    int dst_dirfd, const std::string &dst_prefix, copy_report &rep);

// Creates the directories of a relative path below dirfd (0700, no symlinks
// followed) and returns an fd of the last one, or -1.
int open_subdir(int dirfd, const std::string &rel, bool create);

// A path component we are willing to create: not empty, ".", "..", no '/'.
bool safe_component(const std::string &name);

} // namespace denpex::epilog
