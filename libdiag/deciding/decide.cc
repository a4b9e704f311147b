// The class and the first rank, from the first fault and the structure:
// a weak lead loses to a clear structural suspect; a fault reported by a
// node's launcher or the job names no rank; with no initiating event at
// all, how processes ended and who stopped in a hang still say something.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"
#include "deciding/exits.hh"
#include "aligning/identities.hh"

#include <algorithm>
#include <csignal>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace diag {

namespace {

// The node whose kernel saw its link fail is where the job broke: its line
// is the first, with no rank of its own (low confidence: only victims
// spoke of the job).
void first_is_the_link(decision &d, const event &link, std::string note)
{
	d.first = &link;
	d.first_host = link.host;
	d.rank_singled_out = true;
	d.confidence = "low";
	d.notes.push_back(std::move(note));
}

// The earliest time a victim reported (no_time: none had one).
int64_t first_victim_us(const evidence &ev)
{
	int64_t t = no_time;
	for (const auto &e : ev.events)
		if (!e.dropped && e.role == event_role::victim && e.time_us != no_time && (t == no_time || e.time_us < t))
			t = e.time_us;
	return t;
}

// The one node's kernel link failure within [from, to] (the earliest, or
// the latest where latest), or nullptr where none, or several nodes', was.
const event *one_nodes_link_fault_within(const evidence &ev, int64_t from, int64_t to, bool latest)
{
	const event *link = nullptr;
	for (const auto &e : ev.events) {
		if (e.host < 0 || e.time_us == no_time || e.time_us < from || e.time_us > to ||
		    !kernel_link_fault(ev, e, e.host))
			continue;
		if (link && link->host != e.host)
			return nullptr;
		if (!link || (latest ? e.time_us > link->time_us : e.time_us < link->time_us))
			link = &e;
	}
	return link;
}

// A collective's watchdog fires its timeout after the collective began;
// the link that went down then (within a minute either side of the
// earliest such start) is what stalled it.
constexpr int64_t link_slack_us = 60LL * 1000000;

// The one node's kernel link failure at the start of the collective the
// ranks timed out in (the earliest watchdog's time less its timeout), or
// nullptr where no such timeout says when it began, or no one node's link
// went down then (another node's, then too, leaves no one node).
const event *link_down_as_the_collective_began(const evidence &ev)
{
	int64_t began = no_time, fired = no_time;
	for (const auto &e : ev.events) {
		const int64_t start = e.dropped || e.kind != rule_kind::watchdog ? no_time : collective_began_us(e);
		if (start == no_time)
			continue;
		if (began == no_time || start < began)
			began = start;
		if (fired == no_time || e.time_us < fired)
			fired = e.time_us;
	}
	if (began == no_time)
		return nullptr;
	// (Of the kernels' link failures only those then: a node whose link
	// flapped half an hour before, the job stepping on, broke nothing.)
	return one_nodes_link_fault_within(ev, began - link_slack_us, std::min(began + link_slack_us, fired), false);
}

// How long before the first report of a hang its suspect's link may have
// failed and still be what cut it off: a coordinator's heartbeat timeout
// (100 s by default) or a store's keep-alive, with room for a NIC's
// retries.
constexpr int64_t link_before_hang_us = 10LL * 60 * 1000000;

// The suspect rank's node's own kernel seeing its link stall or go down in
// the minutes before the first report of the hang, where no other node's
// kernel saw its own fail then; nullptr otherwise.
const event *suspects_link_failed_before(const evidence &ev, int rank)
{
	const rank_info *ri = ev.ranks.by_rank(rank);
	if (!ri || ri->host < 0)
		return nullptr;
	const int64_t reported = first_victim_us(ev);
	if (reported == no_time)
		return nullptr;
	const event *link = one_nodes_link_fault_within(ev, reported - link_before_hang_us, reported, true);
	return link && link->host == ri->host ? link : nullptr;
}

// The victim the logs show first (by line within a file, else by time).
const event *first_victim_in_file_order(const evidence &ev)
{
	const event *first = nullptr;
	for (const auto &e : ev.events)
		if (!e.dropped && e.role == event_role::victim && (!first || came_before(e, *first)))
			first = &e;
	return first;
}

// The job's host a network error's peer names ("10.44.2.12<48211>",
// "pe-x13<50387>", "pe-x13.cluster<...>"): by an address a host's lines
// gave, else by its name.
int peer_host(const evidence &ev, const std::string &peer)
{
	const std::string addr = peer_address(peer);
	if (int h = host_with_address(ev, addr); h >= 0)
		return h;
	int found = -1;
	for (size_t h = 0; h < ev.host_count() && !addr.empty(); h++)
		if (same_machine(ev.host_name(static_cast<int>(h)), addr)) {
			if (found >= 0)
				return -1;
			found = static_cast<int>(h);
		}
	return found;
}

// Only victims, of the network: every connection that another node's
// ranks saw closed or reset by its peer names the same node, and that
// node's ranks saw none closed by another (with both ends closing, which
// went first is not known). That node's processes or link went away; the
// one rank there with a network error of its own is the first.
bool victims_name_one_node(diagnosis_context &cx)
{
	decision &d = cx.d;
	evidence &ev = cx.ev;
	std::set<int> named;
	std::map<int, std::set<int>> names_of; // reporter host -> hosts it names
	for (const auto &e : ev.events) {
		if (e.dropped || e.role != event_role::victim || e.cls != failure_class::network || e.capture("peer").empty() ||
		    std::none_of(e.captures.begin(), e.captures.end(), [](const auto &c) { return c.first == "peer_closed"; }))
			continue;
		int reporter = e.host >= 0 ? e.host : e.rank >= 0 ? rank_host(ev, e.rank) : -1;
		int h = peer_host(ev, e.capture("peer"));
		if (reporter < 0 || h < 0 || h == reporter)
			continue;
		names_of[reporter].insert(h);
		named.insert(h);
	}
	// (Where the connections that broke were several, and one node is an
	// end of every one of them, whichever end reported: that node's
	// processes or link went, its own reports of a reset included.)
	int node = -1;
	const bool one_named = named.size() == 1 && !names_of.count(*named.begin());
	if (one_named) {
		node = *named.begin();
	} else {
		std::set<std::pair<int, int>> links;
		for (const auto &[reporter, hosts] : names_of)
			for (int h : hosts)
				links.insert({std::min(reporter, h), std::max(reporter, h)});
		std::map<int, size_t> ends;
		for (const auto &l : links) {
			ends[l.first]++;
			ends[l.second]++;
		}
		for (const auto &[h, n] : ends)
			if (n == links.size()) {
				if (node >= 0)
					return false;
				node = h;
			}
		if (links.size() < 3 || node < 0)
			return false;
	}
	std::set<int> ranks_there;
	const event *own = nullptr;
	for (const auto &e : ev.events) {
		if (e.dropped || e.cls != failure_class::network || e.rank < 0 || e.role == event_role::context)
			continue;
		int h = e.host >= 0 ? e.host : rank_host(ev, e.rank);
		if (h != node)
			continue;
		ranks_there.insert(e.rank);
		if (!own || earlier_event(e, *own))
			own = &e;
	}
	d.first_host = node;
	d.rank_singled_out = true;
	d.confidence = "low";
	if (ranks_there.size() == 1) {
		d.first = own;
		d.first_rank = own->rank;
	}
	d.notes.push_back(one_named ? "only victims' symptoms in the logs; the ranks of other nodes that lost a connection all name " +
					      ev.host_name(node) + " as the peer that went away"
				    : "only victims' symptoms in the logs; " + ev.host_name(node) +
					      " is an end of every connection the ranks saw broken, whichever end reported it");
	return true;
}

void from_first_fault(diagnosis_context &cx)
{
	decision &d = cx.d;
	const event *b = cx.best.e;
	d.first = b;
	d.cls = b->cls;
	d.first_rank = b->rank >= 0 ? b->rank : d.borrowed_rank;
	d.first_host = b->host;
	// A fault that names no rank (an Xid without a bus-id map) on the node
	// where the one rank the hang's structure singles out is known to run:
	// that rank's. So is one that names no node either, in a job that shows
	// one machine only (every rank there).
	// A start-up barrier's reports name the one process the others waited
	// for: that process is the first, wherever the reporters ran, and the
	// reports alike on every rank are its victims, not the environment's.
	const bool named_at_start =
		d.cls == failure_class::launch_failure && cx.hv.stall_reports > 0 && cx.hv.suspects.size() == 1;
	if (named_at_start) {
		d.common_mode = 0;
		d.first_rank = cx.hv.suspects[0];
		d.borrowed_rank = d.first_rank;
		// (A fault that names no rank may be that process's own: its node
		// stays where the rank's is unknown.)
		const int h = rank_host(cx.ev, d.first_rank);
		d.first_host = h >= 0 ? h : b->rank < 0 ? b->host : -1;
		d.hang_why = cx.hv.why;
		d.notes.push_back("the start-up barrier's reports name rank " + std::to_string(d.first_rank) +
				  " as the one process that never registered");
	}
	if (d.first_rank < 0 && !job_level(d.cls) && cx.hv.suspects.size() == 1) {
		int s = cx.hv.suspects[0];
		int s_host = rank_host(cx.ev, s);
		if ((b->host >= 0 && s_host == b->host) || (b->host < 0 && one_machine(cx.ev))) {
			d.first_rank = s;
			d.borrowed_rank = s;
			d.notes.push_back("the first fault names no rank; rank " + std::to_string(s) + " is the one " + cx.hv.why);
		}
	}
	// The same, on the fault's node alone: a GPU that faulted leaves its
	// own rank stuck and silent while the node's other ranks wait in the
	// collective and time out; ranks of other nodes may have been killed
	// before their watchdogs fired. Every rank of the world must have a
	// known host, and the node's other ranks all be seen waiting.
	if (d.first_rank < 0 && !job_level(d.cls) && cx.hv.suspects.size() != 1 && b->host >= 0 &&
	    !cx.hv.waiting.empty() && cx.ev.ranks.world_size() <= 4096) {
		std::vector<int> idle;
		int waiting_here = 0;
		bool placed = true;
		for (int r = 0; r < cx.ev.ranks.world_size() && placed; r++) {
			int h = rank_host(cx.ev, r);
			if (h < 0 && !cx.hv.waiting.count(r))
				placed = false; // a silent rank of unknown host could be the node's
			else if (h == b->host && cx.hv.waiting.count(r))
				waiting_here++;
			else if (h == b->host)
				idle.push_back(r);
		}
		if (placed && idle.size() == 1 && waiting_here >= 1) {
			d.first_rank = idle[0];
			d.borrowed_rank = idle[0];
			d.notes.push_back("the first fault names no rank; rank " + std::to_string(idle[0]) +
					  " is the one rank of its node not seen waiting in the collective that the node's " +
					  std::to_string(waiting_here) + " other rank(s) timed out in");
		}
	}
	// A weak lead (a transport error) loses to a clear structural suspect
	// elsewhere: the rank that stopped is the cause.
	if (b->weight < 50 && cx.hv.suspects.size() == 1 && cx.hv.suspects[0] != d.first_rank &&
	    d.cls != failure_class::node_failure && !job_level(d.cls)) {
		d.cls = failure_class::collective_hang;
		d.first_rank = cx.hv.suspects[0];
		d.first_host = -1;
		d.first = nullptr;
		d.hang_why = cx.hv.why;
	}
	if (d.common_mode > 0) {
		d.first_rank = -1;
		d.first_host = d.common_host;
	}
	// A node's launcher or the job as a whole reported it: no rank of its
	// own (a node's line carries at most the label that forwarded it). A
	// node's OOM report is of a process the OOM killer took: the rank
	// borrowed from how that node's processes ended (the one SIGKILLed)
	// still stands.
	if (d.first && d.first->r && d.first->r->scope != rule::fault_scope::rank) {
		int bh = d.borrowed_rank >= 0 ? rank_host(cx.ev, d.borrowed_rank) : -1;
		bool on_the_node = d.first->r->scope == rule::fault_scope::node && d.cls == failure_class::host_oom &&
				   d.borrowed_rank >= 0 && d.first_rank == d.borrowed_rank &&
				   (bh < 0 || d.first_host < 0 || bh == d.first_host);
		if (!on_the_node)
			d.first_rank = -1;
		if (d.first->r->scope == rule::fault_scope::job)
			d.first_host = -1;
	}
	// The job's end as a whole names no node, but a node lost (failed, or
	// reclaimed alone: a rule of node scope, Ray's node preempted) is one.
	if (job_level(d.cls)) {
		d.first_rank = -1;
		if (d.cls != failure_class::node_failure &&
		    !(d.first && d.first->r && d.first->r->scope == rule::fault_scope::node))
			d.first_host = -1;
	}
	// A fault that names its node but no rank still says which node to
	// look at (an Xid without a bus-id map, a node's OOM killer).
	d.rank_singled_out = d.first_rank >= 0 || d.first_host >= 0;
	d.from_initiator = true;
}

// Whether every watchdog report came before the kill (same file: by line;
// else by time), and the killed rank reported none.
bool killed_after_the_timeouts(const evidence &ev, const event &kill)
{
	int reports = 0;
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::watchdog)
			continue;
		if (e.rank >= 0 && e.rank == kill.rank)
			return false;
		bool before = e.file == kill.file ? e.line < kill.line
						  : e.time_us != no_time && kill.time_us != no_time && e.time_us < kill.time_us;
		if (!before)
			return false;
		reports++;
	}
	return reports > 0;
}

