#include "deciding/diagnose.hh"

#include "reading/line_prefix.hh"
#include "reading/plugin_records.hh"
#include "aligning/rank_map.hh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>

namespace diag {

namespace {

// How far apart two events on one host may be for the stronger one to
// explain the weaker (an Xid and the CUDA error it caused).
constexpr double same_host_window_s = 30.0;
// Kernel messages this long before the job's first sign of life belong to
// an earlier job.
constexpr int64_t kernel_lead_us = 15 * 60 * us_per_s;
constexpr int64_t kernel_tail_us = 5 * 60 * us_per_s;

struct candidate {
	event *e = nullptr;
	double unc = 0; // seconds
};

bool job_level(failure_class c)
{
	return c == failure_class::time_limit || c == failure_class::preemption || c == failure_class::user_cancel ||
	       c == failure_class::node_failure;
}

std::string event_source(const evidence &ev, const event &e)
{
	if (e.file >= ev.sources().size())
		return "";
	return ev.sources()[e.file].path + ":" + std::to_string(e.line);
}

std::string iso(int64_t us)
{
	if (us == no_time)
		return "";
	char buf[40];
	format_utc_ms(us, buf, sizeof(buf));
	return buf;
}

} // namespace

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

// srun's task ids are global ranks only when srun starts every rank itself;
// under torchrun (or any per-node launcher) a task is a node's launcher.
bool srun_tasks_are_ranks(const evidence &ev)
{
	for (const auto &src : ev.sources())
		if (src.labels_are_not_ranks)
			return false;
	for (const auto &e : ev.events) {
		if (e.task >= 0 && e.local_rank >= 0)
			return false;
		if (e.r && e.r->family == "torchrun")
			return false;
	}
	return true;
}

// Ranks, hosts and pids that one line did not name come from the others.
void resolve_identities(evidence &ev)
{
	bool tasks_are_ranks = srun_tasks_are_ranks(ev);
	ev.tasks_are_ranks = tasks_are_ranks;
	apply_plugin_records(ev);
	for (auto &e : ev.events) {
		if (e.rank < 0 && e.task >= 0 && tasks_are_ranks)
			e.rank = e.task;
		// What a line says about where a rank ran fills gaps only: the
		// NCCL rank map knows better than a host prefix.
		if (e.rank >= 0 && (e.host >= 0 || e.pid > 0)) {
			const rank_info *known = ev.ranks.by_rank(e.rank);
			if (e.kind == rule_kind::rank_map || !known || known->host < 0) {
				rank_info ri;
				ri.rank = e.rank;
				ri.host = e.host;
				if (e.kind == rule_kind::rank_map)
					ri.pid = e.pid;
				ev.ranks.add(ri);
			}
		}
	}
	for (auto &e : ev.events) {
		if (e.rank < 0 && e.pid > 0)
			e.rank = ev.ranks.rank_of_pid(e.host, e.pid);
		if (e.rank < 0 && e.host >= 0 && e.local_rank >= 0)
			e.rank = ev.ranks.rank_of_local(e.host, e.local_rank);
		if (e.rank < 0 && e.host >= 0) {
			std::string pci = e.capture("pci");
			if (pci.empty())
				pci = e.capture("busid");
			if (!pci.empty())
				e.rank = ev.ranks.rank_of_busid(e.host, normalise_busid(pci));
		}
		if (e.rank < 0 && e.kind == rule_kind::task_exit && tasks_are_ranks) {
			std::string t = e.capture("task");
			long long v;
			if (!t.empty() && parse_uint_str(t, v))
				e.rank = static_cast<int>(v);
		}
		if (e.rank >= 0)
			if (const rank_info *ri = ev.ranks.by_rank(e.rank); ri && ri->host >= 0 &&
			    (e.host < 0 || (ri->host_authoritative && ev.sources()[e.file].kind != source_kind::kernel_log)))
				e.host = ri->host;
		if (e.rank >= 0)
			ev.ranks.note_world_size(e.rank + 1);
	}
}

namespace {

// Xid lines take their meaning from the table; Xid 154 names the action.
void apply_xid_table(evidence &ev, const knowledge &kn)
{
	for (auto &e : ev.events) {
		if (e.kind != rule_kind::xid || e.xid < 0)
			continue;
		if (e.xid == 154) {
			e.role = event_role::context;
			continue;
		}
		if (const xid_info *x = kn.xid(e.xid)) {
			e.cls = x->cls;
			e.role = x->role;
			e.weight = x->weight;
		}
	}
}

void drop_stale_kernel_events(evidence &ev)
{
	int64_t lo = ev.job.start_us, hi = ev.job.end_us;
	if (lo == no_time || hi == no_time) {
		int64_t mn = INT64_MAX, mx = INT64_MIN;
		for (const auto &e : ev.events) {
			if (e.time_us == no_time || ev.sources()[e.file].kind == source_kind::kernel_log)
				continue;
			mn = std::min(mn, e.time_us);
			mx = std::max(mx, e.time_us);
		}
		if (mn == INT64_MAX)
			return; // nothing to bound the window with: keep all
		if (lo == no_time)
			lo = mn;
		if (hi == no_time)
			hi = mx;
	}
	for (auto &e : ev.events) {
		if (ev.sources()[e.file].kind != source_kind::kernel_log || e.time_us == no_time)
			continue;
		if (e.time_us < lo - kernel_lead_us || e.time_us > hi + kernel_tail_us)
			e.dropped = true;
	}
}

// A failure that the same writer logged and then carried on from (training
// progress printed afterwards) was caught: it is not what killed the job.
void mark_decoys(evidence &ev)
{
	for (auto &e : ev.events) {
		// Unprefixed lines share one writer: another rank's progress after
		// them says nothing about whether this one carried on.
		if (e.role != event_role::initiating || e.kind == rule_kind::job_end || !e.writer_known ||
		    ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		auto it = ev.last_progress.find(writer_key(e.file, e.key));
		if (it != ev.last_progress.end() && it->second > e.line + 1)
			e.decoy = true;
	}
}

struct hang_view {
	std::vector<int> suspects;
	long long seq = -1;
	std::string op;
	std::string why;
	int reporting = 0;
};

// Watchdog structure: ranks that enqueued less than everyone else, or the
// one rank missing from a flood of timeouts, are where progress stopped.
// How each rank's process ended, as signal numbers (0: an exit code), from
// task exit lines and torchrun's failure blocks ("rank : R (local_rank: L)"
// followed by "exitcode : X (pid: P)").
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

hang_view analyse_watchdogs(const evidence &ev)
{
	hang_view hv;
	std::map<int, long long> enq;     // rank -> last enqueued (min over reports)
	std::map<int, long long> seq;     // rank -> timed-out seq
	std::set<int> reporting;
	std::map<long long, int> seq_count;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.kind != rule_kind::watchdog)
			continue;
		reporting.insert(e.rank);
		if (e.last_enqueued >= 0) {
			auto it = enq.find(e.rank);
			if (it == enq.end() || e.last_enqueued < it->second)
				enq[e.rank] = e.last_enqueued;
		}
		if (e.seq >= 0) {
			seq[e.rank] = e.seq;
			seq_count[e.seq]++;
		}
	}
	hv.reporting = static_cast<int>(reporting.size());
	if (!seq_count.empty())
		hv.seq = std::max_element(seq_count.begin(), seq_count.end(),
					  [](auto &a, auto &b) { return a.second < b.second; })->first;
	// Lowest last-enqueued: the rank that never reached the collective.
	if (enq.size() >= 2) {
		long long lo = LLONG_MAX, hi = LLONG_MIN;
		for (const auto &x : enq) {
			lo = std::min(lo, x.second);
			hi = std::max(hi, x.second);
		}
		if (lo < hi) {
			std::vector<int> low;
			for (const auto &x : enq)
				if (x.second == lo)
					low.push_back(x.first);
			if (low.size() * 2 < enq.size()) {
				hv.suspects = low;
				hv.why = "its last enqueued collective (" + std::to_string(lo) + ") is behind the others' (" +
					 std::to_string(hi) + ")";
				return hv;
			}
		}
	}
	// Who is missing: every other rank of a known world was waiting in a
	// collective (its watchdog reported, or aborted it: SIGABRT).
	int world = ev.ranks.world_size();
	if (world >= 2 && hv.reporting >= 1) {
		std::set<int> waiting = reporting;
		for (const auto &x : rank_exit_signals(ev))
			if (x.second == 6)
				waiting.insert(x.first);
		if (static_cast<int>(waiting.size()) == world - 1)
			for (int r = 0; r < world; r++)
				if (!waiting.count(r)) {
					hv.suspects.push_back(r);
					hv.why = "every other rank of " + std::to_string(world) +
						 " was waiting in collective" +
						 (hv.seq >= 0 ? " SeqNum=" + std::to_string(hv.seq) : std::string()) + "; it was not";
				}
	}
	return hv;
}

// How processes ended: the first rank that exited on its own with an error
// code (not a signal: signals are the launcher's teardown), and the rank
// srun did not have to tear down when it killed all the others.
struct exit_view {
	const event *first_self_exit = nullptr;
	std::vector<int> not_torn_down;
};

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
	int world = std::max(ev.ranks.world_size(), max_task + 1);
	if (!torn_down.empty() && world >= 2 && static_cast<int>(torn_down.size()) >= world - 1)
		for (int r = 0; r < world; r++)
			if (!torn_down.count(r))
				xv.not_torn_down.push_back(r);
	return xv;
}

