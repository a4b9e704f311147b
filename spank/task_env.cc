// task_env.cc - which variables a task gets, and the "user wins" rule.
//
// Variables come in groups of names that mean the same thing to NCCL or
// PyTorch (old TORCH_NCCL_* and new TORCH_FR_* names). If the user set any
// name of a group, the plugin touches none of them: a user's
// TORCH_NCCL_TRACE_BUFFER_SIZE=0 must not be undone by our TORCH_FR_BUFFER_SIZE.
// NCCL_DEBUG_FILE is grouped with NCCL_DEBUG: a user who picked their own NCCL
// debug level keeps its output where NCCL puts it by default.
//
// Our own values travel on: a batch script gets them from the batch step and
// every srun inside it passes them to its tasks (on every node), where they
// would look like the user's and keep the batch step's node name and task id
// (NCCL_DEBUG_FILE=...nccl.node1.%p.log on node2). So each task also gets
// DENPEX_ENV_SET, "NAME=<FNV-1a 64 of the value>" for every variable the
// plugin set; a later step treats a variable whose value still has that hash
// as ours (replaced or, when no longer planned, removed) and anything else as
// the user's.
#include "spank_denpex.hh"

#include <cinttypes>
#include <cstdio>
#include <map>

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

// The value of a variable in the task's environment. 1: found (whole value in
// *out), 2: exists but longer than we read (never one of ours), 0: unset.
int job_getenv(spank_t sp, const std::string &name, std::string *out)
{
	char buf[4096];
	spank_err_t rc = spank_getenv(sp, name.c_str(), buf, (int)sizeof(buf));
	if (rc == ESPANK_SUCCESS) {
		*out = buf;
		return 1;
	}
	// ESPANK_NOSPACE: it exists, it is only longer than our buffer.
	return rc == ESPANK_NOSPACE ? 2 : 0;
}

// Our variables inherited from an earlier step: name -> value hash.
std::map<std::string, std::string> inherited_marks(spank_t sp)
{
	std::map<std::string, std::string> marks;
	std::string v;
	if (job_getenv(sp, DENPEX_ENV_SET, &v) != 1)
		return marks;
	size_t pos = 0;
	while (pos <= v.size()) {
		size_t end = v.find(',', pos);
		if (end == std::string::npos)
			end = v.size();
		std::string item = v.substr(pos, end - pos);
		size_t eq = item.find('=');
		// Only names the plugin ever sets: a forged mark cannot make us
		// replace or drop anything else.
		const std::string name = eq == std::string::npos ? "" : item.substr(0, eq);
		if (name.rfind("NCCL_", 0) == 0 || name.rfind("TORCH_", 0) == 0 || name.rfind("TORCHELASTIC_", 0) == 0)
			marks[name] = item.substr(eq + 1);
		pos = end + 1;
	}
	return marks;
}

} // namespace

std::string env_value_hash(const std::string &value)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (unsigned char c : value) {
		h ^= c;
		h *= 0x100000001b3ULL;
	}
	char out[17];
	snprintf(out, sizeof(out), "%016" PRIx64, h);
	return out;
}

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
	const std::map<std::string, std::string> marks = inherited_marks(sp);
	// What the task has now, before we set anything: our own NCCL_DEBUG must
	// not count as the user's when NCCL_DEBUG_FILE is decided.
	auto user_has = [&](const std::string &n) {
		std::string v;
		int got = job_getenv(sp, n, &v);
		if (got == 0)
			return false;
		auto m = marks.find(n);
		// Ours from an earlier step unless the value changed since.
		return !(got == 1 && m != marks.end() && m->second == env_value_hash(v));
	};
	std::vector<bool> taken(plan.size(), false);
	for (size_t i = 0; i < plan.size(); i++) {
		for (const std::string &n : plan[i].es_names)
			taken[i] = user_has(n) || taken[i];
		for (const std::string &n : plan[i].es_blocked_by)
			taken[i] = user_has(n) || taken[i];
	}
	int set = 0;
	std::map<std::string, bool> ours_now;
	std::string mark;
	for (size_t i = 0; i < plan.size(); i++) {
		if (taken[i])
			continue;
		for (const std::string &n : plan[i].es_names) {
			// Overwrite: the name is unset or holds an earlier step's value of ours.
			spank_err_t rc = spank_setenv(sp, n.c_str(), plan[i].es_value.c_str(), 1);
			if (rc != ESPANK_SUCCESS) {
				slurm_debug("denpex: spank_setenv %s: %s", n.c_str(), spank_strerror(rc));
				continue;
			}
			set++;
			ours_now[n] = true;
			mark += (mark.empty() ? "" : ",") + n + "=" + env_value_hash(plan[i].es_value);
		}
	}
	// An earlier step's value that this task does not get (the user took the
	// group over, or this step has no spool dir) would point elsewhere: drop it.
	for (const auto &m : marks) {
		std::string v;
		if (!ours_now.count(m.first) && job_getenv(sp, m.first, &v) == 1 && env_value_hash(v) == m.second)
			spank_unsetenv(sp, m.first.c_str());
	}
	if (!mark.empty())
		spank_setenv(sp, DENPEX_ENV_SET, mark.c_str(), 1);
	else if (!marks.empty())
		spank_unsetenv(sp, DENPEX_ENV_SET);
	return set;
}

} // namespace denpex