// Whether every watchdog report came after the exit (same file: by line;
// else by time): the rank was gone before anyone waited for it.
bool exited_before_the_timeouts(const evidence &ev, const event &exit)
{
	int reports = 0;
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::watchdog)
			continue;
		bool after = e.file == exit.file ? e.line > exit.line
						 : e.time_us != no_time && exit.time_us != no_time && e.time_us > exit.time_us;
		if (!after)
			return false;
		reports++;
	}
	return reports > 0;
}

// Whether the exiting rank had logged a victim's symptom (a store or
// rendezvous wait that timed out, a lost peer): its exit is explained by
// what it waited for, not a reason of its own.
bool suffered_first(const evidence &ev, const event &exit)
{
	for (const auto &e : ev.events)
		if (!e.dropped && e.role == event_role::victim && e.kind != rule_kind::task_exit && e.rank >= 0 &&
		    e.rank == exit.rank)
			return true;
	return false;
}

// Whether a process launcher reported the signal of one worker it ran
// (torchrun's "exitcode: -9", mp.spawn's "process 0 terminated with signal
// SIGKILL", mpirun's "exited on signal 9"), not Slurm its task's.
bool launcher_saw_the_kill(const event &e)
{
	return e.capture("task").empty() &&
	       (!e.capture("exitcode").empty() || !e.capture("local_rank").empty() || !e.capture("signal").empty());
}

