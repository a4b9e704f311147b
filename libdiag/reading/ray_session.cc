#include "reading/ray_session.hh"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace diag {

namespace {

// How far a re-raised traceback reaches below its header, and an actor
// report's fields below its first line.
constexpr uint64_t wrap_reach_lines = 400;
constexpr uint64_t field_reach_lines = 8;

bool hex_or_digits(std::string_view s, bool digits)
{
	if (s.empty())
		return false;
	for (char c : s)
		if (digits ? !isdigit(static_cast<unsigned char>(c)) : !isxdigit(static_cast<unsigned char>(c)))
			return false;
	return true;
}

bool from_ray(const event &e) { return e.r && e.r->family == "ray"; }

// A line only Ray writes: not a bare "pid: N" field, which other logs have too.
bool ray_marker(const event &e)
{
	return from_ray(e) && (e.role != event_role::context || e.kind == rule_kind::rank_map || !e.capture("task").empty() ||
			       !e.capture("ray_job").empty() || !e.capture("ray_submission").empty() ||
			       !e.capture("retries_left").empty() || !e.capture("state").empty() || !e.capture("failure_no").empty());
}

void set_capture(event &e, const std::string &name, const std::string &value)
{
	for (auto &c : e.captures)
		if (c.first == name) {
			if (c.second.empty())
				c.second = value;
			return;
		}
	e.captures.emplace_back(name, value);
}

} // namespace

bool ray_file_hint(const std::string &path, int &pid, std::string &job)
{
	size_t slash = path.rfind('/');
	std::string_view name = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
	job.clear();
	pid = -1;
	size_t dot = name.rfind('.');
	if (dot == std::string_view::npos)
		return false;
	std::string_view ext = name.substr(dot + 1), stem = name.substr(0, dot);
	std::string_view pid_text;
	if ((ext == "out" || ext == "err") && stem.substr(0, 7) == "worker-") {
		// worker-[worker_id]-[job_id]-[pid]
		size_t last = stem.rfind('-');
		size_t mid = last == std::string_view::npos || last == 0 ? std::string_view::npos : stem.rfind('-', last - 1);
		if (mid == std::string_view::npos || mid < 7)
			return false;
		pid_text = stem.substr(last + 1);
		std::string_view j = stem.substr(mid + 1, last - mid - 1);
		if (!hex_or_digits(j, false) || !hex_or_digits(stem.substr(7, mid - 7), false))
			return false;
		job = std::string(j);
	} else if (ext == "log" && (stem.substr(0, 19) == "python-core-worker-" || stem.substr(0, 19) == "python-core-driver-")) {
		// python-core-worker-[worker_id]_[pid]
		size_t us = stem.rfind('_');
		if (us == std::string_view::npos)
			return false;
		pid_text = stem.substr(us + 1);
	} else {
		return false;
	}
	if (!hex_or_digits(pid_text, true) || pid_text.size() > 9)
		return false;
	pid = atoi(std::string(pid_text).c_str());
	return pid > 0;
}

bool ray_walk_skips(const std::string &path)
{
	size_t slash = path.rfind('/');
	std::string_view name = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
	if (name == "error.pkl")
		return true;
	// .../session_<time>_<pid>/<x>: only logs/ is read.
	size_t start = 0;
	while (start < path.size()) {
		size_t end = path.find('/', start);
		if (end == std::string::npos)
			break;
		std::string_view comp = std::string_view(path).substr(start, end - start);
		if (comp.substr(0, 8) == "session_" && comp.size() > 8) {
			size_t next_end = path.find('/', end + 1);
			std::string_view next = std::string_view(path).substr(end + 1, next_end == std::string::npos ? std::string::npos : next_end - end - 1);
			return !next.empty() && next != "logs";
		}
		start = end + 1;
	}
	return false;
}

