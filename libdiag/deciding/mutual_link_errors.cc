// Link errors seen from both ends: every network error names the peer it
// lost (in a job on two hosts, the other one). Where the hosts that report
// errors name each other (node A's ranks lose node B, B's lose A), the link
// between them or the fabric failed and no end stands apart: nobody is singled out. One host that every other
// reporting host names (and only it) is the end that failed; so is the
// host whose trouble clearly began first, or the one end whose ranks
// report a network fault of their own where the others report only a
// victim's "remote process exited or network error".
#include "aligning/identities.hh"
#include "deciding/context.hh"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace diag {

namespace {

struct link_report {
	const event *e;
	int host;         // the reporting rank's host
	std::string peer; // the address it names
	int peer_host;    // that address's host, -1 when no line says
};

// The reporting host, one id per machine: a prefix that is an address
// NCCL says a named host uses (pdsh's "10.72.0.1: ") is that host.
int host_of(const evidence &ev, const event &e)
{
	int host = e.host;
	if (host < 0) {
		const rank_info *ri = e.rank >= 0 ? ev.ranks.by_rank(e.rank) : nullptr;
		host = ri ? ri->host : -1;
	}
	if (host < 0)
		return -1;
	int named = host_with_address(ev, ev.host_name(host));
	return named >= 0 ? named : host;
}

// Both ends of a link that fails at once time out on their own transport
// retries together: reports within this of each other (much less than an
// InfiniBand retry timeout of seconds) came at the same moment. Further
// apart, the earlier end is first, as elsewhere, within the clocks'
// uncertainty too (its ties are listed, confidence lowered).
constexpr double simultaneous_s = 1.0;

// Whether one reporting host's network trouble surely began before every
// other reporting host's could have: then its end went first and the
// symmetry is only its aftermath. A line without a stamp of its own lies
// between its neighbours' stamps.
bool one_end_first(const diagnosis_context &cx, const std::set<int> &reporters)
{
	struct window {
		int64_t began_by = INT64_MAX, began_after = INT64_MAX;
	};
	std::map<int, window> began;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || e.decoy || e.cls != failure_class::network || e.time_us == no_time)
			continue;
		int host = host_of(cx.ev, e);
		if (!reporters.count(host))
			continue;
		auto unc = static_cast<int64_t>(e.time_unc_s * 1e6);
		window &w = began[host];
		w.began_by = std::min(w.began_by, e.time_us + unc);
		w.began_after = std::min(w.began_after, e.time_us - unc);
	}
	if (began.size() != reporters.size())
		return false; // a host whose trouble has no time: the order is not known
	int first = -1;
	for (const auto &h : began)
		if (first < 0 || h.second.began_by < began[first].began_by)
			first = h.first;
	for (const auto &h : began) {
		if (h.first == first)
			continue;
		if (static_cast<double>(h.second.began_after - began[first].began_by) <= simultaneous_s * 1e6)
			return false;
	}
	return true;
}

} // namespace

