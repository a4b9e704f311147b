// spank_denpex.cc - the SPANK entry points of spank_denpex.so.
//
// Only this file defines the generic callbacks (init, init_post_opt, exit);
// each switches on spank_context() and calls the context's own function
// (local.cc: srun and sbatch/salloc, remote.cc: slurmstepd). Every body runs
// in guard(): no exception crosses into srun/slurmd/slurmstepd, and anything
// diagnostic returns 0, because a failing plugin kills the job or drains the
// node. The only non-zero return is a bad user value (--denpex= or $DENPEX)
// at submission.
//
// C++ linkage (Slurm 22.05): spank.h declares slurm_spank_* outside its
// extern "C" block and SPANK_PLUGIN defines const objects, which C++ gives
// internal linkage; both are declared extern "C" here first.
#include "spank_denpex.hh"

// Built with -fvisibility=hidden: what Slurm looks up is made visible here
// (and spank_denpex.map exports nothing else).
#define DENPEX_EXPORT __attribute__((visibility("default")))

#pragma GCC visibility push(default)
extern "C" {
extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
SPANK_PLUGIN(denpex, 1)
}
#pragma GCC visibility pop

using namespace denpex;

extern "C" DENPEX_EXPORT int slurm_spank_init(spank_t sp, int ac, char **av)
{
	return guard("init", 0, [&]() -> int {
		spank_context_t ctx = spank_context();
		int rv = config_parse(config_get(), ac, av);
		config_set_status(rv);
		if (rv != 0)
			slurm_error("denpex: plugin disabled until its plugstack.conf line is fixed "
				    "(see spank_denpex(8)); the job runs without diagnostics");
		// The option is registered even with a bad config, so that
		// --denpex=off in scripts keeps working.
		if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE || ctx == S_CTX_ALLOCATOR)
			options_register(sp);
		return 0;
	});
}

extern "C" DENPEX_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	return guard("init_post_opt", 0, [&]() -> int {
		switch (spank_context()) {
		case S_CTX_LOCAL:
			return local_init_post_opt(sp, ac, av);
		case S_CTX_ALLOCATOR:
			return allocator_init_post_opt(sp, ac, av);
		case S_CTX_REMOTE:
			return remote_init_post_opt(sp, ac, av);
		default:
			return 0;
		}
	});
}

extern "C" DENPEX_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	return guard("task_init", 0, [&]() -> int { return remote_task_init(sp, ac, av); });
}

extern "C" DENPEX_EXPORT int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	return guard("task_post_fork", 0, [&]() -> int { return remote_task_post_fork(sp, ac, av); });
}

extern "C" DENPEX_EXPORT int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	return guard("task_exit", 0, [&]() -> int { return remote_task_exit(sp, ac, av); });
}

extern "C" DENPEX_EXPORT int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	return guard("exit", 0, [&]() -> int {
		if (spank_context() == S_CTX_REMOTE)
			remote_exit(sp, ac, av);
		options_reset();
		return 0;
	});
}
