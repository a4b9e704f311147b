// The first fault: the earliest relevant initiating event on the common
// clock, unless a stronger fault close by explains it; faults the clocks
// cannot order tie with it; a fault that names no rank borrows one from the
// same fault in other words or from how processes ended.
#include "aligning/host_aliases.hh"
#include "deciding/context.hh"
#include "deciding/exits.hh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace diag {

namespace {

// How close in time a rank's CUDA error must be to a GPU fault to be its.
constexpr int64_t cuda_error_reach_us = 10 * us_per_s;

// How far apart two events on one host may be for the stronger one to
// explain the weaker (an Xid and the CUDA error it caused).
constexpr double same_host_window_s = 30.0;

bool earlier(const candidate &a, const candidate &b)
{
	if (a.e->time_us != b.e->time_us)
		return a.e->time_us < b.e->time_us;
	if (a.e->weight != b.e->weight)
		return a.e->weight > b.e->weight;
	return a.e->order < b.e->order;
}

void gather(diagnosis_context &cx)
{
	for (auto &e : cx.ev.events) {
		if (e.dropped || e.decoy)
			continue;
		if (e.kind == rule_kind::job_end && e.role != event_role::victim && e.role != event_role::context)
			cx.have_job_end_line = true;
		if (e.role != event_role::initiating)
			continue;
		candidate c;
		c.e = &e;
		c.unc = cx.clk.uncertainty(e.host) + (e.inherited_time ? std::max(1.0, e.time_unc_s) : 0.0);
		cx.cands.push_back(c);
	}
	if (cx.have_sacct && !(cx.have_job_end_line && cx.sacct_ev.kind == rule_kind::job_end)) {
		candidate c;
		c.e = &cx.sacct_ev;
		c.unc = 5.0;
		cx.cands.push_back(c);
	}
}

bool in_ties(const std::vector<candidate> &ties, const event *e)
{
	return std::any_of(ties.begin(), ties.end(), [&](const candidate &t) { return t.e == e; });
}

// The one rank on a host whose process ended by a signal of its own (an
// abort, a crash: not a launcher's SIGTERM/SIGKILL/SIGINT): where a fault
// of that host that names no rank struck. A fault that names no host
// either (glibc's "free(): invalid pointer", unprefixed) looks at the
// whole job. -1 when none or several. A rank whose watchdog reported a
// collective's timeout and then aborted (SIGABRT) was taken down by its
// watchdog, waiting on the others: that abort is no crash of its own.
int sole_crashed_rank_on(const evidence &ev, int host)
{
	std::set<int> ranks, timed_out;
	for (const auto &e : ev.events)
		if (!e.dropped && e.rank >= 0 && e.kind == rule_kind::watchdog)
			timed_out.insert(e.rank);
	for (const auto &x : rank_exit_signals(ev)) {
		if (x.second <= 0 || stop_signal(x.second) || (x.second == 6 && timed_out.count(x.first)))
			continue;
		const rank_info *ri = ev.ranks.by_rank(x.first);
		if (host < 0 || (ri && ri->host == host))
			ranks.insert(x.first);
	}
	return ranks.size() == 1 ? *ranks.begin() : -1;
}

// The one rank on a node's fault's node (by any of its names) whose event
// of the kind symptom says came within reach of it; -1 where none or
// several did.
int sole_rank_failing_near(const evidence &ev, const event &fault, bool (*symptom)(const event &), int64_t reach_us)
{
	if (fault.host < 0 || fault.time_us == no_time)
		return -1;
	std::set<int> ranks;
	// (The node by any of its names: a pod's and its node's.)
	const std::vector<std::string> names = host_aliases(ev, fault.host);
	auto on_the_node = [&](int host) {
		return host == fault.host ||
		       (host >= 0 && std::find(names.begin(), names.end(), ev.host_name(host)) != names.end());
	};
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || !symptom(e) || e.time_us == no_time)
			continue;
		const rank_info *ri = ev.ranks.by_rank(e.rank);
		int host = e.host >= 0 ? e.host : ri ? ri->host : -1;
		const int64_t reach = reach_us + static_cast<int64_t>((e.time_unc_s + fault.time_unc_s) * 1e6);
		if (on_the_node(host) && std::llabs(e.time_us - fault.time_us) <= reach)
			ranks.insert(e.rank);
	}
	return ranks.size() == 1 ? *ranks.begin() : -1;
}

// A GPU's fault that names no rank (an Xid whose bus id no rank map
// places) on a node where, within seconds of it, exactly one rank's CUDA
// calls failed: that rank's GPU is the one that faulted.
int sole_cuda_error_rank_near(const evidence &ev, const event &fault)
{
	return sole_rank_failing_near(
		ev, fault, [](const event &e) { return e.cls == failure_class::cuda_error; }, cuda_error_reach_us);
}

