// Expansion of Slurm's filename patterns (%j %u %x %N %A %a %t %n %s %%),
// since the epilog sees SLURM_JOB_STDOUT/STDERR unexpanded.
#pragma once

#include <string>

namespace denpex::epilog {

struct expand_vars {
	std::string job_id;	// %j
	std::string user;	// %u
	std::string job_name;	// %x
	std::string node;	// %N: the batch host's short name
	std::string array_job;	// %A: array master id, else the job id
	std::string array_task; // %a: array task id, else "4294967294"
	std::string task = "0";	// %t
	std::string node_id = "0"; // %n
	std::string step = "batch"; // %s
};

// As Slurm: a backslash anywhere disables expansion (and is removed);
// %<digits>X zero-pads numeric fields; unknown %X is kept as is.
std::string expand_pattern(const std::string &pattern, const expand_vars &v);

// Joins a relative path onto the job's working directory.
std::string resolve_path(const std::string &path, const std::string &work_dir);

} // namespace denpex::epilog
