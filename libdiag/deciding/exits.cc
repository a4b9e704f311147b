#include "deciding/exits.hh"

#include "deciding/context.hh"

#include "reading/line_prefix.hh"

#include <algorithm>
#include <csignal>
#include <climits>
#include <cstdlib>
#include <set>

namespace diag {

bool parse_uint_str(const std::string &s, long long &out)
{
	return parse_uint(s, out);
}

std::vector<int> parse_task_list(const std::string &s)
{
	std::vector<int> out;
	size_t i = 0;
	while (i < s.size()) {
		size_t comma = s.find(',', i);
		std::string part = s.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
		size_t dash = part.find('-');
		long long a, b;
		if (dash == std::string::npos) {
			if (parse_uint_str(part, a))
				out.push_back(static_cast<int>(a));
		} else if (parse_uint_str(part.substr(0, dash), a) && parse_uint_str(part.substr(dash + 1), b) && b >= a &&
			   b - a < 100000) {
			for (long long k = a; k <= b; k++)
				out.push_back(static_cast<int>(k));
		}
		if (comma == std::string::npos)
			break;
		i = comma + 1;
	}
	return out;
}

std::map<int, int> rank_exit_signals(const evidence &ev)
{
	std::map<int, int> out;
	std::vector<const event *> byline;
	for (const auto &e : ev.events) {
		if (e.dropped)
			continue;
		if (e.kind == rule_kind::task_exit && e.rank >= 0 && (e.signal > 0 || e.exitcode != INT32_MIN))
			out.emplace(e.rank, e.signal > 0 ? e.signal : 0);
		if (e.role == event_role::context && e.kind == rule_kind::plain)
			byline.push_back(&e);
	}
	std::sort(byline.begin(), byline.end(), [](const event *a, const event *b) {
		return a->file != b->file ? a->file < b->file : a->line < b->line;
	});
	for (size_t i = 1; i < byline.size(); i++) {
		const event *a = byline[i - 1], *b = byline[i];
		if (a->file == b->file && b->line - a->line <= 2 && !a->capture("rank").empty() &&
		    !b->capture("exitcode").empty() && b->capture("rank").empty()) {
			long long r;
			if (!parse_uint_str(a->capture("rank"), r))
				continue;
			int code = b->exitcode;
			out.emplace(static_cast<int>(r), code < 0 ? -code : 0);
		}
	}
	return out;
}

exit_view analyse_exits(const evidence &ev)
{
	exit_view xv;
	std::set<int> torn_down;
	int max_task = -1;
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::task_exit)
			continue;
		if (e.exitcode > 0 && e.signal < 0 && e.rank >= 0) {
			const event *f = xv.first_self_exit;
			bool earlier = !f || (e.time_us != no_time && (f->time_us == no_time || e.time_us < f->time_us)) ||
				       (e.time_us == f->time_us && e.order < f->order);
			if (earlier)
				xv.first_self_exit = &e;
		}
		std::string tasks = e.capture("task");
		if (!ev.tasks_are_ranks || tasks.empty())
			continue;
		std::vector<int> list = parse_task_list(tasks);
		for (int t : list)
			max_task = std::max(max_task, t);
		if (e.role == event_role::victim)
			torn_down.insert(list.begin(), list.end());
	}
	if (const event *f = xv.first_self_exit; f && f->time_us == no_time) {
		std::vector<const event *> after;
		for (const auto &e : ev.events)
			if (!e.dropped && e.kind == rule_kind::task_exit && e.file == f->file && e.line > f->line &&
			    e.line - f->line <= 16)
				after.push_back(&e);
		std::sort(after.begin(), after.end(), [](const event *a, const event *b) { return a->line < b->line; });
		std::set<int> others;
		uint64_t last = f->line;
		for (const event *e : after) {
			if (e->line - last > 2)
				break; // the burst ended
			last = e->line;
			if (e->exitcode > 0 && e->signal < 0 && e->rank >= 0 && e->rank != f->rank && e->time_us == no_time)
				others.insert(e->rank);
		}
		xv.first_exit_in_burst = others.size() >= 2;
	}
	int world = std::max(ev.ranks.world_size(), max_task + 1);
	if (!torn_down.empty() && world >= 2 && static_cast<int>(torn_down.size()) >= world - 1)
		for (int r = 0; r < world; r++)
			if (!torn_down.count(r))
				xv.not_torn_down.push_back(r);
	return xv;
}

