// task_env.cc - which variables a task gets, and the "user wins" rule.
//
// Variables come in groups of names that mean the same thing to NCCL or
// PyTorch (old TORCH_NCCL_* and new TORCH_FR_* names). If the user set any
// name of a group, the plugin touches none of them: a user's
// TORCH_NCCL_TRACE_BUFFER_SIZE=0 must not be undone by our TORCH_FR_BUFFER_SIZE.
// NCCL_DEBUG_FILE is grouped with NCCL_DEBUG: a user who picked their own NCCL
// debug level keeps its output where NCCL puts it by default.
#include "spank_denpex.hh"

namespace denpex {

namespace {

void add(std::vector<env_setting> &plan, std::vector<std::string> names, std::string value,
	 std::vector<std::string> blocked_by = {})
{
	env_setting s;
	s.es_names = std::move(names);
	s.es_value = std::move(value);
	s.es_blocked_by = std::move(blocked_by);
	plan.push_back(std::move(s));
}

bool user_has(spank_t sp, const std::string &name)
{
	char buf[8];
	spank_err_t rc = spank_getenv(sp, name.c_str(), buf, (int)sizeof(buf));
	// ESPANK_NOSPACE: it exists, it is only longer than our buffer.
	return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
}

} // namespace

std::vector<env_setting> task_env_plan(const plugin_config &cfg, const task_ids &ids)
{
	std::vector<env_setting> plan;
	const bool have_dir = !ids.ti_job_dir.empty();
	const std::string &dir = ids.ti_job_dir;

	if (cfg.pc_nccl_debug[0] != '\0') {
		add(plan, {"NCCL_DEBUG"}, cfg.pc_nccl_debug);
		// %p is NCCL's pid; the node name goes in literally (virtual nodes
		// share one host name, so NCCL's %h would not tell them apart).
		if (have_dir)
			add(plan, {"NCCL_DEBUG_FILE"}, dir + "/nccl/nccl." + ids.ti_node + ".%p.log", {"NCCL_DEBUG"});
	}
	if (cfg.pc_nccl_debug_subsys[0] != '\0')
		add(plan, {"NCCL_DEBUG_SUBSYS"}, cfg.pc_nccl_debug_subsys);
	if (cfg.pc_timestamps) {
		if (cfg.pc_timestamp_levels[0] != '\0')
			add(plan, {"NCCL_DEBUG_TIMESTAMP_LEVELS"}, cfg.pc_timestamp_levels);
		add(plan, {"NCCL_DEBUG_TIMESTAMP_FORMAT"}, DENPEX_TIMESTAMP_FORMAT);
	}
	if (cfg.pc_trace_buffer > 0) {
		add(plan, {"TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE"}, std::to_string(cfg.pc_trace_buffer));
		if (cfg.pc_dump_on_timeout)
			add(plan, {"TORCH_FR_DUMP_ON_TIMEOUT", "TORCH_NCCL_DUMP_ON_TIMEOUT"}, "1");
		if (have_dir) {
			// PyTorch appends the global rank: <dir>/fr/rank_<R>, as torchfrtrace expects.
			add(plan, {"TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"}, dir + "/fr/rank_");
			// The FIFO is <value><rank>.pipe: kept out of fr/ so that the
			// analyzer never opens a pipe as a dump.
			if (cfg.pc_dump_pipe)
				add(plan, {"TORCH_NCCL_DEBUG_INFO_PIPE_FILE"}, dir + "/pipe/rank_");
		}
	}
	if (have_dir && cfg.pc_error_file)
		add(plan, {"TORCHELASTIC_ERROR_FILE"},
		    dir + "/torchelastic/error." + step_name(ids.ti_step) + "." + std::to_string(ids.ti_task) + ".json");
	return plan;
}

int task_env_apply(spank_t sp, const std::vector<env_setting> &plan)
{
	// Look at the user's environment before setting anything: our own
	// NCCL_DEBUG must not count as the user's when NCCL_DEBUG_FILE is decided.
	std::vector<bool> taken(plan.size(), false);
	for (size_t i = 0; i < plan.size(); i++) {
		for (const std::string &n : plan[i].es_names)
			taken[i] = taken[i] || user_has(sp, n);
		for (const std::string &n : plan[i].es_blocked_by)
			taken[i] = taken[i] || user_has(sp, n);
	}
	int set = 0;
	for (size_t i = 0; i < plan.size(); i++) {
		if (taken[i])
			continue;
		for (const std::string &n : plan[i].es_names) {
			spank_err_t rc = spank_setenv(sp, n.c_str(), plan[i].es_value.c_str(), 0);
			if (rc == ESPANK_SUCCESS)
				set++;
			else if (rc != ESPANK_ENV_EXISTS)
				slurm_debug("denpex: spank_setenv %s: %s", n.c_str(), spank_strerror(rc));
		}
	}
	return set;
}

} // namespace denpex
