#include "fr_bridge.hh"

#include "fr_analysis.hh"

#include <jansson.h>

namespace diag {

bool looks_like_fr_json(std::string_view text)
{
	std::string_view head = text.substr(0, 4096);
	return head.find("\"pg_config\"") != std::string_view::npos ||
	       (head.find("\"entries\"") != std::string_view::npos && head.find("\"version\"") != std::string_view::npos);
}

hang_structure analyse_fr_paths(const std::vector<std::string> &paths, evidence &ev)
{
	hang_structure hs;
	fr_load_options lo;
	lo.no_follow = true;
	fr_collection c = fr_load_paths(paths, lo);
	for (const auto &u : c.unreadable)
		ev.warnings.push_back(u.path + ": flight-recorder dump unreadable: " + u.error);
	if (c.dumps.empty())
		return hs;
	fr_analyze_options ao;
	for (const auto &r : ev.ranks.all())
		ao.world.push_back(r.first);
	fr_report rep = fr_analyze(c, ao);
	hs.present = true;
	hs.source = paths.size() == 1 ? paths[0] : "flight recorder (" + std::to_string(c.dumps.size()) + " dumps)";
	// The most telling reason only: never-enqueued ranks outrank those
	// merely without a dump.
	for (const auto &s : rep.suspects) {
		if (s.reason != rep.suspects.front().reason)
			break;
		hs.suspects.push_back(s.rank);
		hs.lines.push_back(s.detail);
	}
	if (!rep.summary.empty())
		hs.lines.insert(hs.lines.begin(), rep.summary);
	for (const auto &a : rep.anchors) {
		std::vector<std::pair<int, int64_t>> pts;
		for (const auto &p : a.points)
			pts.emplace_back(p.rank, p.time_ns / 1000);
		hs.anchors.push_back(std::move(pts));
	}
	return hs;
}

namespace {

bool one_record(json_t *o, evidence &ev)
{
	if (!json_is_object(o))
		return false;
	auto integer = [&](std::initializer_list<const char *> keys) -> long long {
		for (const char *k : keys) {
			json_t *v = json_object_get(o, k);
			if (json_is_integer(v))
				return json_integer_value(v);
		}
		return -1;
	};
	auto string = [&](std::initializer_list<const char *> keys) -> std::string {
		for (const char *k : keys) {
			json_t *v = json_object_get(o, k);
			if (json_is_string(v))
				return json_string_value(v);
		}
		return "";
	};
	long long rank = integer({"global_task_id", "rank", "task_global_id", "global_rank"});
	std::string host = string({"host", "node", "hostname", "nodename"});
	if (rank < 0 || host.empty())
		return false;
	rank_info ri;
	ri.rank = static_cast<int>(rank);
	ri.host = ev.intern_host(host);
	long long pid = integer({"pid", "task_pid"});
	if (pid > 0)
		ri.pid = static_cast<int>(pid);
	long long local = integer({"local_task_id", "local_rank", "local_id"});
	if (local >= 0)
		ri.local_rank = static_cast<int>(local);
	ri.task = ri.rank;
	ev.ranks.add(ri);
	std::string job = string({"job_id", "jobid"});
	long long jobn = integer({"job_id", "jobid"});
	if (ev.job.job_id.empty()) {
		if (!job.empty())
			ev.job.job_id = job;
		else if (jobn > 0)
			ev.job.job_id = std::to_string(jobn);
	}
	return true;
}

} // namespace

bool read_rank_records(std::string_view text, evidence &ev)
{
	json_error_t jerr;
	json_t *root = json_loadb(text.data(), text.size(), 0, &jerr);
	if (!root)
		return false;
	bool ok = false;
	if (json_is_array(root)) {
		size_t i;
		json_t *v;
		json_array_foreach(root, i, v) ok = one_record(v, ev) || ok;
	} else {
		ok = one_record(root, ev);
	}
	json_decref(root);
	return ok;
}

} // namespace diag
