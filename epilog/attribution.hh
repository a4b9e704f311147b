// Which kernel messages belong to a job. The epilog reads /dev/kmsg as
// root; a line reaches the job's verdict (and so its Comment, readable by
// every user through sacct) only when it is attributable to the job:
//   - a cgroup path in it names the job (".../job_<id>/..."), or
//   - a pid in it is one of the job's task pids (recorded as root by the
//     plugin) and it was logged after the job started, or
//   - a uid in it is the job's user (not root) and it was logged after the
//     job started, or
//   - a GPU bus id in it is one of the job's allocated GPUs.
// A line that names another job's cgroup or another GPU is never the job's,
// whatever its uid. Everything else is a node-level event: counted for the
// admin report, its text never kept.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace denpex::epilog {

struct job_scope {
	unsigned long job_id = 0;
	uid_t uid = static_cast<uid_t>(-1);
	std::vector<long> pids;             // the job's task pids on this node
	std::vector<std::string> gpu_buses; // allocated GPUs, "0000:3b:00"
	double start = 0;                   // job start, epoch seconds (0: unknown)
};

// text: the message (after "kernel: "); t: its time, epoch seconds.
bool kernel_line_is_jobs(const std::string &text, double t, const job_scope &scope);

// "0000:3B:00.0", "00000000:3b:00", "3b:00.0" -> "0000:3b:00"; empty if not a bus id.
std::string normalize_bus_id(const std::string &s);

// The PCI bus ids of the GPUs with these minor numbers ("0,2" as in
// SLURM_JOB_GPUS), from the driver's <proc_dir>/<bus>/information
// ("Device Minor: N"); proc_dir is /proc/driver/nvidia/gpus except in tests.
std::vector<std::string> gpu_buses_of(const std::string &proc_dir, const std::string &minors);

} // namespace denpex::epilog