// A fault while the job was still starting is a launch failure whatever it
// says. Nothing had run yet: no rank reported progress and no collective
// beyond the first completed. PyTorch creates NCCL communicators at the
// first collective, so an NCCL transport error then is an NCCL init failure;
// a CUDA error counts only when NCCL says it failed in its init code or the
// rank never completed NCCL init while others did (an out-of-memory in the
// first forward pass is not a launch failure).
bool during_startup(const evidence &ev, const event &e)
{
	if (!ev.last_progress.empty())
		return false;
	for (const auto &x : ev.events)
		if (x.last_completed > 1 || x.seq > 2)
			return false;
	if (e.cls == failure_class::network)
		return true;
	for (const char *where : {"init.cc:", "bootstrap.cc:", "ncclCommInitRank"})
		if (e.text.find(where) != std::string::npos)
			return true;
	if (e.rank < 0)
		return false;
	bool others = false;
	for (const auto &x : ev.events)
		if (x.kind == rule_kind::rank_map && x.rank >= 0) {
			if (x.rank == e.rank)
				return false;
			others = true;
		}
	return others;
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

std::string who(int rank, const std::string &host)
{
	if (rank >= 0 && !host.empty())
		return "rank " + std::to_string(rank) + " on " + host;
	if (rank >= 0)
		return "rank " + std::to_string(rank);
	if (!host.empty())
		return "a rank on " + host;
	return "a rank";
}

std::string class_phrase(const event *e, failure_class c, const knowledge &kn)
{
	if (e && e->r && !e->r->summary.empty()) {
		return fill_template(e->r->summary, [&](const std::string &name) { return e->capture(name); });
	}
	switch (c) {
	case failure_class::gpu_hardware:
		if (e && e->xid >= 0) {
			const xid_info *x = kn.xid(e->xid);
			return "hit GPU Xid " + std::to_string(e->xid) + (x && !x->name.empty() ? " (" + x->name + ")" : "");
		}
		return "hit a GPU hardware fault";
	case failure_class::cuda_oom: return "ran out of GPU memory";
	case failure_class::host_oom: return "was killed for lack of host memory";
	case failure_class::network: return "hit a network/transport error";
	case failure_class::collective_hang: return "stopped participating in collectives";
	case failure_class::python_exception: {
		std::string exc = e ? e->capture("exc") : "";
		return exc.empty() ? "raised an exception" : "raised " + exc;
	}
	case failure_class::nan_inf: return "produced NaN/Inf values";
	case failure_class::cuda_error: return "hit a CUDA error";
	case failure_class::segfault: return "crashed in native code";
	case failure_class::filesystem: return "hit a filesystem error";
	case failure_class::launch_failure: return "failed to start";
	case failure_class::time_limit: return "the job reached its time limit";
	case failure_class::preemption: return "the job was preempted";
	case failure_class::user_cancel: return "the job was cancelled";
	case failure_class::node_failure: return "a node of the job failed";
	case failure_class::unknown: return "no recognisable cause in the logs";
	}
	return "";
}

evidence_line to_line(const evidence &ev, const event &e)
{
	evidence_line l;
	l.rank = e.rank;
	l.host = e.host >= 0 ? ev.host_name(e.host) : "";
	l.time = iso(e.time_us);
	l.role = e.role;
	l.rule = e.r ? e.r->id : e.rule_id;
	l.source = event_source(ev, e);
	l.line = e.text;
	return l;
}

// A synthetic event for the job's final state when no log line said it.
bool sacct_state_event(const evidence &ev, event &out)
{
	const std::string &s = ev.job.state;
	failure_class c;
	if (s == "TIMEOUT" || s == "DEADLINE")
		c = failure_class::time_limit;
	else if (s == "PREEMPTED")
		c = failure_class::preemption;
	else if (s == "NODE_FAIL" || s == "BOOT_FAIL")
		c = failure_class::node_failure;
	else if (s == "CANCELLED")
		c = failure_class::user_cancel;
	else if (s == "OUT_OF_MEMORY")
		c = failure_class::host_oom;
	else
		return false;
	out = event();
	out.rule_id = "sacct.state";
	out.cls = c;
	out.role = event_role::initiating;
	out.kind = c == failure_class::host_oom ? rule_kind::plain : rule_kind::job_end;
	out.weight = c == failure_class::host_oom ? 60 : c == failure_class::node_failure ? 88 : 45;
	out.time_us = out.raw_us = ev.job.end_us;
	out.text = "sacct: job " + ev.job.job_id + " " + ev.job.state_detail;
	out.file = UINT32_MAX;
	return true;
}

} // namespace

