#include "model/evidence.hh"
#include "reading/timestamp.hh"

#include <algorithm>

namespace diag {

namespace {
constexpr uint32_t keep_per_writer = 3;
// An exception closing a traceback ends a process: unlabelled output of
// many processes repeats it once per process, and common mode counts them
// (one stdout for a whole node). Still bounded: a loop of caught
// tracebacks must not fill memory.
constexpr uint32_t keep_process_ends_per_writer = 64;
// A writer's line this long after its last one kept (on the line's own
// clock) is a new episode, kept afresh: a kernel log of several days holds
// last week's Xids and today's, and the first few must not be all it keeps.
constexpr int64_t new_episode_us = 60LL * 60 * 1000000;
}

namespace {
// A node by its full name ("gpu07.cluster.internal") is the node by its
// short one: Slurm, the rank map and most logs use the short name, and an
// admin drains that. Addresses keep every part.
std::string_view short_host_name(std::string_view name)
{
	size_t dot = name.find('.');
	if (dot == std::string_view::npos || dot == 0 || name.find(':') != std::string_view::npos)
		return name;
	std::string_view first = name.substr(0, dot);
	bool letter = false;
	for (char c : first)
		letter = letter || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	return letter ? first : name;
}
} // namespace

std::string evidence::where(const event &e) const
{
	if (e.file >= ev_sources.size())
		return "";
	return ev_sources[e.file].path + ":" + std::to_string(e.line);
}

int evidence::intern_host(std::string_view full)
{
	std::string_view name = short_host_name(full);
	if (name.empty())
		return -1;
	std::string key(name);
	auto it = ev_host_ids.find(key);
	if (it != ev_host_ids.end()) {
		std::string &f = ev_full_hosts[static_cast<size_t>(it->second)];
		if (f.empty() && full.size() != name.size())
			f = std::string(full);
		return it->second;
	}
	int id = static_cast<int>(ev_hosts.size());
	ev_hosts.push_back(key);
	ev_full_hosts.push_back(full.size() != name.size() ? std::string(full) : std::string());
	ev_host_ids.emplace(std::move(key), id);
	return id;
}

int evidence::find_host(std::string_view name) const
{
	auto it = ev_host_ids.find(std::string(short_host_name(name)));
	return it == ev_host_ids.end() ? -1 : it->second;
}

uint32_t evidence::add_source(source_file f)
{
	ev_sources.push_back(std::move(f));
	return static_cast<uint32_t>(ev_sources.size() - 1);
}

long evidence::add(event &&e)
{
	const std::string &id = e.r ? e.r->id : e.rule_id;
	std::string writer = id + "|" + std::to_string(e.rank) + "|" + std::to_string(e.task) + "|" +
			     std::to_string(e.local_rank) + "|" + std::to_string(e.host) + "|" + std::to_string(e.pid);
	bool process_end = !e.capture("traceback_line").empty();
	if (process_end)
		writer += "|end";
	// A record's fields (qacct's "key value" lines) are one line each: each
	// field is kept as its own, so that a long record loses none.
	if (std::string field = e.capture("record_field"); !field.empty())
		writer += "|" + field;
	// So are the rows of a listing of pods (kubectl get pods): each names
	// another pod and the node it ran on, and the job's may be many.
	if (std::string pod = e.capture("pod"); !pod.empty())
		writer += "|" + pod;
	// And a report naming missing ranks keeps each rank's apart: a
	// coordinator naming each of its tasks in a line of its own names them
	// all, however many, where the reading's newest would keep only one.
	if (std::string missing = e.capture("missing_rank"); !missing.empty() && missing.size() <= 64)
		writer += "|missing " + missing;
	// So does a line naming the machine the job ran on (a terminal's prompt,
	// a cluster manager's "Node:"): each machine named is kept, whichever
	// file came first.
	if (std::string node = e.capture("job_node"); !node.empty() && node.size() <= 64)
		writer += "|node " + node;
	kept_count &count = ev_kept[writer];
	uint32_t &kept = count.kept;
	const int64_t own_us = e.ts.kind == ts_kind::none ? INT64_MIN : file_local_us(e.ts);
	if (own_us != INT64_MIN && count.last_us != INT64_MIN && own_us - count.last_us >= new_episode_us)
		kept = 0;
	// Job-level facts and initiating faults are few and all matter.
	bool always = e.kind == rule_kind::job_end || e.kind == rule_kind::task_exit;
	// Of a reading (how full the host's memory is; a wait still reported,
	// as torch's store-based barrier and Horovod's stall inspector repeat
	// it), the newest is what counts:
	// past the cap it takes the place of the writer's last one.
	const bool reading = !e.capture("host_mem_percent").empty() || !e.capture("barrier_world").empty() ||
			     !e.capture("missing_rank").empty();
	if (reading) {
		reading_runs &rr = ev_reading_runs[writer];
		if (rr.runs == 0 || rr.file != e.file || e.line > rr.line + 2)
			rr.runs++;
		rr.file = e.file;
		rr.line = e.line;
		e.reading_runs = rr.runs;
	}
	if (!always && kept >= keep_per_writer && reading) {
		auto at = ev_last_reading.find(writer);
		if (at == ev_last_reading.end())
			return -1;
		e.order = events[at->second].order;
		events[at->second] = std::move(e);
		return static_cast<long>(at->second);
	}
	if (!always && kept >= (process_end ? keep_process_ends_per_writer : keep_per_writer))
		return -1;
	if (reading)
		ev_last_reading[writer] = events.size();
	kept++;
	if (own_us != INT64_MIN)
		count.last_us = own_us;
	e.order = ev_order++;
	events.push_back(std::move(e));
	return static_cast<long>(events.size() - 1);
}

bool source_file::wrote_between(const ts_value &t, int64_t from, int64_t to) const
{
	const uint8_t key = ts_reckoning(t.kind, t.year != 0);
	for (const auto &w : written)
		if (w.second == key && w.first > from && w.first < to)
			return true;
	return false;
}

int64_t source_file::last_written_before(const ts_value &t, int64_t at) const
{
	const uint8_t key = ts_reckoning(t.kind, t.year != 0);
	int64_t best = INT64_MIN;
	for (const auto &w : written)
		if ((w.second & ~written_read) == key && w.first <= at)
			best = std::max(best, w.first);
	return best;
}

} // namespace diag