// Whether anything announced a stop from outside the job's processes: the
// senders of a SIGKILL other than an OOM killer.
bool stopped_from_outside(const evidence &ev)
{
	for (const auto &e : ev.events)
		if (e.cls == failure_class::user_cancel || e.cls == failure_class::time_limit ||
		    e.cls == failure_class::preemption || e.cls == failure_class::node_failure)
			return true;
	return false;
}

// The last exception with a class that the exit's own writer (its file and
// host) raised in the lines before the exit, naming no other rank.
const event *own_exception_before(const evidence &ev, const event &exit)
{
	constexpr uint64_t window = 64;
	const event *out = nullptr;
	for (const auto &e : ev.events)
		if (!e.dropped && e.kind == rule_kind::exception && e.cls != failure_class::unknown && e.file == exit.file &&
		    e.host == exit.host && e.line < exit.line && exit.line - e.line <= window &&
		    (e.rank < 0 || e.rank == exit.rank) && (!out || e.line > out->line))
			out = &e;
	return out;
}

// Every rank that ended on its own had timed out waiting in a collective
// (as many hang timeouts as such ranks, and nothing else to say), and the
// launcher had to stop the one rank still running (its closing signal to
// that worker's pid): the others had waited on it. Returns that rank, or -1.
int left_running_while_others_timed_out(const evidence &ev)
{
	size_t timeouts = 0;
	std::set<int> stopped; // workers the launcher sent a signal to
	for (const auto &e : ev.events) {
		if (e.dropped || e.role != event_role::victim)
			continue;
		if (e.cls == failure_class::collective_hang && e.kind == rule_kind::watchdog)
			timeouts++;
		else if (e.kind == rule_kind::plain && e.rank >= 0 && !e.capture("pid").empty() &&
			 !e.capture("signal").empty())
			stopped.insert(e.rank);
	}
	if (stopped.size() != 1 || timeouts < 2)
		return -1;
	const int left = *stopped.begin();
	std::set<int> self_exited;
	for (const auto &[rank, sig] : rank_exit_signals(ev))
		if (sig == 0 || !stop_signal(sig))
			self_exited.insert(rank);
	if (self_exited.size() < 2 || self_exited.count(left) || timeouts < self_exited.size())
		return -1;
	// (Every rank accounted for, where the job's size is known.)
	const int world = ev.ranks.world_size();
	if (world > 0 && static_cast<int>(self_exited.size()) + 1 != world)
		return -1;
	return left;
}

