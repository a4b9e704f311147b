// remote.cc - slurmstepd (S_CTX_REMOTE): one process per job step per node.
//
//   init_post_opt (root)   decide on/off, create <spool>/<job>/{nccl,fr,pipe,
//                          torchelastic,ranks,exits} owned by the job user
//   task_init     (user, in the task child before exec)
//                          set the task's NCCL / flight recorder variables
//                          unless the user set them; write ranks/<step>.<task>.json
//   task_exit     (root, as each task is reaped)
//                          write exits/<step>.<task>.json with a CLOCK_REALTIME stamp
//   exit          (root)   close the directory fds
//
// A missing or unwritable spool is logged once per slurmstepd and the job runs
// without the path variables and records; nothing here ever fails a task.
#include "spank_denpex.hh"

#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace denpex {

namespace {

struct remote_context {
	int rc_enabled;
	int rc_job_fd;
	int rc_ranks_fd;
	int rc_exits_fd;
	uint32_t rc_job;
	uint32_t rc_step;
	uint32_t rc_nnodes;
	uint32_t rc_node_id;
	uint32_t rc_restart;
	uid_t rc_uid;
	gid_t rc_gid;
	char rc_node[256];
	char rc_job_dir[1024];
};

remote_context context = {0, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, {0}, {0}};

void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void context_reset()
{
	close_fd(&context.rc_job_fd);
	close_fd(&context.rc_ranks_fd);
	close_fd(&context.rc_exits_fd);
	context.rc_enabled = 0;
	context.rc_job = context.rc_step = context.rc_nnodes = context.rc_node_id = context.rc_restart = 0;
	context.rc_uid = 0;
	context.rc_gid = 0;
	context.rc_node[0] = '\0';
	context.rc_job_dir[0] = '\0';
}

void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

// SLURMD_NODENAME: slurmstepd's own environment has it in every callback;
// the job environment from task_init on. Never gethostname() (virtual nodes
// share one host name) unless Slurm gave nothing.
void find_node_name(spank_t sp)
{
	const char *n = getenv("SLURMD_NODENAME");
	char buf[256];
	if ((n == nullptr || n[0] == '\0') &&
	    spank_getenv(sp, "SLURMD_NODENAME", buf, (int)sizeof(buf)) == ESPANK_SUCCESS)
		n = buf;
	if (n == nullptr || n[0] == '\0') {
		if (gethostname(buf, sizeof(buf)) != 0)
			buf[0] = '\0';
		buf[sizeof(buf) - 1] = '\0';
		n = buf;
	}
	copy(context.rc_node, sizeof(context.rc_node), n);
	// The name goes into file names: keep it to a safe alphabet.
	for (char *p = context.rc_node; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.'))
			*p = '_';
}

spool_identity identity()
{
	spool_identity id;
	id.si_job = context.rc_job;
	id.si_restart = context.rc_restart;
	id.si_node = context.rc_node;
	return id;
}

int open_spool(const plugin_config *cfg)
{
	std::string err;
	int fd = spool_open_job_dir(cfg->pc_spool, identity(), context.rc_uid, context.rc_gid, &err);
	if (fd < 0) {
		slurm_error("denpex: %s; job %u runs without NCCL log files, flight recorder dumps and rank "
			    "map on %s",
			    err.c_str(), context.rc_job, context.rc_node);
		return -1;
	}
	const char *dirs[] = {"nccl", "fr", "pipe", "torchelastic", "ranks", "exits"};
	for (const char *d : dirs) {
		if ((strcmp(d, "pipe") == 0 && !cfg->pc_dump_pipe) ||
		    (strcmp(d, "torchelastic") == 0 && !cfg->pc_error_file))
			continue;
		int sub = spool_open_subdir(fd, d, context.rc_uid, context.rc_gid, &err);
		if (sub < 0) {
			slurm_error("denpex: %s/%u/%s; job %u runs without NCCL log files, flight recorder "
				    "dumps and rank map on %s",
				    cfg->pc_spool, context.rc_job, err.c_str(), context.rc_job, context.rc_node);
			close(fd);
			close_fd(&context.rc_ranks_fd);
			close_fd(&context.rc_exits_fd);
			return -1;
		}
		if (strcmp(d, "ranks") == 0)
			context.rc_ranks_fd = sub;
		else if (strcmp(d, "exits") == 0)
			context.rc_exits_fd = sub;
		else
			close(sub);
	}
	context.rc_job_fd = fd;
	snprintf(context.rc_job_dir, sizeof(context.rc_job_dir), "%s/%u", cfg->pc_spool, context.rc_job);
	return 0;
}

// Items every remote callback can read (measured on Slurm 22.05).
bool get_job_items(spank_t sp)
{
	uint32_t job = 0, step = 0, nnodes = 0, node_id = 0;
	uid_t uid = 0;
	gid_t gid = 0;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		return false;
	if (spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS)
		nnodes = 0;
	if (spank_get_item(sp, S_JOB_NODEID, &node_id) != ESPANK_SUCCESS)
		node_id = 0;
	uint32_t restart = 0;
	if (spank_get_item(sp, S_SLURM_RESTART_COUNT, &restart) != ESPANK_SUCCESS)
		restart = 0;
	context.rc_restart = restart;
	context.rc_job = job;
	context.rc_step = step;
	context.rc_uid = uid;
	context.rc_gid = gid;
	context.rc_nnodes = nnodes;
	context.rc_node_id = node_id;
	return true;
}

task_ids current_task_ids(spank_t sp)
{
	task_ids ids;
	ids.ti_job = context.rc_job;
	ids.ti_step = context.rc_step;
	ids.ti_node_id = context.rc_node_id;
	ids.ti_node = context.rc_node;
	if (context.rc_job_fd >= 0)
		ids.ti_job_dir = context.rc_job_dir;
	uint32_t global = 0;
	int local = 0;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &global) == ESPANK_SUCCESS)
		ids.ti_task = global;
	if (spank_get_item(sp, S_TASK_ID, &local) == ESPANK_SUCCESS && local >= 0)
		ids.ti_local_task = (uint32_t)local;
	return ids;
}

