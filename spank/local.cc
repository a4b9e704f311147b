// local.cc - srun (S_CTX_LOCAL) and sbatch/salloc (S_CTX_ALLOCATOR).
//
// init_post_opt decides on/off for the job (--denpex, else $DENPEX, else the
// plugstack default), rejects a bad $DENPEX value at submission, and hands
// the epilog what it needs through the job control environment
// (SPANK_DENPEX_SPOOL, SPANK_DENPEX_OPTOUT). Only from init_post_opt does
// spank_job_control_setenv reach Epilog and EpilogSlurmctld (measured on 22.05).
#include "spank_denpex.hh"

#include <cstdlib>
#include <string>

namespace denpex {

namespace {

void control_setenv(spank_t sp, const char *name, const char *value)
{
	spank_err_t rc = spank_job_control_setenv(sp, name, value, 1);
	if (rc != ESPANK_SUCCESS)
		slurm_debug("denpex: spank_job_control_setenv %s: %s", name, spank_strerror(rc));
}

// Common to srun and sbatch/salloc. Returns -1 only for a bad user value.
int submit_init_post_opt(spank_t sp, bool is_srun)
{
	if (config_status() != 0)
		return 0; // bad plugstack arguments: already reported, plugin disabled
	const plugin_config *cfg = config_get();
	const char *env = getenv(DENPEX_ENV_OPTION);
	bool bad_env = false;
	int enabled = resolve_enabled(options_state(), env, cfg->pc_default_on, &bad_env);
	if (bad_env && options_state() < 0) {
		slurm_error("denpex: %s=%s: invalid value, expected on or off (or use --denpex=on|off)",
			    DENPEX_ENV_OPTION, shown_value(env).c_str());
		return -1;
	}
	control_setenv(sp, "DENPEX_OPTOUT", enabled ? "0" : "1");
	if (!enabled)
		return 0;
	control_setenv(sp, "DENPEX_SPOOL", cfg->pc_spool);
	if (is_srun) {
		// srun's clock at launch, carried to the tasks in srun's environment:
		// a node's clock minus this is its offset plus the launch delay.
		std::string now = std::to_string(realtime_ns());
		setenv("DENPEX_SRUN_CLOCK_NS", now.c_str(), 1);
	}
	return 0;
}

} // namespace

int local_init_post_opt(spank_t sp, int, char **)
{
	return submit_init_post_opt(sp, true);
}

int allocator_init_post_opt(spank_t sp, int, char **)
{
	return submit_init_post_opt(sp, false);
}

} // namespace denpex