bool parse_uint_str(const std::string &s, long long &out)
{
	return parse_uint(s, out);
}

verdict diagnose(diagnosis_input &in)
{
	evidence &ev = *in.ev;
	const knowledge &kn = *in.kn;
	const clock_result &clk = *in.clock;
	verdict v;
	v.job_id = ev.job.job_id;

	apply_xid_table(ev, kn);
	drop_stale_kernel_events(ev);
	mark_decoys(ev);

	// Candidates for the first fault.
	std::vector<candidate> cands;
	bool have_job_end_line = false;
	for (auto &e : ev.events) {
		if (e.dropped || e.decoy)
			continue;
		if (e.kind == rule_kind::job_end && e.role != event_role::victim && e.role != event_role::context)
			have_job_end_line = true;
		if (e.role != event_role::initiating)
			continue;
		candidate c;
		c.e = &e;
		c.unc = clk.uncertainty(e.host) + (e.inherited_time ? std::max(1.0, e.time_unc_s) : 0.0);
		cands.push_back(c);
	}
	event sacct_ev;
	bool have_sacct = sacct_state_event(ev, sacct_ev);
	if (have_sacct && !(have_job_end_line && sacct_ev.kind == rule_kind::job_end)) {
		candidate c;
		c.e = &sacct_ev;
		c.unc = 5.0;
		cands.push_back(c);
	}

	auto earlier = [](const candidate &a, const candidate &b) {
		if (a.e->time_us != b.e->time_us)
			return a.e->time_us < b.e->time_us;
		if (a.e->weight != b.e->weight)
			return a.e->weight > b.e->weight;
		return a.e->order < b.e->order;
	};

	candidate best;
	std::vector<candidate> ties;    // other first faults the clocks cannot order
	std::vector<candidate> support; // corroborating the first (same fault, other words)
	int borrowed_rank = -1;         // the first fault named no rank; structure did
	int common_mode = 0;            // ranks that hit the same fault at once
	int common_host = -1;
	std::vector<candidate> timed, untimed;
	for (const auto &c : cands)
		(c.e->time_us != no_time ? timed : untimed).push_back(c);
	std::sort(timed.begin(), timed.end(), earlier);
	std::sort(untimed.begin(), untimed.end(), [](const candidate &a, const candidate &b) {
		if (a.e->weight != b.e->weight)
			return a.e->weight > b.e->weight;
		return a.e->order < b.e->order;
	});
	if (!timed.empty())
		best = timed.front();
	else if (!untimed.empty())
		best = untimed.front();

	if (best.e) {
		// A stronger fault close by explains the earliest one: on the same
		// host within a window (the Xid behind a CUDA error), or anywhere
		// within the clocks' uncertainty (then the order is not known).
		for (const auto &c : timed) {
			if (c.e == best.e || c.e->weight <= best.e->weight || best.e->time_us == no_time)
				continue;
			double dt = static_cast<double>(c.e->time_us - best.e->time_us) / 1e6;
			bool same_host = c.e->host >= 0 && c.e->host == best.e->host;
			if (same_host && std::fabs(dt) <= same_host_window_s) {
				best = c;
			} else if (std::fabs(dt) <= c.unc + best.unc) {
				ties.push_back(best);
				best = c;
			}
		}
		for (const auto &c : untimed) {
			if (c.e == best.e)
				continue;
			if (c.e->weight > best.e->weight) {
				ties.push_back(best);
				best = c;
			} else if (best.e->time_us == no_time || c.e->weight == best.e->weight) {
				ties.push_back(c);
			}
		}
		// Other ranks' faults within the uncertainty also tie.
		for (const auto &c : timed) {
			if (c.e == best.e || best.e->time_us == no_time)
				continue;
			double dt = std::fabs(static_cast<double>(c.e->time_us - best.e->time_us) / 1e6);
			if (dt <= c.unc + best.unc && c.e->rank != best.e->rank &&
			    std::none_of(ties.begin(), ties.end(), [&](const candidate &t) { return t.e == c.e; }))
				ties.push_back(c);
		}
		// A fault that names no rank takes the rank of the earliest
		// fault of the same class that does (the cgroup's "oom_kill event"
		// and srun's "task 5: Out Of Memory").
		if (best.e->rank < 0) {
			const candidate *named = nullptr;
			for (const auto &c : cands)
				if (c.e->cls == best.e->cls && c.e->rank >= 0 &&
				    (!named || (c.e->time_us != no_time &&
						(named->e->time_us == no_time || c.e->time_us < named->e->time_us))))
					named = &c;
			if (named) {
				support.push_back(best);
				best = *named;
			}
		}
		// Still no rank: how processes ended may say whose fault it was.
		if (best.e->rank < 0 && !job_level(best.e->cls)) {
			exit_view xv = analyse_exits(ev);
			std::vector<int> killed = sigkilled_ranks(ev);
			int borrowed = -1;
			if (best.e->cls == failure_class::host_oom && killed.size() == 1)
				borrowed = killed[0];
			else if (xv.first_self_exit &&
			    (best.e->host < 0 || xv.first_self_exit->host < 0 || xv.first_self_exit->host == best.e->host))
				borrowed = xv.first_self_exit->rank;
			else if (xv.not_torn_down.size() == 1)
				borrowed = xv.not_torn_down[0];
			if (borrowed >= 0) {
				borrowed_rank = borrowed;
				if (xv.first_self_exit && xv.first_self_exit->rank == borrowed)
					support.push_back(candidate{const_cast<event *>(xv.first_self_exit), 0});
			}
		}
		// The same fault on many ranks at once (an import error everywhere,
		// every agent's rendezvous timing out) is the environment's, not
		// one rank's: nobody is singled out.
		{
			std::set<int> same;
			std::set<int> hosts;
			for (const auto &c : cands) {
				if (c.e->rank < 0 || (c.e->r ? c.e->r != best.e->r : c.e->rule_id != best.e->rule_id))
					continue;
				bool together = c.e->time_us == no_time || best.e->time_us == no_time ||
						std::fabs(static_cast<double>(c.e->time_us - best.e->time_us)) / 1e6 <=
							c.unc + best.unc + 1.0;
				if (together) {
					same.insert(c.e->rank);
					hosts.insert(c.e->host);
				}
			}
			// Transport errors show on both ends of a link by nature: not
			// an environment-wide fault.
			if (same.size() >= 3 && best.e->cls != failure_class::network) {
				common_mode = static_cast<int>(same.size());
				common_host = hosts.size() == 1 ? *hosts.begin() : -1;
			}
		}
		// A node that failed explains the transport errors and hangs of
		// the ranks that lost it.
		if (best.e->cls == failure_class::network || best.e->cls == failure_class::collective_hang) {
			for (const auto &c : cands)
				if (c.e->cls == failure_class::node_failure) {
					best = c;
					break;
				}
		}
	}

	hang_view hv = analyse_watchdogs(ev);
	if (in.fr.present && !in.fr.suspects.empty() && hv.suspects.empty()) {
		hv.suspects = in.fr.suspects;
		hv.why = "the flight recorder shows it never joined the collective the others wait in";
	}

	failure_class cls = failure_class::unknown;
	const event *first = nullptr;
	int first_rank = -1;
	int first_host = -1;
	bool rank_singled_out = false;
	std::string confidence = "low";

	if (best.e) {
		first = best.e;
		cls = best.e->cls;
		first_rank = best.e->rank >= 0 ? best.e->rank : borrowed_rank;
		first_host = best.e->host;
		if (first_host < 0 && first_rank >= 0)
			if (const rank_info *ri = ev.ranks.by_rank(first_rank))
				first_host = ri->host;
		// A weak lead (a transport error) loses to a clear structural
		// suspect elsewhere: the rank that stopped is the cause.
		if (best.e->weight < 50 && hv.suspects.size() == 1 && hv.suspects[0] != first_rank &&
		    cls != failure_class::node_failure && !job_level(cls)) {
			cls = failure_class::collective_hang;
			first_rank = hv.suspects[0];
			first_host = -1;
			if (const rank_info *ri = ev.ranks.by_rank(first_rank))
				first_host = ri->host;
			first = nullptr;
		}
		if ((cls == failure_class::network || cls == failure_class::cuda_oom || cls == failure_class::cuda_error) &&
		    first && during_startup(ev, *first))
			cls = failure_class::launch_failure;
		if (common_mode > 0) {
			first_rank = -1;
			first_host = common_host;
		}
		// A node's launcher or the job as a whole reported it: no rank.
		if (first && first->r && first->r->scope != rule::fault_scope::rank) {
			first_rank = -1;
			if (first->r->scope == rule::fault_scope::job)
				first_host = -1;
		}
		if (job_level(cls)) {
			first_rank = -1;
			if (cls != failure_class::node_failure)
				first_host = -1;
		}
		rank_singled_out = first_rank >= 0 || (first_host >= 0 && cls == failure_class::node_failure);
		bool tie_other_rank = std::any_of(ties.begin(), ties.end(), [&](const candidate &t) {
			return t.e->rank != first_rank || t.e->cls != cls;
		});
		if (job_level(cls))
			confidence = have_job_end_line && have_sacct ? "high" : "medium";
		else if (first_rank >= 0 && borrowed_rank < 0 && !tie_other_rank && !best.e->inherited_time &&
			 best.e->time_us != no_time)
			confidence = "high";
		else if (first_rank >= 0 || first_host >= 0)
			confidence = "medium";
		else
			confidence = "low";
		if (first && first->role == event_role::initiating && best.e->weight < 50 && confidence == "high")
			confidence = "medium";
		if (common_mode > 0)
			confidence = "medium";
	} else if (std::vector<int> killed = sigkilled_ranks(ev); killed.size() == 1) {
		// One process SIGKILLed and nothing else to say: the OOM killer's
		// signature, though its own line was not among the logs (the
		// others then wait for it in a collective: it is why they hang).
		cls = failure_class::host_oom;
		first_rank = killed[0];
		if (const rank_info *ri = ev.ranks.by_rank(first_rank))
			first_host = ri->host;
		for (const auto &e : ev.events)
			if (!e.dropped && e.kind == rule_kind::task_exit && e.signal == 9 &&
			    (e.rank == first_rank || parse_task_list(e.capture("task")) == std::vector<int>{first_rank})) {
				first = &e;
				break;
			}
		rank_singled_out = true;
		confidence = "low";
	} else if (exit_view xv = analyse_exits(ev); hv.suspects.size() != 1 && xv.first_self_exit) {
		// Nothing says why, but one rank ended on its own before the rest
		// were taken down: it went first, for a reason the logs keep.
		first = xv.first_self_exit;
		cls = failure_class::unknown;
		first_rank = first->rank;
		first_host = first->host;
		rank_singled_out = true;
		confidence = "low";
	} else if (hv.reporting > 0) {
		cls = failure_class::collective_hang;
		if (hv.suspects.size() == 1) {
			first_rank = hv.suspects[0];
			if (const rank_info *ri = ev.ranks.by_rank(first_rank))
				first_host = ri->host;
			rank_singled_out = true;
			confidence = "medium";
		}
	} else {
		// Only victims: name what they say, blame nobody.
		std::map<failure_class, int> vc;
		for (const auto &e : ev.events)
			if (!e.dropped && e.role == event_role::victim)
				vc[e.cls]++;
		if (!vc.empty()) {
			cls = std::max_element(vc.begin(), vc.end(), [](auto &a, auto &b) { return a.second < b.second; })->first;
			if (cls == failure_class::unknown)
				cls = failure_class::unknown;
		}
		if (in.fr.present && in.fr.suspects.size() == 1) {
			cls = failure_class::collective_hang;
			first_rank = in.fr.suspects[0];
			if (const rank_info *ri = ev.ranks.by_rank(first_rank))
				first_host = ri->host;
			rank_singled_out = true;
			confidence = "medium";
		}
	}

	v.cls = cls;
	v.has_first = rank_singled_out;
	v.first_rank = rank_singled_out ? first_rank : -1;
	v.first_host = rank_singled_out && first_host >= 0 ? ev.host_name(first_host) : "";
	if (first && first->file != UINT32_MAX)
		v.first_event = static_cast<long>(first - ev.events.data());
	if (first) {
		v.first_time = iso(first->time_us);
		v.first_source = first->file == UINT32_MAX ? "sacct" : event_source(ev, *first);
		v.first_line = first->text;
	}
	v.confidence = confidence;

	// Victims: every other rank that shows a victim symptom.
	std::set<int> victims;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.rank == v.first_rank)
			continue;
		if (e.role == event_role::victim || e.kind == rule_kind::watchdog)
			victims.insert(e.rank);
	}
	v.victims.assign(victims.begin(), victims.end());

	// Next action: per class, per Xid, and Xid 154's stated recovery action.
	action_info act = kn.action_for(cls);
	if (first && first->kind == rule_kind::xid && first->xid >= 0)
		if (const xid_info *x = kn.xid(first->xid)) {
			act.kind = x->action;
			if (!x->text.empty())
				act.text = x->text;
		}
	const event *recovery = nullptr;
	if (cls == failure_class::gpu_hardware) {
		for (const auto &e : ev.events)
			if (!e.dropped && e.kind == rule_kind::xid && e.xid == 154 && e.recovery_action >= 0 &&
			    (first_host < 0 || e.host == first_host))
				recovery = &e;
		if (recovery)
			if (auto ra = kn.recovery_action(recovery->recovery_action)) {
				act.kind = ra->kind;
				act.text = "the driver asks for: " + ra->text;
			}
	}
	v.action = act.kind;
	std::string host_s = first_host >= 0 ? ev.host_name(first_host) : "the node";
	v.action_text = fill_template(act.text, [&](const std::string &name) -> std::string {
		if (name == "host")
			return host_s;
		if (name == "rank")
			return first_rank >= 0 ? std::to_string(first_rank) : "?";
		if (name == "xid")
			return first && first->xid >= 0 ? std::to_string(first->xid) : "?";
		return "";
	});
	// Unknown values read better as words than as a question mark.
	for (const auto &[from, to] : {std::pair<std::string, std::string>{"Rank ?", "The failing rank"},
				       {"rank ?", "the failing rank"}, {"Xid ?", "the Xid"}}) {
		for (size_t p = v.action_text.find(from); p != std::string::npos; p = v.action_text.find(from, p))
			v.action_text.replace(p, from.size(), to);
	}

	// Summary.
	std::string phrase = class_phrase(first, cls, kn);
	v.cause = phrase;
	if (cls == failure_class::collective_hang && !first && rank_singled_out)
		v.cause = "stopped making progress: " + hv.why;
	if (job_level(cls) && cls != failure_class::node_failure)
		v.summary = phrase;
	else if (cls == failure_class::node_failure)
		v.summary = first_host >= 0 ? "node " + ev.host_name(first_host) + " failed" : phrase;
	else if (cls == failure_class::collective_hang && !first) {
		v.summary = rank_singled_out ? who(first_rank, v.first_host) + " stopped making progress: " + hv.why
					     : std::to_string(hv.reporting) + " ranks timed out in collectives" +
					       (hv.seq >= 0 ? " (SeqNum=" + std::to_string(hv.seq) + ")" : std::string()) +
					       "; the logs do not single out the rank that stopped";
	} else if (cls == failure_class::unknown && !rank_singled_out) {
		v.summary = phrase;
	} else if (common_mode > 0) {
		v.summary = std::to_string(common_mode) + " ranks at once" +
			    (first_host >= 0 ? " on " + ev.host_name(first_host) : std::string()) + ": " + phrase;
	} else {
		bool rule_phrase = first && first->r && !first->r->summary.empty();
		v.summary = (rank_singled_out ? who(first_rank, v.first_host) : std::string("a rank")) +
			    (rule_phrase ? ": " : " ") + phrase;
	}
	if (!v.victims.empty() && rank_singled_out && common_mode == 0)
		v.summary += "; " + std::to_string(v.victims.size()) + " other rank" + (v.victims.size() == 1 ? "" : "s") +
			     (hv.reporting > 0 ? " timed out or failed after it" : " failed after it");

	// Evidence: the first fault, what ties with it, the structure, the
	// earliest victims.
	if (first && first->file != UINT32_MAX)
		v.evidence.push_back(to_line(ev, *first));
	else if (first)
		v.evidence.push_back(evidence_line{-1, "", iso(first->time_us), event_role::initiating, first->rule_id, "sacct", first->text});
	for (const auto &t : ties) {
		if (v.evidence.size() >= 4)
			break;
		if (t.e != first && t.e->file != UINT32_MAX)
			v.evidence.push_back(to_line(ev, *t.e));
	}
	for (const auto &t : support)
		if (v.evidence.size() < 5 && t.e->file != UINT32_MAX)
			v.evidence.push_back(to_line(ev, *t.e));
	if (recovery)
		v.evidence.push_back(to_line(ev, *recovery));
	if (!first && cls == failure_class::collective_hang) {
		// The suspect's own last words, if any, and the lowest-enqueued report.
		for (const auto &e : ev.events)
			if (!e.dropped && e.rank == first_rank && first_rank >= 0 && e.kind == rule_kind::watchdog) {
				v.evidence.push_back(to_line(ev, e));
				break;
			}
		for (const auto &l : in.fr.lines) {
			if (v.evidence.size() >= 6)
				break;
			v.evidence.push_back(evidence_line{-1, "", "", event_role::context, "fr.analysis", in.fr.source, l});
		}
	}
	std::vector<const event *> vics;
	for (const auto &e : ev.events)
		if (!e.dropped && (e.role == event_role::victim || e.kind == rule_kind::watchdog) && e.rank != v.first_rank)
			vics.push_back(&e);
	std::stable_sort(vics.begin(), vics.end(), [](const event *a, const event *b) {
		int64_t ta = a->time_us == no_time ? INT64_MAX : a->time_us;
		int64_t tb = b->time_us == no_time ? INT64_MAX : b->time_us;
		return ta != tb ? ta < tb : a->order < b->order;
	});
	std::set<std::string> shown_rules;
	for (const event *e : vics) {
		if (v.evidence.size() >= 8)
			break;
		std::string id = e->r ? e->r->id : e->rule_id;
		if (shown_rules.insert(id).second)
			v.evidence.push_back(to_line(ev, *e));
	}

	// Clock offsets of the hosts that matter.
	for (const auto &h : clk.hosts) {
		if (h.first < 0 || static_cast<size_t>(h.first) >= ev.host_count())
			continue;
		v.clock[ev.host_name(h.first)] = clock_entry{h.second.offset_s, h.second.anchors ? h.second.uncertainty_s
												  : clk.default_uncertainty_s};
	}
	if (!ties.empty() && std::any_of(ties.begin(), ties.end(), [&](const candidate &t) { return t.e->rank != v.first_rank; }))
		v.notes.push_back("another rank's fault is within the clocks' uncertainty of the first one; both are in the evidence");
	return v;
}

} // namespace diag
