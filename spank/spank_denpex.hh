// spank_denpex.hh - internal declarations shared by the spank_denpex.so sources.
//
// Layout (after pyxis): spank_denpex.cc owns SPANK_PLUGIN and the generic
// callbacks and dispatches on spank_context(); options.cc holds the --denpex
// option table, plugin_config.cc the plugstack.conf arguments, local.cc the
// srun/sbatch side, remote.cc the slurmstepd side, task_env.cc the per-task
// environment decisions, records.cc the JSON records and spool.cc the spool
// directory and atomic writes. Nothing here is exported from the .so (see
// spank_denpex.map); every callback body runs inside denpex::guard().
#pragma once

extern "C" {
#include <slurm/spank.h>
}

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace denpex {

// ---------------------------------------------------------------- config
// plugstack.conf arguments. Plain data (no constructors) so the static
// instance needs no global constructor; config_defaults() fills it.
struct plugin_config {
	char pc_spool[512];             // spool=           /var/spool/denpex
	char pc_nccl_debug[16];         // nccl_debug=      INFO ("none": leave unset)
	char pc_nccl_debug_subsys[128]; // nccl_debug_subsys= INIT,BOOTSTRAP,ENV,NET ("none")
	char pc_timestamp_levels[64];   // timestamp_levels= ALL ("none")
	long pc_trace_buffer;           // trace_buffer=    20000 (0: no flight recorder variables)
	int pc_default_on;              // default=         on
	int pc_timestamps;              // timestamps=      on
	int pc_dump_on_timeout;         // dump_on_timeout= on
	int pc_dump_pipe;               // dump_pipe=       on
	int pc_error_file;              // error_file=      on
	int pc_rank_map;                // rank_map=        on
	int pc_task_exit;               // task_exit=       on
};

#define DENPEX_DEFAULT_SPOOL "/var/spool/denpex"
#define DENPEX_TIMESTAMP_FORMAT "[%F %T.%6f] "

void config_defaults(plugin_config *cfg);
// Strict key=value parsing; on the first unknown key or bad value logs
// "denpex: plugstack.conf: ..." with slurm_error and returns -1 (cfg then
// holds the defaults plus what was parsed before the error).
int config_parse(plugin_config *cfg, int ac, char **av);
// The process-wide instance, parsed in slurm_spank_init.
plugin_config *config_get();
// 0 after a successful config_parse in this process, -1 after a failed one.
int config_status();
void config_set_status(int rv);

// A user's or admin's value as an error message may show it: at most 64
// bytes, control bytes and bytes above 0x7e as \xNN ("...(N bytes)" when cut).
std::string shown_value(const char *v);
// "on"/"off" (also yes/no, true/false, 1/0); returns 1, 0, or -1 for anything else.
int parse_onoff(const char *s);

// ---------------------------------------------------------------- options
// --denpex=on|off. Tri-state: -1 unset, 0 off, 1 on.
int options_register(spank_t sp);
int options_state();
void options_reset();
// The option callback itself (exposed for tests).
int options_cb(int val, const char *optarg, int remote);

// The environment variable equivalent of --denpex (DENPEX=on|off).
#define DENPEX_ENV_OPTION "DENPEX"

// Effective state: command line option, else DENPEX from the environment,
// else the plugstack default. A bad DENPEX value sets *bad_env (and counts as
// the default).
int resolve_enabled(int option_state, const char *env_value, int default_on, bool *bad_env);

// ---------------------------------------------------------------- local / allocator
int local_init_post_opt(spank_t sp, int ac, char **av);
int allocator_init_post_opt(spank_t sp, int ac, char **av);

// ---------------------------------------------------------------- remote
int remote_init_post_opt(spank_t sp, int ac, char **av);
int remote_task_init(spank_t sp, int ac, char **av);
int remote_task_post_fork(spank_t sp, int ac, char **av);
int remote_task_exit(spank_t sp, int ac, char **av);
int remote_exit(spank_t sp, int ac, char **av);

// ---------------------------------------------------------------- task environment
struct env_setting {
	// The variable names that mean the same thing (old and new PyTorch
	// names). If the user set any of them, none is touched.
	std::vector<std::string> es_names;
	std::string es_value;
	// Further names that, when the user set them, also keep us off.
	std::vector<std::string> es_blocked_by;
};

struct task_ids {
	uint32_t ti_job = 0;
	uint32_t ti_step = 0;
	uint32_t ti_task = 0;       // global task id (Slurm rank)
	uint32_t ti_local_task = 0;
	uint32_t ti_node_id = 0;
	std::string ti_node;        // SLURMD_NODENAME
	std::string ti_job_dir;     // <spool>/<job>, empty when unavailable
};

std::string step_name(uint32_t step);
// What the plugin would set for this task, before looking at the user's env.
std::vector<env_setting> task_env_plan(const plugin_config &cfg, const task_ids &ids);
// Sets every planned group none of whose names the user set; returns how
// many variables were set. Values an earlier step of ours set (a batch
// script's, passed on by srun) are not the user's: they are replaced, or
// removed when this task does not get them. DENPEX_ENV_SET records ours.
int task_env_apply(spank_t sp, const std::vector<env_setting> &plan);
// "NAME=<hash>,..." of every variable the plugin set in this task.
#define DENPEX_ENV_SET "DENPEX_ENV_SET"
// FNV-1a 64 of a value, 16 lower-case hex digits.
std::string env_value_hash(const std::string &value);

// ---------------------------------------------------------------- records
struct clock_facts {
	int64_t cf_realtime_ns = 0;   // CLOCK_REALTIME at task start
	int64_t cf_boottime_ns = 0;   // CLOCK_BOOTTIME at the same moment
	int64_t cf_btime = -1;        // /proc/stat btime (epoch seconds), -1 unknown
	std::string cf_zone;          // local zone abbreviation, e.g. "UTC", "CET"
	long cf_utc_offset_s = 0;     // local time minus UTC
	int64_t cf_srun_realtime_ns = -1; // srun's clock when it launched the step, -1 unknown
};

struct rank_record {
	task_ids rr_ids;
	uint32_t rr_nnodes = 0;
	uint32_t rr_ntasks = 0;
	pid_t rr_pid = 0;
	std::string rr_hostname;      // gethostname(): what NCCL prints as "host"
	std::string rr_gpus;          // CUDA_VISIBLE_DEVICES, empty when unset
	bool rr_gpus_set = false;
	clock_facts rr_clock;
};

struct exit_record {
	task_ids er_ids;
	pid_t er_pid = 0;
	int er_status = 0;            // raw wait status from S_TASK_EXIT_STATUS
	int64_t er_realtime_ns = 0;
};

std::string json_string(const std::string &s);
std::string rank_record_json(const rank_record &r);
std::string exit_record_json(const exit_record &r);
std::string iso_utc_ns(int64_t ns);
clock_facts clock_facts_now();
int64_t realtime_ns();
int64_t monotonic_ns(); // printk's clock: kernel message times count from boot on it
const char *signal_name(int sig);

// ---------------------------------------------------------------- spool
// Root-owned marker files in the job dir, one per node: ".denpex-node.<node>".
#define DENPEX_MARKER_PREFIX ".denpex-node."

// Which job instance a spool dir is for.
struct spool_identity {
	uint32_t si_job = 0;
	uint32_t si_restart = 0; // S_SLURM_RESTART_COUNT: a requeued run gets a fresh dir
	std::string si_node;     // safe alphabet (file name)
};

// Opens (creating if needed) <spool>/<job> owned by uid:gid, mode 0750, with
// this node's marker; never follows a symlink, never adopts a dir that this
// plugin did not make for this job (as root it removes it). Returns the
// directory fd (O_CLOEXEC) or -1 with *err set to a readable reason.
int spool_open_job_dir(const char *spool, const spool_identity &id, uid_t uid, gid_t gid, std::string *err);
// Appends "pid=P step=S task=T" to this node's marker (root only).
int spool_record_task(int job_fd, const spool_identity &id, pid_t pid, uint32_t step, uint32_t task,
		      std::string *err);
// Opens (creating if needed) the subdirectory `name` of dirfd, owned by
// uid:gid, mode 0750, without following symlinks. -1 and *err on failure.
int spool_open_subdir(int dirfd, const char *name, uid_t uid, gid_t gid, std::string *err);
// Writes `data` to dirfd/name atomically (unique temp file + rename); when
// uid != (uid_t)-1 the file is chowned to uid:gid. 0 or -1 with *err.
int spool_write_atomic(int dirfd, const char *name, const std::string &data, uid_t uid, gid_t gid,
		       std::string *err);

// ---------------------------------------------------------------- guard
// Runs a callback body; an exception never crosses into Slurm. Anything
// diagnostic returns fail_rv (0 by policy) after logging.
template <typename F>
int guard(const char *what, int fail_rv, F &&fn) noexcept
{
	try {
		return fn();
	} catch (const std::exception &e) {
		slurm_error("denpex: %s: %s", what, e.what());
	} catch (...) {
		slurm_error("denpex: %s: unknown exception", what);
	}
	return fail_rv;
}

} // namespace denpex
