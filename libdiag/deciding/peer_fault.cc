// Whose link broke: a network error names its peer's address; where that
// address is a host of the job whose own link failed (the kernel saw it
// go down, or its rank's network error came first), the fault is the
// peer's and this rank only saw it. Where a rank there had exited on its
// own with nothing logged (its exit code, no error of its own), the peer's
// process went away: that exit, not the network, is the first fault.
#include "aligning/identities.hh"
#include "deciding/context.hh"
#include "deciding/diagnose.hh"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace diag {

// "10.1.2.4<41222>", "fe80::1%ib0<53249>": the address alone.
std::string peer_address(std::string peer)
{
	size_t lt = peer.find('<');
	if (lt != std::string::npos)
		peer.resize(lt);
	size_t pct = peer.find('%');
	if (pct != std::string::npos)
		peer.resize(pct);
	return peer;
}

bool kernel_link_fault(const evidence &ev, const event &e, int host)
{
	return !e.dropped && e.cls == failure_class::network && e.host == host &&
	       ev.sources()[e.file].kind == source_kind::kernel_log;
}

// How long before the break a node's link failure may be and still be
// what broke it (a NCCL watchdog's ten minutes, with room): where some
// node's was then or later (a break read from lines that inherit their
// time is only its lower bound), only those count, and a flap long before
// on another node, the job stepping past it, names no second node.
constexpr int64_t link_before_break_us = 30LL * 60 * 1000000;

const event *one_node_saw_its_link_fail(const evidence &ev, int64_t broke)
{
	std::vector<const event *> links, then;
	for (const auto &e : ev.events)
		if (e.host >= 0 && kernel_link_fault(ev, e, e.host)) {
			links.push_back(&e);
			if (broke != no_time && e.time_us != no_time && e.time_us >= broke - link_before_break_us)
				then.push_back(&e);
		}
	if (!then.empty())
		links = then;
	if (links.empty() || !std::all_of(links.begin(), links.end(), [&](const event *e) { return e->host == links[0]->host; }))
		return nullptr;
	// The latest at or before the break, else the first.
	const event *link = nullptr;
	for (const event *e : links)
		if (e->time_us != no_time && broke != no_time && e->time_us <= broke && (!link || e->time_us > link->time_us))
			link = e;
	if (!link)
		link = *std::min_element(links.begin(), links.end(),
					 [](const event *a, const event *b) { return earlier_event(*a, *b); });
	return link;
}

namespace {

constexpr double launcher_poll_s = 5.0;

// A rank on host whose process exited with an exit code of its own (not a
// signal), by the time of err, having logged no fault or symptom first:
// it went away for a reason the logs do not keep.
const event *silent_exit_on(const evidence &ev, const diagnosis_context &cx, int host, const event &err)
{
	const event *found = nullptr;
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::task_exit || e.rank < 0 || e.exitcode <= 0 || e.signal > 0)
			continue;
		const rank_info *ri = ev.ranks.by_rank(e.rank);
		int h = ri && ri->host >= 0 ? ri->host : e.host;
		if (h != host)
			continue;
		// A per-node launcher reports a worker's exit on its next poll
		// (torchrun's monitor_interval: 5 s in older releases): an exit
		// reported that much after the error may still have come first.
		double slack_s = cx.clk.uncertainty(host) + e.time_unc_s + err.time_unc_s +
				 (e.local_rank >= 0 ? 2 * launcher_poll_s : 0.0);
		if (e.time_us != no_time && err.time_us != no_time &&
		    static_cast<double>(e.time_us - err.time_us) > slack_s * 1e6)
			continue; // it exited after the error: perhaps of it
		if (found && found->rank != e.rank)
			return nullptr; // several ranks there: which one is not known
		found = &e;
	}
	if (!found)
		return nullptr;
	for (const auto &e : ev.events)
		if (!e.dropped && !e.decoy && e.rank == found->rank && e.kind != rule_kind::task_exit &&
		    (e.role == event_role::initiating || (e.role == event_role::victim && e.cls != failure_class::unknown)))
			return nullptr; // it said why (or what it suffered)
	return found;
}

// The victim line just before err on err's own process (same rank, or
// same host and CUDA device) that says its peer reset or closed the socket.
const event *socket_closed_before(const diagnosis_context &cx, const event &err)
{
	const event *found = nullptr;
	// Where the error's rank runs, from the rank map when its line says not.
	int host = err.host, dev = err.cuda_dev;
	if (const rank_info *ri = err.rank >= 0 ? cx.ev.ranks.by_rank(err.rank) : nullptr) {
		host = host >= 0 ? host : ri->host;
		dev = dev >= 0 ? dev : ri->cuda_dev;
	}
	for (const auto &e : cx.ev.events) {
		if (e.dropped || e.role != event_role::victim || e.cls != failure_class::network || e.capture("peer").empty())
			continue;
		bool same_process = (err.rank >= 0 && e.rank == err.rank) ||
				    (host >= 0 && e.host == host && e.cuda_dev >= 0 && e.cuda_dev == dev);
		if (e.time_us == no_time || err.time_us == no_time)
			continue;
		// Or the cause err's own message quotes on its next lines ("Last
		// error:", then the socket's line), unstamped or stamped alike.
		bool quoted = e.file == err.file && e.line > err.line && e.line - err.line <= 4 && e.rank < 0 &&
			      e.host < 0 && std::llabs(e.time_us - err.time_us) <= 50000;
		int64_t before = err.time_us - e.time_us;
		if (!quoted && (!same_process || before < 0 || before > 2000000))
			continue;
		if (!found || e.time_us > found->time_us)
			found = &e;
	}
	return found;
}

} // namespace

