// options.cc - the --denpex=on|off option of srun, sbatch and salloc.
//
// Registered with spank_option_register() in slurm_spank_init (the only way
// that reaches sbatch/salloc). The callback validates the value, so a bad
// value fails the command at submission with a clear message; it is
// idempotent because Slurm may call it more than once (and again remotely).
#include "spank_denpex.hh"

#include <cstring>

namespace denpex {

namespace {

int g_option_state = -1; // -1 unset, 0 off, 1 on

struct spank_option g_options[] = {
	{(char *)"denpex", (char *)"on|off",
	 (char *)"[denpex] collect failure-diagnosis evidence for this job: NCCL debug logs, "
		 "PyTorch flight recorder, rank map, task exits (default: on, or $" DENPEX_ENV_OPTION ")",
	 1, 0, options_cb},
	SPANK_OPTIONS_TABLE_END,
};

} // namespace

int options_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	int v = parse_onoff(optarg);
	if (v < 0) {
		slurm_error("denpex: --denpex=%s: invalid value, expected on or off", shown_value(optarg).c_str());
		return -1;
	}
	g_option_state = v;
	return 0;
}

int options_register(spank_t sp)
{
	for (struct spank_option *o = g_options; o->name != nullptr; o++) {
		spank_err_t rc = spank_option_register(sp, o);
		if (rc != ESPANK_SUCCESS) {
			slurm_error("denpex: spank_option_register --%s: %s", o->name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

int options_state()
{
	return g_option_state;
}

void options_reset()
{
	g_option_state = -1;
}

int resolve_enabled(int option_state, const char *env_value, int default_on, bool *bad_env)
{
	if (bad_env != nullptr)
		*bad_env = false;
	if (option_state == 0 || option_state == 1)
		return option_state;
	if (env_value != nullptr && env_value[0] != '\0') {
		int v = parse_onoff(env_value);
		if (v >= 0)
			return v;
		if (bad_env != nullptr)
			*bad_env = true;
	}
	return default_on ? 1 : 0;
}

} // namespace denpex
