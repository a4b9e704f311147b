// A network fault is a link's or a NIC's, not a process's: the rank that
// printed it first was only the first to use the link after it failed,
// and other ranks (on its host, at the other end) report it too. Where
// more than one rank reported losing a link (not a victim's "remote
// process exited or network error", not a fault of its own queue pair), no
// rank is singled out; the host the evidence names stays.
#include "deciding/context.hh"
#include "deciding/exits.hh"

#include <set>
#include <string>

namespace diag {

namespace {

// A report of a lost link, not of a process's own fault: it names the peer
// it lost, or gives a completion status other than a local error
// (InfiniBand's work-completion status 1-4: local length, QP operation, EE
// context, protection), and it is not a queue pair's own fatal event.
bool link_loss(const event &e)
{
	if (e.text.find("async fatal event on QP") != std::string::npos)
		return false;
	const std::string st = e.capture("status");
	if (!st.empty()) {
		// (A status in words, UCX's "Endpoint timeout", is no local error.)
		long long status = -1;
		return !(parse_uint_str(st, status) && status >= 1 && status <= 4);
	}
	return !e.capture("peer").empty();
}

} // namespace

void pass_link_fault_rank(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::network || d.first_rank < 0 || !d.first || !link_loss(*d.first))
		return;
	std::set<int> ranks;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && !e.decoy && e.cls == failure_class::network && e.rank >= 0 &&
		    e.role == event_role::initiating && link_loss(e))
			ranks.insert(e.rank);
	if (ranks.size() < 2)
		return;
	d.notes.push_back("rank " + std::to_string(d.first_rank) + " reported the link's loss first, and " +
			  std::to_string(ranks.size() - 1) +
			  " other ranks reported it too: a link's or a NIC's fault, no rank's");
	// (Its host stays the one the evidence names.)
	if (d.first_host < 0) {
		const rank_info *ri = cx.ev.ranks.by_rank(d.first_rank);
		d.first_host = ri && ri->host >= 0 ? ri->host : d.first->host;
	}
	d.first_rank = -1;
	d.rank_singled_out = d.first_host >= 0; // (the host is singled out)
}

} // namespace diag