void unwrap_ray(evidence &ev)
{
	bool ray = !ev.links.ray_file_pid.empty();
	for (const auto &e : ev.events)
		if (ray_marker(e))
			ray = true;
	if (!ray)
		return;
	// A worker's own file: its lines are that worker's.
	for (auto &e : ev.events) {
		auto it = ev.links.ray_file_pid.find(e.file);
		if (it != ev.links.ray_file_pid.end() && e.pid < 0)
			e.pid = it->second.first;
	}
	// Ray re-raises a worker's exception in the caller with a header naming
	// the worker; what follows under it happened there. An actor-death
	// report names its worker on the next lines.
	struct open_block {
		long header = -1;
		uint64_t line = 0;
		int pid = -1, host = -1;
	};
	std::map<uint64_t, open_block> wraps, reports;
	for (size_t i = 0; i < ev.events.size(); i++) {
		event &e = ev.events[i];
		uint64_t writer = writer_key(e.file, e.key);
		if (from_ray(e) && e.kind == rule_kind::exception && e.capture("pid").empty()) {
			reports[writer] = {static_cast<long>(i), e.line, -1, -1};
			continue;
		}
		if (from_ray(e) && e.role == event_role::context && e.kind == rule_kind::plain &&
		    (!e.capture("actor_id").empty() || !e.capture("pid").empty() || !e.capture("host").empty()) &&
		    e.capture("task").empty()) {
			auto r = reports.find(writer);
			if (r != reports.end() && e.line - r->second.line <= field_reach_lines) {
				event &h = ev.events[static_cast<size_t>(r->second.header)];
				if (!e.capture("actor_id").empty())
					set_capture(h, "actor_id", e.capture("actor_id"));
				if (e.pid > 0 && h.pid < 0)
					h.pid = e.pid;
				if (!e.capture("host").empty() && e.host >= 0)
					h.host = e.host;
				r->second.line = e.line;
				// What the report says next (the exit detail) is about
				// that worker too.
				if (h.pid > 0)
					wraps[writer] = {r->second.header, e.line, h.pid, h.host};
				continue;
			}
		}
		if (from_ray(e) && !e.capture("task").empty() && e.pid > 0 && e.kind != rule_kind::rank_map &&
		    e.role != event_role::initiating) {
			// The header names its worker: the rank is that pid's, not one
			// taken from the lines around it.
			if (!e.capture("pid").empty())
				e.rank = -1;
			wraps[writer] = {static_cast<long>(i), e.line, e.pid, e.host};
			continue;
		}
		auto w = wraps.find(writer);
		if (w != wraps.end() && e.line > w->second.line && e.line - w->second.line <= wrap_reach_lines &&
		    e.rank < 0 && !e.writer_known) {
			if (e.pid < 0)
				e.pid = w->second.pid;
			if (e.host < 0)
				e.host = w->second.host;
		}
		// A node's fate in the report (its node preempted, died) is the
		// worker's node, whoever prints the report (a driver's own prefix).
		else if (w != wraps.end() && e.line > w->second.line && e.line - w->second.line <= field_reach_lines &&
			 e.host < 0 && e.r && e.r->scope == rule::fault_scope::node && from_ray(e))
			e.host = w->second.host;
	}
	// Pids are per node: one seen on a single host only gives that host
	// to its lines that name none (a worker file names no node).
	std::map<int, int> host_of_pid; // -2: seen on several
	for (const auto &e : ev.events) {
		if (e.pid <= 0 || e.host < 0)
			continue;
		auto it = host_of_pid.find(e.pid);
		if (it == host_of_pid.end())
			host_of_pid[e.pid] = e.host;
		else if (it->second != e.host)
			it->second = -2;
	}
	for (auto &e : ev.events)
		if (e.host < 0 && e.pid > 0) {
			auto it = host_of_pid.find(e.pid);
			if (it != host_of_pid.end() && it->second >= 0)
				e.host = it->second;
		}
}