void without_initiator(diagnosis_context &cx)
{
	decision &d = cx.d;
	const evidence &ev = cx.ev;
	const hang_view &hv = cx.hv;
	// A rank whose own watchdog reported the timeout was waiting in the
	// collective like the others: its SIGKILL is the teardown after it.
	if (std::vector<int> killed = sigkilled_ranks(ev); killed.size() == 1 && !hv.reporting_ranks.count(killed[0])) {
		// One process SIGKILLed and nothing else to say: it went first (the
		// others then wait for it in a collective: it is why they hang).
		// SIGKILL says killed, not why: out of memory only where the
		// kernel's OOM killer says so (the exits pass), never from the
		// signal alone.
		d.first_rank = killed[0];
		for (const auto &e : ev.events)
			if (!e.dropped && e.kind == rule_kind::task_exit && e.signal == 9 &&
			    (e.rank == d.first_rank || parse_task_list(e.capture("task")) == std::vector<int>{d.first_rank})) {
				d.first = &e;
				break;
			}
		d.rank_singled_out = true;
		d.confidence = "low";
		// Killed only after the others had timed out waiting for it: the
		// launcher's teardown of the rank that stopped, not the OOM killer.
		if (d.first && killed_after_the_timeouts(ev, *d.first)) {
			d.cls = failure_class::collective_hang;
			d.hang_why = "every other rank timed out or aborted waiting in a collective; it was still running and was killed";
			d.first = nullptr;
			d.confidence = "medium";
			d.notes.push_back("a SIGKILL alone does not say out of memory: it came after the others had timed out");
		} else if (d.first && launcher_saw_the_kill(*d.first) && !stopped_from_outside(ev)) {
			// A worker's own launcher (torchrun, mp.spawn, mpirun) saw it
			// SIGKILLed, and nobody announced a stop (no cancel, time
			// limit, preemption, lost node): the launcher did not send it,
			// and the sender of an unannounced SIGKILL to one worker is, in
			// practice, the kernel's or a container's OOM killer. Said as a
			// guess, for the kernel log to confirm. (Slurm's own "Killed"
			// stays a kill: the scheduler sends those itself.)
			d.cls = failure_class::host_oom;
			d.notes.push_back("rank " + std::to_string(d.first_rank) +
					  " was SIGKILLed with no stop announced: most likely the OOM killer, though no "
					  "OOM killer line was among the logs (the node's kernel log would confirm it)");
		} else {
			d.cls = failure_class::unknown;
			d.notes.push_back("rank " + std::to_string(d.first_rank) +
					  " was SIGKILLed and nothing says why: no OOM killer line was among the logs "
					  "(the node's kernel log would say whether it ran out of memory)");
		}
		return;
	}
	if (const int left = left_running_while_others_timed_out(ev); left >= 0) {
		d.cls = failure_class::collective_hang;
		d.first_rank = left;
		d.rank_singled_out = true;
		d.confidence = "medium";
		d.hang_why = "every other rank timed out waiting in a collective and exited; the launcher had to stop it, "
			     "still running";
		return;
	}
	if (exit_view xv = analyse_exits(ev);
	    xv.first_self_exit && !suffered_first(ev, *xv.first_self_exit) &&
	    (hv.suspects.size() != 1 || (hv.suspects[0] == xv.first_self_exit->rank &&
					 exited_before_the_timeouts(ev, *xv.first_self_exit)))) {
		// Nothing says why, but one rank ended on its own before the rest
		// were taken down (or before they timed out waiting for it: the
		// rank missing from the hang had died, not hung): it went first,
		// for a reason the logs keep.
		d.first = xv.first_self_exit;
		d.cls = failure_class::unknown;
		d.first_rank = d.first->rank;
		d.first_host = d.first->host;
		d.rank_singled_out = true;
		d.confidence = "low";
		// The exception its own writer raised just before (a store it
		// could not reach, no rank on the line) says what kind of end.
		if (const event *why = own_exception_before(ev, *d.first))
			d.cls = why->cls;
		return;
	}
	// The ranks timed out in a collective that began as one node's
	// kernel saw its own link go down (and only that node's): the link's
	// loss stalled it, not a rank.
	if (hv.suspects.empty() && hv.reporting() > 0)
		if (const event *link = link_down_as_the_collective_began(ev)) {
			d.cls = failure_class::network;
			first_is_the_link(d, *link,
					  "the ranks timed out in a collective that began as " + ev.host_name(link->host) +
						  "'s kernel saw its network link go down");
			return;
		}
	if (hv.reporting() > 0 || !hv.suspects.empty()) {
		d.cls = failure_class::collective_hang;
		if (hv.suspects.size() == 1) {
			d.first_rank = hv.suspects[0];
			d.hang_why = hv.why;
			d.rank_singled_out = true;
			d.confidence = "medium";
			// The rank the hang singles out lost its network: its node's
			// kernel saw its own link stall or go down just before the
			// others' reports, and no other node's did.
			if (const event *link = suspects_link_failed_before(ev, hv.suspects[0])) {
				d.cls = failure_class::network;
				d.first_host = link->host;
				d.notes.push_back(ev.host_name(link->host) + "'s kernel saw its network link fail (" +
						  ev.where(*link) + ") just before the others' reports: rank " +
						  std::to_string(hv.suspects[0]) + " was cut off");
			}
		} else if (hv.suspects.size() > 1) {
			// Several ranks singled out: all of them, and no first.
			for (size_t i = 0; i < hv.suspects.size(); i++)
				d.suspects.push_back(
					suspect_rank{hv.suspects[i], -1, i < hv.suspect_why.size() ? hv.suspect_why[i] : hv.why});
			d.notes.push_back(std::to_string(hv.suspects.size()) +
					  " ranks are singled out by the hang's structure; they are listed as suspects");
			d.confidence = "low";
		}
		return;
	}
	// Only victims, the first of them on the line the terminal echoed the
	// user's Ctrl-C on ("^C" begins it): they are the interrupt's teardown
	// (DataLoader workers killed by SIGINT, a queue closed).
	if (const event *v = first_victim_in_file_order(ev)) {
		if (v->text.rfind("^C", 0) == 0) {
			d.cls = failure_class::user_cancel;
			d.notes.push_back("only victims' symptoms in the logs, the first of them right after the user's Ctrl-C (" +
					  ev.where(*v) + "): the interrupt's teardown");
			return;
		}
	}
	// Only victims: name what they say, blame nobody. A teardown's own
	// lines (SIGTERMs sent, a launcher's ChildFailedError) say nothing of
	// what: they count only where no victim says more.
	std::map<failure_class, int> vc;
	for (const auto &e : ev.events)
		if (!e.dropped && e.role == event_role::victim)
			vc[e.cls]++;
	if (vc.size() > 1)
		vc.erase(failure_class::unknown);
	if (!vc.empty())
		d.cls = std::max_element(vc.begin(), vc.end(), [](auto &a, auto &b) { return a.second < b.second; })->first;
	// The ranks lost their connections, and one node's kernel saw its own
	// link stall or go down (its NIC's transmit watchdog, a link down):
	// that node's side of the connections broke.
	if (d.cls == failure_class::network) {
		// (The stall just before the connections broke, not one the job
		// survived hours before.)
		if (const event *link = one_node_saw_its_link_fail(ev, first_victim_us(ev))) {
			first_is_the_link(d, *link,
					  "only victims' symptoms in the logs; of the job's nodes only " +
						  ev.host_name(link->host) + "'s kernel saw its network link fail");
			return;
		}
	}
	if (d.cls == failure_class::network && victims_name_one_node(cx))
		return;
	// A native crash that names no process (C++'s terminate, Python's fatal
	// error), and of the job's workers the launcher saw exactly one end by
	// a crash signal of its own (an abort, a segfault) while it stopped the
	// others: that worker crashed.
	if (d.cls == failure_class::segfault) {
		// (Crash lines of ranks of their own, every rank aborting: the
		// launcher's word on which it saw first is no first.)
		const bool ranked_crash = std::any_of(ev.events.begin(), ev.events.end(), [](const event &e) {
			return !e.dropped && e.cls == failure_class::segfault && e.kind != rule_kind::task_exit && e.rank >= 0;
		});
		std::set<int> crashed;
		for (const auto &[rank, sig] : rank_exit_signals(ev))
			if (crash_signal(sig) || sig == SIGABRT)
				crashed.insert(rank);
		if (crashed.size() == 1 && !ranked_crash) {
			d.first_rank = *crashed.begin();
			d.first_host = rank_host(cx.ev, d.first_rank);
			d.rank_singled_out = true;
			d.confidence = "low";
			d.notes.push_back("a native crash named no process; of the job's workers only rank " +
					  std::to_string(d.first_rank) + " ended by a crash signal of its own");
			return;
		}
	}
	d.notes.push_back("only victims' symptoms in the logs: no rank is blamed");
}

} // namespace

void pass_decide(diagnosis_context &cx)
{
	if (cx.best.e)
		from_first_fault(cx);
	else
		without_initiator(cx);
}

} // namespace diag
