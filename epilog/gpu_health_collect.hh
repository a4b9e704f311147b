// GPU health for corroboration, collected within the epilog's deadline:
// dcgmi and nvidia-smi run on this node (absolute paths from denpex.yaml,
// as an unprivileged user, bounded), and dcgm-exporter series over the
// job's window from a Prometheus server (libcurl, connect and total
// timeouts). What comes back is stored beside the node's kernel log and read
// by libdiag's DCGM readers; a failure is a note, never a failed epilog.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <string>
#include <vector>

namespace denpex::epilog {

struct gpu_file {
	std::string name; // e.g. "dcgmi-stats.txt"
	std::string text;
};

// Runs path with args as uid/gid, no shell, minimal environment, stdin
// /dev/null, stdout captured up to max_bytes, killed after timeout_s.
// False with err when the program is unusable (not an absolute path to a
// root-owned executable that only root may change), fails or times out.
bool run_tool(const std::string &path, const std::vector<std::string> &args, uid_t uid, gid_t gid,
	      double timeout_s, size_t max_bytes, std::string &out, std::string &err);

// The dcgm-exporter fields that corroborate, over [start, end] for hosts,
// from Prometheus's query API, as exposition text (one sample a line, the
// window's maximum). Empty text with err on failure.
std::string prometheus_dcgm_series(const std::string &base_url, const std::vector<std::string> &hosts,
				   time_t start, time_t end, double timeout_s, std::string &err);

} // namespace denpex::epilog