void pass_mutual_link_errors(diagnosis_context &cx)
{
	decision &d = cx.d;
	const evidence &ev = cx.ev;
	if (d.cls != failure_class::network || !d.first || (d.first_rank < 0 && d.first_host < 0))
		return;
	std::vector<link_report> reports;
	std::set<int> reporters;
	std::set<std::string> peers;
	std::set<int> own_fault; // hosts with a network fault that names no peer
	// A job on two hosts: a completion error that names no peer (NCCL
	// before 2.12) lost the other one.
	std::set<int> job_hosts;
	for (const auto &r : ev.ranks.all())
		if (r.second.host >= 0)
			job_hosts.insert(r.second.host);
	for (const auto &e : ev.events) {
		if (e.dropped || e.decoy)
			continue;
		// A kernel that saw a link go down says which end failed: that
		// is peer_fault's to weigh, not a symmetry.
		if (e.cls == failure_class::network && ev.sources()[e.file].kind == source_kind::kernel_log)
			return;
		if (e.cls != failure_class::network || e.role != event_role::initiating)
			continue;
		std::string peer = peer_address(e.capture("peer"));
		int host = host_of(ev, e);
		if (host < 0)
			continue;
		if (peer.empty() && !e.capture("status").empty() && job_hosts.size() == 2 && job_hosts.count(host)) {
			int other = *job_hosts.begin() == host ? *job_hosts.rbegin() : *job_hosts.begin();
			reports.push_back(link_report{&e, host, ev.host_name(other), other});
			reporters.insert(host);
			peers.insert(ev.host_name(other));
			continue;
		}
		if (peer.empty()) {
			// A fault of its own beside the lost peers ("unhandled system
			// error" where the other end says "remote process exited or
			// network error", a victim's words).
			own_fault.insert(host);
			continue;
		}
		reports.push_back(link_report{&e, host, peer, host_with_address(ev, peer)});
		reporters.insert(host);
		peers.insert(peer);
	}
	// A host's "unhandled system error" beside its own completion error
	// that named no peer is that error passed up, not a second fault.
	for (const auto &r : reports)
		if (r.e->capture("peer").empty())
			own_fault.erase(r.host);
	// Two or more hosts losing the same one peer, a host of the job that
	// reports no such loss itself: that peer's end failed (one link carries
	// many ranks: no rank of it is singled out).
	if (reporters.size() >= 2 && peers.size() == 1) {
		int at = reports.front().peer_host;
		if (at < 0 || reporters.count(at) || d.first_host == at)
			return;
		const event *earliest = nullptr;
		for (const auto &r : reports)
			if (!earliest || earlier_event(*r.e, *earliest))
				earliest = r.e;
		d.notes.push_back(std::to_string(reporters.size()) + " hosts report link errors, all naming " +
				  ev.host_name(at) + " as the peer they lost: the fault is there");
		d.first = earliest;
		d.first_rank = -1;
		d.first_host = at;
		d.borrowed_rank = -1;
		d.rank_singled_out = true;
		d.ties.clear();
		return;
	}
	// One host reporting: not a symmetry.
	if (reporters.size() < 2 || peers.size() < 2)
		return;
	if (one_end_first(cx, reporters))
		return;
	// One end says it failed itself, the others only that they lost it.
	size_t own_ends = 0;
	for (int h : reporters)
		own_ends += own_fault.count(h);
	if (own_ends == 1)
		return;
	std::map<int, std::set<int>> named_by; // peer host -> reporting hosts naming it
	for (const auto &r : reports)
		if (r.peer_host >= 0 && r.peer_host != r.host)
			named_by[r.peer_host].insert(r.host);
	// The hosts every other reporting host names.
	std::vector<int> apart;
	for (const auto &n : named_by) {
		size_t others = reporters.size() - (reporters.count(n.first) ? 1 : 0);
		if (n.second.size() >= 2 && n.second.size() == others)
			apart.push_back(n.first);
	}
	if (apart.size() == 1) {
		int at = apart[0];
		if (d.first_host == at)
			return;
		const event *own = nullptr; // its ranks' first error
		for (const auto &r : reports)
			if (r.host == at && r.e->rank >= 0 && (!own || earlier_event(*r.e, *own)))
				own = r.e;
		d.notes.push_back("every other host reporting link errors names " + ev.host_name(at) +
				  " as the peer it lost: the fault is there");
		if (own)
			d.first = own;
		d.first_rank = own ? own->rank : -1;
		d.first_host = at;
		d.borrowed_rank = -1;
		d.rank_singled_out = true;
		return;
	}
	d.notes.push_back(std::to_string(reporters.size()) + " hosts report link errors naming " +
			  std::to_string(peers.size()) +
			  " different peers, each other's ends: the link or fabric between them failed and no rank or host "
			  "stands apart");
	d.first_rank = -1;
	d.first_host = -1;
	d.borrowed_rank = -1;
	d.rank_singled_out = false;
	d.ties.clear();
}

} // namespace diag