std::string record_name(const task_ids &ids)
{
	return step_name(ids.ti_step) + "." + std::to_string(ids.ti_task) + ".json";
}

} // namespace

int remote_init_post_opt(spank_t sp, int, char **)
{
	context_reset();
	if (config_status() != 0)
		return 0;
	const plugin_config *cfg = config_get();
	char env[64];
	const char *envp = nullptr;
	if (spank_getenv(sp, DENPEX_ENV_OPTION, env, (int)sizeof(env)) == ESPANK_SUCCESS)
		envp = env;
	bool bad_env = false;
	int enabled = resolve_enabled(options_state(), envp, cfg->pc_default_on, &bad_env);
	if (bad_env)
		slurm_debug("denpex: ignoring %s=%s in slurmstepd (srun/sbatch reject it)", DENPEX_ENV_OPTION, env);
	if (!enabled)
		return 0;
	if (!get_job_items(sp)) {
		slurm_error("denpex: cannot read the job id, step or user from Slurm; denpex is off for this step");
		return 0;
	}
	// The extern step runs no user tasks.
	if (context.rc_step == 0xfffffffcU)
		return 0;
	context.rc_enabled = 1;
	find_node_name(sp);
	open_spool(cfg);
	return 0;
}

int remote_task_init(spank_t sp, int, char **)
{
	if (!context.rc_enabled)
		return 0;
	const plugin_config *cfg = config_get();
	task_ids ids = current_task_ids(sp);
	task_env_apply(sp, task_env_plan(*cfg, ids));

	if (!cfg->pc_rank_map || context.rc_ranks_fd < 0)
		return 0;
	rank_record r;
	r.rr_ids = ids;
	r.rr_pid = getpid(); // task_init runs in the task's own process, before exec
	r.rr_nnodes = context.rc_nnodes;
	uint32_t ntasks = 0;
	if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) == ESPANK_SUCCESS)
		r.rr_ntasks = ntasks;
	char host[256];
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		r.rr_hostname = host;
	}
	char buf[1024];
	if (spank_getenv(sp, "CUDA_VISIBLE_DEVICES", buf, (int)sizeof(buf)) == ESPANK_SUCCESS) {
		r.rr_gpus = buf;
		r.rr_gpus_set = true;
	}
	r.rr_clock = clock_facts_now();
	if (spank_getenv(sp, "DENPEX_SRUN_CLOCK_NS", buf, (int)sizeof(buf)) == ESPANK_SUCCESS) {
		char *end = nullptr;
		long long v = strtoll(buf, &end, 10);
		if (end != buf && *end == '\0' && v > 0)
			r.rr_clock.cf_srun_realtime_ns = v;
	}
	std::string err;
	if (spool_write_atomic(context.rc_ranks_fd, record_name(ids).c_str(), rank_record_json(r), context.rc_uid,
			       context.rc_gid, &err) != 0)
		slurm_error("denpex: rank map %s/ranks/%s", context.rc_job_dir, err.c_str());
	return 0;
}

// In slurmstepd (root) right after the task's fork: its pid goes into the
// root-owned marker, where the job cannot forge it; the epilog attributes
// kernel messages (OOM kills, Xids) to the job by these pids.
int remote_task_post_fork(spank_t sp, int, char **)
{
	if (!context.rc_enabled || context.rc_job_fd < 0)
		return 0;
	pid_t pid = 0;
	uint32_t task = 0;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS || pid <= 0)
		return 0;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS)
		task = 0;
	std::string err;
	if (spool_record_task(context.rc_job_fd, identity(), pid, context.rc_step, task, &err) != 0)
		slurm_debug("denpex: task pid record %s/%s", context.rc_job_dir, err.c_str());
	return 0;
}

int remote_task_exit(spank_t sp, int, char **)
{
	// The stamp first: "which task ended first" rests on it.
	int64_t now = realtime_ns();
	if (!context.rc_enabled || !config_get()->pc_task_exit || context.rc_exits_fd < 0)
		return 0;
	exit_record r;
	r.er_realtime_ns = now;
	r.er_ids = current_task_ids(sp);
	int status = 0;
	if (spank_get_item(sp, S_TASK_EXIT_STATUS, &status) == ESPANK_SUCCESS)
		r.er_status = status;
	pid_t pid = 0;
	if (spank_get_item(sp, S_TASK_PID, &pid) == ESPANK_SUCCESS)
		r.er_pid = pid;
	std::string err;
	if (spool_write_atomic(context.rc_exits_fd, record_name(r.er_ids).c_str(), exit_record_json(r), context.rc_uid,
			       context.rc_gid, &err) != 0)
		slurm_error("denpex: task exit record %s/exits/%s", context.rc_job_dir, err.c_str());
	return 0;
}

int remote_exit(spank_t, int, char **)
{
	context_reset();
	return 0;
}

} // namespace denpex
