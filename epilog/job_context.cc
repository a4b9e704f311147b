#include "job_context.hh"

#include "bounded_child.hh"
#include "log.hh"
#include "worker_record.hh"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace denpex::epilog {

namespace {

std::string env(const char *name)
{
	const char *v = getenv(name);
	return v ? std::string(v) : std::string();
}

bool parse_u32(const std::string &s, uint32_t &v)
{
	if (s.empty() || s.size() > 10)
		return false;
	for (char c : s)
		if (c < '0' || c > '9')
			return false;
	unsigned long x = strtoul(s.c_str(), nullptr, 10);
	if (x > 0xffffffffUL)
		return false;
	v = static_cast<uint32_t>(x);
	return true;
}

} // namespace

std::string node_file_name(const std::string &node)
{
	std::string n = node.empty() ? "node" : node.substr(0, 255);
	for (char &c : n)
		if (!(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
			c = '_';
	return n;
}

bool read_job_env(run_state &s)
{
	job_ctx &ctx = s.ctx;
	std::string sc = env("SLURM_SCRIPT_CONTEXT");
	if (sc == "epilog_slurmctld")
		ctx.node_context = false;
	else if (sc == "epilog_slurmd" || (sc.empty() && !env("SLURMD_NODENAME").empty()))
		ctx.node_context = true;
	else {
		log_msg(LOG_ERR, "not run as Epilog or EpilogSlurmctld (SLURM_SCRIPT_CONTEXT=%s); nothing to do",
			sc.c_str());
		return false;
	}
	ctx.job_id_str = env("SLURM_JOB_ID");
	if (!parse_u32(ctx.job_id_str, ctx.job_id) || ctx.job_id == 0) {
		log_msg(LOG_ERR, "SLURM_JOB_ID missing or invalid; nothing to do");
		return false;
	}
	ctx.node = env("SLURMD_NODENAME");
	ctx.nodelist = env(ctx.node_context ? "SLURM_NODELIST" : "SLURM_JOB_NODELIST");
	if (ctx.nodelist.empty())
		ctx.nodelist = env("SLURM_JOB_NODELIST");
	uint32_t n = 0;
	if (parse_u32(env("SLURM_JOB_NUM_NODES"), n) && n > 0 && n < 100000)
		ctx.num_nodes = static_cast<int>(n);
	ctx.cluster = env("SLURM_CLUSTER_NAME");
	ctx.user = env("SLURM_JOB_USER");
	uint32_t u, g;
	if (parse_u32(env("SLURM_JOB_UID"), u) && parse_u32(env("SLURM_JOB_GID"), g)) {
		ctx.uid = u;
		ctx.gid = g;
		ctx.have_uid = true;
	}
	ctx.env_comment = env("SLURM_JOB_COMMENT");
	ctx.env_stdout = env("SLURM_JOB_STDOUT");
	ctx.env_stderr = env("SLURM_JOB_STDERR");
	ctx.env_work_dir = env("SLURM_JOB_WORK_DIR");
	parse_u32(env("SLURM_JOB_EXIT_CODE"), ctx.env_exit);
	parse_u32(env("SLURM_JOB_DERIVED_EC"), ctx.env_exit_derived);
	// From the SPANK plugin (spank_job_control_setenv in srun/sbatch).
	ctx.opted_out = env("SPANK_DENPEX_OPTOUT") == "1";
	ctx.job_gpus = env("SLURM_JOB_GPUS");
	std::string sp = env("SPANK_DENPEX_SPOOL");
	if (!sp.empty() && sp[0] == '/' && sp.find("/../") == std::string::npos &&
	    sp.find("/./") == std::string::npos && sp.size() < 1024) {
		ctx.spool_base = sp;
		if (sp != s.cfg.spool_dir)
			s.notes.push_back("spool dir " + sp + " from the plugin differs from spool_dir " +
					  s.cfg.spool_dir);
	} else {
		ctx.spool_base = s.cfg.spool_dir;
	}
	return true;
}

bool job_wanted(run_state &s, std::string &why)
{
	job_ctx &ctx = s.ctx;
	job_info &ji = s.ji;
	// Bounded: a slurmctld that accepts but does not answer must not cost the
	// whole deadline.
	std::string err;
	uint32_t job_id = ctx.job_id;
	auto answer = run_bounded(std::min(15.0, s.left() / 3), [job_id]() {
		job_info j;
		std::string e;
		if (!load_job(job_id, j, e)) {
			worker_record r;
			r.put_bool("loaded", false);
			r.put("error", e);
			return r.encode();
		}
		return encode_job_info(j);
	});
	if (!answer) {
		err = "no answer from slurmctld in time";
	} else if (!decode_job_info(*answer, ji, err)) {
		// slurmctld answered, and knows no such job: a made-up id (run by
		// hand), never a report.
		if (err.find("Invalid job id") != std::string::npos) {
			s.unknown_job = true;
			why = "job " + ctx.job_id_str + " is unknown to slurmctld (" + err + ")";
			return false;
		}
	}
	if (!ji.loaded) {
		s.notes.push_back("job state unavailable: " + err);
		// Without slurmctld the environment is all we have: non-zero means failed.
		if (ctx.env_exit == 0 && ctx.env_exit_derived == 0) {
			why = "exit code 0 and no state from slurmctld (" + err + ")";
			return false;
		}
		ji.state = "FAILED";
		ji.exit_code = ctx.env_exit;
		ji.derived_ec = ctx.env_exit_derived;
	}
	if (ji.loaded && !ctx.have_uid) {
		ctx.uid = ji.uid;
		ctx.gid = ji.gid;
		ctx.have_uid = true;
	}
	// A run that ended in a requeue (preemption in REQUEUE mode, scontrol
	// requeue): slurmctld shows the job PENDING again and already counts the
	// next run. What ended is the run before; accounting keeps it as a
	// record of its own (PREEMPTED, REQUEUED, ...).
	if (ji.loaded && ji.state == "PENDING") {
		ji.state = "REQUEUED";
		if (ji.restart_cnt > 0)
			ji.restart_cnt--;
	}
	// Slurm carries the derived exit code (the worst step's) over a requeue:
	// after one, a non-zero value may be an earlier run's.
	bool derived_ok = ji.derived_ec == 0 || ji.restart_cnt > 0;
	if (ji.state == "COMPLETED" && ji.exit_code == 0 && derived_ok) {
		why = "completed successfully";
		return false;
	}
	std::string st = ji.state == "COMPLETED" ? "FAILED" : ji.state;
	if (!config_state_wanted(s.cfg, st)) {
		why = "state " + ji.state + " not in diagnose_states";
		return false;
	}
	s.key = ctx.job_id_str;
	if (ji.restart_cnt > 0)
		s.key += ".r" + std::to_string(ji.restart_cnt);
	return true;
}

} // namespace denpex::epilog
