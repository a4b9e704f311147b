// Everything the epilog asks Slurm, through libslurm only (no commands):
// the job's state from slurmctld, its accounting record from slurmdbd, and
// the verdict written into that record.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace denpex::epilog {

struct job_info {
	bool loaded = false;
	std::string state;    // base state name: FAILED, TIMEOUT, ...
	std::string reason;   // state_reason as text
	uint32_t exit_code = 0;	 // wait status
	uint32_t derived_ec = 0; // wait status
	std::string comment, admin_comment;
	std::string std_out, std_err, work_dir, name, batch_host, nodes;
	time_t start = 0, end = 0;
	uint32_t array_job_id = 0, array_task_id = 0;
	uint32_t restart_cnt = 0;
	uid_t uid = 0;
	gid_t gid = 0;
	bool exclusive = false; // --exclusive: the nodes (and their GPUs) were the job's alone
};

struct acct_step {
	std::string id; // "0", "batch", "extern"
	std::string name, state, nodes;
	int32_t exitcode = 0;
	time_t start = 0, end = 0;
};

struct acct_job {
	bool found = false;
	std::string derived_es, admin_comment, state, nodes, name;
	uint32_t exitcode = 0, derived_ec = 0;
	time_t start = 0, end = 0;
	std::vector<acct_step> steps;
};

void slurm_io_init();
void slurm_io_fini();

std::string job_state_name(uint32_t state);
// Wait status as sacct prints it ("code:signal").
std::string exit_pair(uint32_t status);

// slurm_load_job(): false with err when slurmctld does not answer.
bool load_job(uint32_t job_id, job_info &out, std::string &err);

// slurmdb_jobs_get() for one job, with its steps.
bool acct_load(uint32_t job_id, const std::string &cluster, acct_job &out, std::string &err);

// `sacct -P` style text (JobID|JobName|State|ExitCode|DerivedExitCode|Start|End|NodeList|Reason)
// for libdiag's sacct reader.
std::string acct_as_sacct(uint32_t job_id, const job_info &ji, const acct_job &aj);

enum class comment_outcome { written, already_present, skipped, failed };

// Appends verdict to the job's Comment (derived_es) or AdminComment in the
// accounting record, once. hint: the job's comment as slurmctld knows it,
// used when the accounting record has none yet. The job-completion record
// may still overwrite it after us: confirm_verdict.
comment_outcome write_verdict(uint32_t job_id, const std::string &cluster, bool admin,
			      const std::string &verdict, const std::string &hint, std::string &detail);

// After write_verdict wrote it: looks again a few times over about ten
// seconds and writes it again (rewrites: how often) where the completion
// record overwrote it. written: it was there at the last look; failed: it
// was not, or the record could not be read (detail says which).
comment_outcome confirm_verdict(uint32_t job_id, const std::string &cluster, bool admin,
				const std::string &verdict, const std::string &hint, int &rewrites,
				std::string &detail);

// First host of a hostlist expression and the number of hosts.
std::string hostlist_first(const std::string &expr);
int hostlist_count(const std::string &expr);
// All hosts of a hostlist expression, at most max.
std::vector<std::string> hostlist_all(const std::string &expr, size_t max);

} // namespace denpex::epilog
