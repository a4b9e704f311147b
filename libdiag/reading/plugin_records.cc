#include "reading/plugin_records.hh"

#include <jansson.h>

#include <cstdint>
#include <cstring>

namespace diag {

namespace {

long long jint(json_t *o, const char *key, long long dflt = -1)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

std::string jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : "";
}

bool one_record(json_t *o, uint32_t file, evidence &ev)
{
	if (!json_is_object(o))
		return false;
	std::string kind = jstr(o, "kind");
	long long task = jint(o, "task");
	std::string node = jstr(o, "node");
	if ((kind != "rank" && kind != "task_exit") || task < 0 || node.empty())
		return false;
	if (ev.job.job_id.empty() && jint(o, "job") > 0)
		ev.job.job_id = std::to_string(jint(o, "job"));
	if (kind == "rank") {
		plugin_task pt;
		pt.task = static_cast<int>(task);
		pt.node = ev.intern_host(node);
		std::string hn = jstr(o, "hostname");
		pt.hostname = hn.empty() ? -1 : ev.intern_host(hn);
		pt.pid = static_cast<int>(jint(o, "pid"));
		pt.local_task = static_cast<int>(jint(o, "local_task"));
		json_t *clk = json_object_get(o, "clock");
		if (json_is_object(clk)) {
			long long btime = jint(clk, "btime");
			if (btime > 0 && btime < INT64_MAX / us_per_s) // beyond: no time, nor an overflow
				ev.boot_time[pt.node] = btime * us_per_s;
		}
		ev.plugin_tasks.push_back(pt);
		return true;
	}
	event e;
	e.rule_id = "plugin.task_exit";
	e.kind = rule_kind::task_exit;
	e.role = event_role::context;
	e.cls = failure_class::unknown;
	e.task = static_cast<int>(task);
	e.host = ev.intern_host(node);
	e.pid = static_cast<int>(jint(o, "pid"));
	e.file = file;
	e.line = 1;
	long long code = jint(o, "exit_code", INT32_MIN);
	long long sig = jint(o, "signal");
	if (sig > 0)
		e.signal = static_cast<int>(sig);
	else if (code != INT32_MIN)
		e.exitcode = static_cast<int>(code);
	json_t *tns = json_object_get(o, "time_ns");
	if (json_is_integer(tns) && json_integer_value(tns) > 0) {
		e.ts.kind = ts_kind::absolute;
		e.ts.epoch_us = json_integer_value(tns) / 1000;
	}
	std::string what = sig > 0 ? "signal " + std::to_string(sig) + " (" + jstr(o, "signal_name") + ")"
				   : "exit code " + std::to_string(code);
	e.text = "task " + std::to_string(task) + " on " + node + " ended: " + what;
	e.captures.emplace_back("task", std::to_string(task));
	ev.add(std::move(e));
	return true;
}

} // namespace

bool read_plugin_records(std::string_view text, uint32_t file, evidence &ev)
{
	json_error_t jerr;
	json_t *root = json_loadb(text.data(), text.size(), 0, &jerr);
	if (!root)
		return false;
	bool ok = false;
	if (json_is_array(root)) {
		size_t i;
		json_t *v;
		json_array_foreach(root, i, v) ok = one_record(v, file, ev) || ok;
	} else {
		ok = one_record(root, file, ev);
	}
	json_decref(root);
	return ok;
}

void apply_plugin_records(evidence &ev)
{
	if (ev.plugin_tasks.empty())
		return;
	// The host name NCCL prints and a pid identify the task's Slurm node.
	for (auto &e : ev.events) {
		if (e.pid <= 0)
			continue;
		for (const auto &pt : ev.plugin_tasks)
			if (pt.pid == e.pid && (e.host < 0 || e.host == pt.hostname || e.host == pt.node)) {
				e.host = pt.node;
				break;
			}
	}
	if (!ev.tasks_are_ranks)
		return;
	for (const auto &pt : ev.plugin_tasks) {
		rank_info ri;
		ri.rank = pt.task;
		ri.host = pt.node;
		ri.pid = pt.pid;
		ri.local_rank = pt.local_task;
		ri.task = pt.task;
		ri.host_authoritative = true;
		ev.ranks.add(ri);
	}
}

} // namespace diag