void settle_ray(evidence &ev, long first_event, failure_class first_class)
{
	ray_link &r = ev.links.ray;
	bool ray = !ev.links.ray_file_pid.empty();
	for (const auto &e : ev.events) {
		if (!ray_marker(e))
			continue;
		ray = true;
		if (r.job_id.empty() && !e.capture("ray_submission").empty())
			r.job_id = e.capture("ray_submission");
		if (r.job_id.empty() && !e.capture("ray_job").empty())
			r.job_id = e.capture("ray_job");
	}
	if (!ray)
		return;
	if (r.job_id.empty())
		for (const auto &f : ev.links.ray_file_pid)
			if (!f.second.second.empty()) {
				r.job_id = f.second.second;
				break;
			}
	const event *first = first_event >= 0 && static_cast<size_t>(first_event) < ev.events.size()
				     ? &ev.events[static_cast<size_t>(first_event)]
				     : nullptr;
	// The worker processes each actor ran in: a restarted actor keeps its
	// id and gets a new process.
	std::map<std::string, std::vector<int>> actor_pids;
	for (const auto &e : ev.events) {
		std::string a = e.capture("actor_id");
		if (a.empty() || e.pid <= 0)
			continue;
		auto &v = actor_pids[a];
		bool seen = false;
		for (int p : v)
			seen = seen || p == e.pid;
		if (!seen)
			v.push_back(e.pid);
	}
	std::string actor = first ? first->capture("actor_id") : std::string();
	if (actor.empty() && first && first->pid > 0)
		for (const auto &a : actor_pids)
			for (int p : a.second)
				if (p == first->pid && actor.empty())
					actor = a.first;
	if (!actor.empty()) {
		r.actor_id = actor;
		const auto &pids = actor_pids[actor];
		r.attempts = static_cast<int>(pids.size());
		// Did the other attempts fail the way the first did?
		int same = 1;
		for (int p : pids) {
			if (first && p == first->pid)
				continue;
			bool any = false, alike = false;
			for (const auto &e : ev.events)
				if (e.pid == p && e.role == event_role::initiating && !e.decoy && !e.dropped) {
					any = true;
					alike = alike || e.cls == first_class;
				}
			if (any && !alike)
				same = 0;
			else if (!any && same == 1)
				same = -1;
		}
		if (r.attempts > 1)
			r.same_failure = same;
	}
	if (r.attempts <= 1) {
		// A task retried by Ray core, or a Tune trial restarted with new
		// actors: one line per failure. The cause of each attempt is the
		// first fault after its line in the same file (the traceback it
		// prints), before the next attempt's.
		std::map<std::string, std::vector<size_t>> failures;
		for (size_t i = 0; i < ev.events.size(); i++) {
			const event &e = ev.events[i];
			if (!from_ray(e))
				continue;
			std::string k = e.capture("retries_left").empty() ? std::string() : "task " + e.capture("task_id");
			if (k.empty() && !e.capture("trial_task").empty())
				k = "trial " + e.capture("trial_task");
			// Tune's error.txt appends "Failure # N" per failure of its trial.
			if (k.empty() && !e.capture("failure_no").empty())
				k = "error file " + std::to_string(e.file);
			if (!k.empty())
				failures[k].push_back(i);
		}
		// Several records of the same attempts (the driver's console, the
		// trial's error.txt): the longest, and of those one whose attempts'
		// causes are all known.
		auto same_of = [&](const std::vector<size_t> &fails) {
			int same = 1;
			for (size_t k = 0; k < fails.size(); k++) {
				const event &at = ev.events[fails[k]];
				uint64_t until = k + 1 < fails.size() && ev.events[fails[k + 1]].file == at.file
							 ? ev.events[fails[k + 1]].line
							 : UINT64_MAX;
				const event *cause = nullptr;
				for (const auto &e : ev.events)
					if (e.file == at.file && e.line > at.line && e.line < until && e.role == event_role::initiating &&
					    !e.decoy && !e.dropped && (!cause || e.line < cause->line))
						cause = &e;
				if (!cause) {
					if (same == 1)
						same = -1;
				} else if (cause->cls != first_class) {
					same = 0;
				}
			}
			return same;
		};
		size_t longest = 0;
		for (const auto &f : failures)
			longest = std::max(longest, f.second.size());
		if (static_cast<int>(longest) > r.attempts) {
			r.attempts = static_cast<int>(longest);
			int best = -2;
			for (const auto &f : failures)
				if (f.second.size() == longest) {
					int same = same_of(f.second);
					if (best == -2 || (best == -1 && same != -1))
						best = same;
				}
			if (r.attempts > 1)
				r.same_failure = best;
		}
	}
	if (r.attempts > 0)
		r.retries = r.attempts - 1;
}

} // namespace diag