// A node's storage failing (its filesystem client evicted, its mount gone)
// surfaces as one rank's exception on that node (a PermissionError, an
// OSError reading a sample) some minutes either side of the node's own
// line: that rank met it first.
constexpr int64_t storage_symptom_reach_us = 10LL * 60 * 1000000;

int sole_storage_symptom_rank_near(const evidence &ev, const event &fault)
{
	return sole_rank_failing_near(
		ev, fault,
		[](const event &e) {
			return e.role == event_role::initiating && !e.handled && !e.decoy &&
			       (e.cls == failure_class::python_exception || e.cls == failure_class::filesystem);
		},
		storage_symptom_reach_us);
}

// The process an Xid names (pid=N) is the one whose exit names that pid
// (torchrun's "failed (exitcode: 1) local_rank: 1 (pid: N)"), however the
// two lines name the node (a pdsh address prefix, the kernel's host name).
bool same_process(const evidence &ev, const event &fault, const event &exit)
{
	long long gp, xp;
	if (!parse_uint_str(fault.capture("gpu_pid"), gp) || gp <= 0)
		return false;
	if (exit.pid > 0 && exit.pid == gp)
		return true;
	if (parse_uint_str(exit.capture("pid"), xp) && xp == gp)
		return true;
	const rank_info *ri = exit.rank >= 0 ? ev.ranks.by_rank(exit.rank) : nullptr;
	return ri && ri->pid > 0 && ri->pid == gp;
}

// A fault that names no rank takes the rank of the earliest fault of the
// same class that does (the cgroup's "oom_kill event" and srun's "task 5:
// Out Of Memory"), else what the ends of the processes say.
void borrow_rank(diagnosis_context &cx)
{
	candidate &best = cx.best;
	decision &d = cx.d;
	// A node's report (slurmstepd's cgroup line) carries at most the label
	// of whoever forwarded it: no rank of its own.
	bool node_report = best.e->r && best.e->r->scope == rule::fault_scope::node;
	// A node's report that several of its ranks printed at once (each
	// process saw its port go down) is visibly the node's: a later fault
	// of one of those ranks is what followed, not the same fault.
	if (node_report && ranks_reporting_together(cx, best) >= 2)
		return;
	if (best.e->rank < 0 || node_report) {
		const candidate *named = nullptr;
		for (const auto &c : cx.cands)
			if (c.e != best.e && c.e->cls == best.e->cls && c.e->rank >= 0 &&
			    (!c.e->r || c.e->r->scope == rule::fault_scope::rank) &&
			    (!node_report || c.e->host < 0 || best.e->host < 0 || c.e->host == best.e->host) &&
			    (!named ||
			     (c.e->time_us != no_time && (named->e->time_us == no_time || c.e->time_us < named->e->time_us))))
				named = &c;
		if (named) {
			d.support.push_back(best);
			best = *named;
		}
	}
	if (best.e->rank >= 0 || job_level(best.e->cls))
		return;
	exit_view xv = analyse_exits(cx.ev);
	std::vector<int> killed = sigkilled_ranks(cx.ev);
	int borrowed = -1;
	if (best.e->cls == failure_class::host_oom && killed.size() == 1)
		borrowed = killed[0];
	else if (xv.first_self_exit && !xv.first_exit_in_burst &&
		 (best.e->host < 0 || xv.first_self_exit->host < 0 ||
					xv.first_self_exit->host == best.e->host || same_process(cx.ev, *best.e, *xv.first_self_exit)))
		borrowed = xv.first_self_exit->rank;
	else if (int own = sole_crashed_rank_on(cx.ev, best.e->host); own >= 0)
		borrowed = own;
	else if (int gpu = best.e->cls == failure_class::gpu_hardware ? sole_cuda_error_rank_near(cx.ev, *best.e) : -1;
		 gpu >= 0)
		borrowed = gpu;
	else if (int met = best.e->cls == failure_class::filesystem ? sole_storage_symptom_rank_near(cx.ev, *best.e) : -1;
		 met >= 0)
		borrowed = met;
	else if (xv.not_torn_down.size() == 1)
		borrowed = xv.not_torn_down[0];
	if (borrowed >= 0) {
		d.borrowed_rank = borrowed;
		if (xv.first_self_exit && xv.first_self_exit->rank == borrowed)
			d.support.push_back(candidate{const_cast<event *>(xv.first_self_exit), 0});
	}
}

} // namespace

// How many ranks of best's host reported best's fault within a second of it
// (one host, one clock: no skew between them). Lines that carry their own
// time: an unstamped traceback's time is its neighbour's, and then the
// file's order is all that is known.
size_t ranks_reporting_together(const diagnosis_context &cx, const candidate &best)
{
	std::set<int> ranks;
	for (const auto &c : cx.cands)
		if (c.e->r == best.e->r && c.e->rule_id == best.e->rule_id && c.e->rank >= 0 && c.e->host >= 0 &&
		    c.e->host == best.e->host && c.e->time_us != no_time && best.e->time_us != no_time &&
		    !c.e->inherited_time && !best.e->inherited_time &&
		    std::llabs(c.e->time_us - best.e->time_us) <= us_per_s)
			ranks.insert(c.e->rank);
	return ranks.size();
}