// Ranks whose process died of SIGKILL: the kernel's OOM killer (or an
// admin) at work when it is one rank, the launcher's teardown when many.
std::vector<int> sigkilled_ranks(const evidence &ev)
{
	std::vector<int> out;
	for (const auto &x : rank_exit_signals(ev))
		if (x.second == 9)
			out.push_back(x.first);
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::task_exit || e.signal != 9 || !ev.tasks_are_ranks)
			continue;
		for (int t : parse_task_list(e.capture("task")))
			if (std::find(out.begin(), out.end(), t) == out.end())
				out.push_back(t);
	}
	return out;
}

// A launcher's "exitcode: -N" (torchrun, DeepSpeed's "return code = -N",
// any task_exit rule's capture) or "exited on signal N" (mpirun) is death
// by signal N, whichever launcher said it: the class is the signal's. A
// crash signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE) is a native crash of that
// worker; SIGKILL is the OOM killer's only where the kernel says it killed
// for memory, else a kill like any other (context); SIGABRT and SIGTERM
// stay what the rules say (an abort after NCCL's, the launcher's teardown:
// victims).
bool stop_signal(int sig)
{
	return sig == SIGHUP || sig == SIGINT || sig == SIGKILL || sig == SIGTERM;
}

bool crash_signal(int sig)
{
	return sig == SIGILL || sig == SIGBUS || sig == SIGFPE || sig == SIGSEGV;
}

// Whether the job's own last reading of its host's memory (a
// host_mem_percent capture) found it nearly full: what a kernel log would
// have said, where none came with the job.
bool host_memory_nearly_full(const evidence &ev)
{
	const event *last = nullptr;
	for (const auto &e : ev.events) {
		if (e.capture("host_mem_percent").empty())
			continue;
		bool later = !last || (e.file == last->file ? e.line > last->line
				       : e.time_us != no_time && last->time_us != no_time && e.time_us >= last->time_us);
		if (later)
			last = &e;
	}
	return last && strtod(last->capture("host_mem_percent").c_str(), nullptr) >= 90.0;
}

void pass_exit_signals(diagnosis_context &cx)
{
	bool kernel_oom_kill = host_memory_nearly_full(cx.ev);
	for (const auto &e : cx.ev.events)
		if (!e.dropped && e.cls == failure_class::host_oom && e.role == event_role::initiating &&
		    e.kind != rule_kind::task_exit)
			kernel_oom_kill = true;
	for (auto &e : cx.ev.events) {
		if (e.dropped || e.kind != rule_kind::task_exit || e.role == event_role::initiating || e.signal <= 0)
			continue;
		// The signal of one process: a negative exit code, or a launcher's
		// "exited on signal N" for one rank (mpirun). srun's "tasks 0-3:
		// Killed" is the step's teardown, read by its own rules.
		bool one_process = e.exitcode != INT32_MIN ? e.exitcode < 0 : e.capture("task").empty();
		if (!one_process)
			continue;
		if (crash_signal(e.signal)) {
			e.role = event_role::initiating;
			e.cls = failure_class::segfault;
			e.weight = std::max(e.weight, 75);
		} else if (e.signal == SIGKILL && kernel_oom_kill) {
			e.role = event_role::initiating;
			e.cls = failure_class::host_oom;
			e.weight = std::max(e.weight, 70);
		}
	}
}

} // namespace diag
