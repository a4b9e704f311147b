// One epilog run's state, handed from stage to stage: the job's context
// (job_context.hh), what this node gathered (gathering.hh), the diagnosing
// node's work (diagnosing.hh), the report (job_report.hh) and the verdict
// in accounting (verdict_comment.hh). run.cc runs them in that order.
#pragma once

#include "config.hh"
#include "safe_read.hh"
#include "slurm_io.hh"
#include "spool_trust.hh"

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace denpex::epilog {

// The job as Slurm's environment describes it.
struct job_ctx {
	bool node_context = true;
	uint32_t job_id = 0;
	std::string job_id_str;
	std::string node;     // SLURMD_NODENAME (node context)
	std::string nodelist; // the allocation
	int num_nodes = 1;
	std::string cluster;
	std::string user;
	uid_t uid = 65534;
	gid_t gid = 65534;
	bool have_uid = false;
	std::string env_comment;
	std::string env_stdout, env_stderr, env_work_dir;
	uint32_t env_exit = 0, env_exit_derived = 0;
	std::string spool_base;
	bool opted_out = false;
	std::string job_gpus; // SLURM_JOB_GPUS: minor numbers of the allocated GPUs
};

struct run_state {
	run_state(const config &c, double start) : cfg(c), t0(start) {}

	const config &cfg;
	double t0; // monotonic start: the deadline counts from here
	job_ctx ctx;
	job_info ji;
	std::string key; // state and report name: job id (".r<restart>" after requeues)
	copy_report rep;
	uint64_t budget = 0; // bytes this run may still stage
	std::vector<std::string> notes;      // for the report (diagnosing site)
	std::vector<std::string> node_notes; // this node's, in its summary
	// The job's staging: <state_dir>/<key>, or a private temporary dir when
	// the state dir cannot be used (then without the other nodes' shares).
	std::string stage_dir;
	bool stage_fallback = false;
	bool diagnoses_here = true;
	bool unknown_job = false;       // slurmctld answered: no such job
	bool output_copied = false;     // the job's stdout/stderr are staged
	std::string out_path, err_path; // as resolved from Slurm's patterns
	spool_check spool;              // the job's spool dir, as verified
	std::string spool_job;          // <spool>/<job>

	// Seconds left before the deadline, less a margin for the report.
	double left() const;
	unsigned read_timeout() const;
	user_cred cred() const { return cred_for_job(ctx.uid, ctx.gid); }
	read_limits limits();
	// The staging dir's name for this node ("node" when unusable).
	std::string node_dir() const;
};

} // namespace denpex::epilog