// Slurm's "JOB J ON H CANCELLED ... DUE TO NODE FAILURE" comes from the
// slurmstepd on H, which is still alive: H is a reporter, not the node lost.
bool names_failed_node(const evidence &ev, const event &e)
{
	if (e.host < 0)
		return false;
	std::string reporter = e.capture("reporter");
	return reporter.empty() || reporter != ev.host_name(e.host);
}

void pass_fault_choice(diagnosis_context &cx)
{
	gather(cx);
	std::vector<candidate> timed, untimed;
	for (const auto &c : cx.cands)
		(c.e->time_us != no_time ? timed : untimed).push_back(c);
	std::sort(timed.begin(), timed.end(), earlier);
	std::sort(untimed.begin(), untimed.end(), [](const candidate &a, const candidate &b) {
		if (a.e->weight != b.e->weight)
			return a.e->weight > b.e->weight;
		return a.e->order < b.e->order;
	});
	candidate &best = cx.best;
	if (!timed.empty())
		best = timed.front();
	else if (!untimed.empty())
		best = untimed.front();
	if (!best.e)
		return;
	std::vector<candidate> &ties = cx.d.ties;
	// A stronger fault close by explains the earliest one: on the same host
	// within a window (the Xid behind a CUDA error), or anywhere within the
	// clocks' uncertainty (then the order is not known).
	for (const auto &c : timed) {
		// (As strong, of the same class and rank, with a time of its own inside
		// the span that the earliest's is only bounded to by the lines
		// around it, in another file (in one, the lines' order is known):
		// the same fault seen twice, and this one's time is known. Not a
		// report of the job's end: that comes after.)
		bool better_known = c.e->weight == best.e->weight && c.e->cls == best.e->cls && c.e->rank == best.e->rank &&
				    best.e->inherited_time && c.e->file != best.e->file &&
				    !c.e->inherited_time && c.e->kind != rule_kind::job_end &&
				    std::llabs(c.e->time_us - best.e->time_us) <= static_cast<int64_t>(best.e->time_unc_s * 1e6);
		if (c.e == best.e || (c.e->weight <= best.e->weight && !better_known) || best.e->time_us == no_time)
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
		// A kernel line whose time is unknown (boot-relative, no boot time)
		// may be from before the job: it explains a timed fault of its own
		// node, not one of another node.
		if (best.e->time_us != no_time && cx.ev.sources()[c.e->file].kind == source_kind::kernel_log &&
		    c.e->host >= 0 && best.e->host >= 0 && c.e->host != best.e->host)
			continue;
		// An unstamped line below a stamped one of its file came after
		// it: later than the first fault of the same file, it is no tie.
		if (best.e->raw_us != no_time && c.e->not_before_raw_us != no_time && c.e->file == best.e->file &&
		    c.e->not_before_raw_us > best.e->raw_us + static_cast<int64_t>(us_per_s) && c.e->weight <= best.e->weight)
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
		if (dt <= c.unc + best.unc && c.e->rank != best.e->rank && !in_ties(ties, c.e))
			ties.push_back(c);
	}
	borrow_rank(cx);
	// A node that failed explains the transport errors and hangs of the
	// ranks that lost it.
	if (best.e->cls == failure_class::network || best.e->cls == failure_class::collective_hang) {
		for (const auto &c : cx.cands)
			if (c.e->cls == failure_class::node_failure) {
				best = c;
				break;
			}
	}
	// A node lost after the cloud said it reclaims it (a preemption naming
	// that node, not after it): the reclaim, not a failure.
	if (best.e->cls == failure_class::node_failure && best.e->host >= 0) {
		for (const auto &c : cx.cands)
			if (c.e->cls == failure_class::preemption && c.e->host == best.e->host &&
			    (c.e->time_us == no_time || best.e->time_us == no_time ||
			     c.e->time_us <= best.e->time_us + static_cast<int64_t>(same_host_window_s * 1e6))) {
				cx.d.support.push_back(best);
				best = c;
				break;
			}
	}
	if (best.e->cls == failure_class::node_failure && !names_failed_node(cx.ev, *best.e)) {
		// The report of a survivor: the line that names the node lost
		// (srun's "Node failure on H") says which.
		for (const auto &c : cx.cands)
			if (c.e != best.e && c.e->cls == failure_class::node_failure && names_failed_node(cx.ev, *c.e)) {
				cx.d.support.push_back(best);
				best = c;
				break;
			}
	}
}

} // namespace diag
