// Whether <spool>/<job> is the job's own spool dir, as the SPANK plugin made
// it: a directory (not a symlink) owned by the job's user, holding a
// root-owned marker file ".denpex-node.<node>" (single link) whose first line
// names this job, this user, this run (restart count) and this directory's
// inode, written after the job started. A user can delete a marker but not
// forge one: anything a user creates is theirs. Only then does the epilog
// read the dir (as the job user); the marker's "pid=" lines are the job's
// task pids on that node, for kernel-message attribution.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace denpex::epilog {

inline constexpr const char *spool_marker_prefix = ".denpex-node.";

struct spool_check {
	bool ok = false;
	std::string why;        // when not ok: for the admin report
	std::vector<long> pids; // task pids from this node's marker
	// Boot time (epoch s) on this node's clock when its marker was made, at
	// the job's start; 0 when the marker predates mono_ns.
	double boot_epoch_at_start = 0;
	bool other_nodes = false; // markers of other nodes: a shared spool
	dev_t dev = 0;
	ino_t ino = 0;
};

// Reads only metadata and root-owned markers (as root); never follows a
// symlink below spool_base.
spool_check check_job_spool(const std::string &spool_base, uint32_t job_id, uid_t uid, uint32_t restart,
			    time_t job_start, const std::string &node);

// Same directory (device and inode) still at <spool_base>/<job>?
bool same_job_spool(const std::string &spool_base, uint32_t job_id, const spool_check &c);

} // namespace denpex::epilog