void pass_peer_fault(diagnosis_context &cx)
{
	decision &d = cx.d;
	const evidence &ev = cx.ev;
	// An error that names no host of its own (a "Last error:" line inside
	// a traceback) still names its peer.
	if (!d.first || d.cls != failure_class::network)
		return;
	std::string peer = peer_address(d.first->capture("peer"));
	// A generic error ("unhandled system error") right after its own
	// socket to a peer was reset or closed: the other end went first.
	const event *closed = peer.empty() ? socket_closed_before(cx, *d.first) : nullptr;
	if (closed)
		peer = peer_address(closed->capture("peer"));
	int at = host_with_address(ev, peer);
	if (closed && at < 0 && !peer.empty()) {
		d.notes.push_back("rank " + std::to_string(d.first->rank) + "'s network error follows its socket to " + peer +
				  " being reset by that end, a host the logs do not name: the fault is there, not on this rank");
		d.first_rank = -1;
		d.first_host = -1;
		d.borrowed_rank = -1;
		d.rank_singled_out = false;
		return;
	}
	if (at < 0 && !peer.empty() && d.first->host >= 0) {
		// An address no line of the job ties to a host: where the error's
		// own node's kernel saw nothing of its links and another node's,
		// alone of the job's, saw its own link fail before the error, the
		// peer was that node and its side broke.
		const int64_t latest = d.first->time_us == no_time
					       ? no_time
					       : d.first->time_us + d.first->time_spread_us();
		const event *link = one_node_saw_its_link_fail(ev, latest);
		if (!link || link->host == d.first->host || (latest != no_time && link->time_us != no_time && link->time_us > latest))
			return;
		d.notes.push_back("rank " + std::to_string(d.first->rank) + "'s network error names its peer " + peer +
				  ", an address the logs tie to no host; of the job's nodes only " + ev.host_name(link->host) +
				  "'s kernel saw its own link fail before it: the fault is there");
		d.first = link;
		d.first_rank = -1;
		d.first_host = link->host;
		d.borrowed_rank = -1;
		d.rank_singled_out = true;
		d.ties.clear();
		return;
	}
	if (at < 0 || at == d.first->host)
		return;
	bool peer_link = false, own_link = false;
	const event *peer_first = nullptr; // the peer host's ranks' first network fault
	for (const auto &e : ev.events) {
		if (kernel_link_fault(ev, e, at))
			peer_link = true;
		if (d.first->host >= 0 && kernel_link_fault(ev, e, d.first->host))
			own_link = true;
		// A flush or a closed socket there is a symptom, not its fault.
		if (!e.dropped && e.cls == failure_class::network && e.role == event_role::initiating && e.host == at &&
		    e.rank >= 0 &&
		    ev.sources()[e.file].kind != source_kind::kernel_log && (!peer_first || earlier_event(e, *peer_first)))
			peer_first = &e;
	}
	if (own_link)
		return; // this rank's own link failed: its error is its own
	if (const event *gone = peer_link ? nullptr : silent_exit_on(ev, cx, at, *d.first)) {
		d.notes.push_back("rank " + std::to_string(d.first->rank) + "'s network error names its peer " + peer + " (" +
				  ev.host_name(at) + "), where rank " + std::to_string(gone->rank) +
				  " had exited on its own with nothing logged: the peer's process went away, not the network");
		d.cls = failure_class::unknown;
		d.first = gone;
		d.first_rank = gone->rank;
		d.first_host = at;
		d.borrowed_rank = -1;
		d.rank_singled_out = true;
		d.ties.clear();
		return;
	}
	if (d.first->host < 0)
		return;
	// First beyond what the two hosts' clocks may be off by.
	bool peer_went_first = false;
	if (peer_first && peer_first->time_us != no_time && d.first->time_us != no_time) {
		double unc = cx.clk.uncertainty(at) + cx.clk.uncertainty(d.first->host) + peer_first->time_unc_s +
			     d.first->time_unc_s;
		peer_went_first = static_cast<double>(d.first->time_us - peer_first->time_us) > unc * 1e6;
	}
	if (!peer_link && !peer_went_first)
		return;
	const event *was = d.first;
	d.notes.push_back("rank " + std::to_string(was->rank) + "'s network error names its peer " + peer + " (" +
			  ev.host_name(at) + "), whose own link " +
			  (peer_link ? "the kernel saw go down" : "failed first") + ": the fault is there");
	if (peer_first) {
		d.first = peer_first;
		d.first_rank = peer_first->rank;
	} else {
		d.first_rank = -1;
	}
	d.first_host = at;
	d.borrowed_rank = -1;
	d.rank_singled_out = true;
	for (size_t i = 0; i < d.ties.size(); i++)
		if (d.ties[i].e == d.first) {
			d.ties.erase(d.ties.begin() + static_cast<long>(i));
			break;
		}
}

} // namespace diag
