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

// A link lost on several hosts at once, no host singled out by the ranks'
// reports, where only one of the job's nodes saw its own link fail in its
// kernel log (at or before the first report): that node's side broke.
void name_the_node_whose_link_went_down(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::network || d.first_rank >= 0 || d.first_host >= 0)
		return;
	// (On reports stamped themselves: a line that inherits an earlier
	// line's time came later than that, by how much no one knows; a fault
	// the job survived broke nothing.)
	int64_t broke = no_time;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && !e.decoy && !e.handled && !e.inherited_time && e.cls == failure_class::network &&
		    e.time_us != no_time && cx.ev.sources()[e.file].kind != source_kind::kernel_log &&
		    (broke == no_time || e.time_us < broke))
			broke = e.time_us;
	const event *link = one_node_saw_its_link_fail(cx.ev, broke);
	if (!link || (broke != no_time && link->time_us != no_time && link->time_us > broke))
		return;
	d.first_host = link->host;
	d.rank_singled_out = true;
	d.notes.push_back("of the job's nodes only " + cx.ev.host_name(link->host) +
			  "'s kernel saw its network link fail before the ranks lost their connections");
}

// Where more than one rank reported losing the link the first rank
// reported, that rank is not singled out; its host stays.
void no_rank_for_a_shared_link_loss(diagnosis_context &cx)
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

} // namespace

void pass_link_fault_rank(diagnosis_context &cx)
{
	no_rank_for_a_shared_link_loss(cx);
	name_the_node_whose_link_went_down(cx);
}

} // namespace diag
