#include "reading/plugin_records.hh"

#include <jansson.h>

#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

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

bool known_schema(long long major)
{
	for (long long k : plugin_schema_known)
		if (k == major)
			return true;
	return false;
}

// Nanoseconds since the epoch to µs, or no_time when absent or not positive.
int64_t ns_to_us(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) / 1000 : no_time;
}

// A plugin record: an object with an integer schema and a kind we know.
bool is_record(json_t *o)
{
	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "schema")))
		return false;
	std::string kind = jstr(o, "kind");
	return kind == "rank" || kind == "task_exit";
}

bool one_record(json_t *o, uint32_t file, evidence &ev)
{
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
		pt.step = jstr(o, "step");
		json_t *clk = json_object_get(o, "clock");
		if (json_is_object(clk)) {
			long long btime = jint(clk, "btime");
			if (btime > 0 && btime < INT64_MAX / us_per_s) // beyond: no time, nor an overflow
				ev.boot_time[pt.node] = btime * us_per_s;
			pt.start_us = ns_to_us(clk, "realtime_ns");
			pt.srun_us = ns_to_us(clk, "srun_realtime_ns");
			json_t *off = json_object_get(clk, "utc_offset_s");
			// The plugin writes an empty zone (and offset 0) when the node
			// could not tell its local time; a zone lies within a day of UTC.
			if (json_is_integer(off) && !jstr(clk, "zone").empty() &&
			    std::llabs(json_integer_value(off)) <= 26 * 3600) {
				pt.has_utc_offset = true;
				pt.utc_offset_s = static_cast<int>(json_integer_value(off));
			}
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

records_read read_plugin_records(std::string_view text, uint32_t file, evidence &ev, long long &refused_schema)
{
	json_error_t jerr;
	json_t *root = json_loadb(text.data(), text.size(), 0, &jerr);
	if (!root)
		return records_read::not_records;
	std::vector<json_t *> records;
	if (json_is_array(root)) {
		size_t i;
		json_t *v;
		json_array_foreach(root, i, v) if (is_record(v)) records.push_back(v);
	} else if (is_record(root)) {
		records.push_back(root);
	}
	records_read res = records_read::not_records;
	for (json_t *r : records) {
		long long major = json_integer_value(json_object_get(r, "schema"));
		if (!known_schema(major)) {
			// A later plugin's record may mean something else by the same
			// field: better no facts than wrong ones.
			refused_schema = major;
			if (res == records_read::not_records)
				res = records_read::refused;
			continue;
		}
		if (one_record(r, file, ev))
			res = records_read::read;
	}
	json_decref(root);
	return res;
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
