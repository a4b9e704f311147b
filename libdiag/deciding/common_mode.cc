// The same fault on many ranks at once (an import error everywhere, every
// agent's rendezvous timing out) is the environment's, not one rank's:
// nobody is singled out. So is a launch fault on every rank of a small job.
#include "aligning/identities.hh"
#include "deciding/context.hh"
#include "deciding/exits.hh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

namespace diag {

namespace {

int sole_host_of_failed_ranks(const evidence &ev)
{
	std::set<int> hosts;
	for (const auto &x : rank_exit_signals(ev)) {
		if (x.second != 0)
			continue; // a signal: the launcher's teardown as often as not
		const rank_info *ri = ev.ranks.by_rank(x.first);
		hosts.insert(ri ? ri->host : -1);
	}
	if (const event *f = analyse_exits(ev).first_self_exit) {
		const rank_info *ri = ev.ranks.by_rank(f->rank);
		hosts.insert(f->host >= 0 ? f->host : ri ? ri->host : -1);
	}
	return hosts.size() == 1 ? *hosts.begin() : -1;
}

// The one host whose own adapter reported a fault of its own (a rule of
// node scope naming no peer: an HCA's port error, a link gone down on it),
// or -1 where none or several did.
int sole_host_of_own_adapter_fault(const evidence &ev)
{
	int host = -1;
	for (const auto &e : ev.events) {
		if (e.dropped || e.decoy || e.cls != failure_class::network || e.role != event_role::initiating ||
		    !e.r || e.r->scope != rule::fault_scope::node || !e.capture("peer").empty() || e.host < 0)
			continue;
		if (host >= 0 && host != e.host)
			return -1;
		host = e.host;
	}
	return host;
}

// Whether one node is an end of every report of best's fault at once: the
// reporter itself or the peer it names (a node whose link went down, that
// its peers name while it names one of them).
bool one_node_in_every_report(const diagnosis_context &cx, const candidate &best)
{
	std::set<int> common;
	bool first = true;
	for (const auto &c : cx.cands) {
		if ((c.e->r ? c.e->r != best.e->r : c.e->rule_id != best.e->rule_id) || c.e->rank < 0)
			continue;
		if (c.e->time_us != no_time && best.e->time_us != no_time &&
		    std::fabs(static_cast<double>(c.e->time_us - best.e->time_us)) / 1e6 > c.unc + best.unc + 1.0)
			continue;
		std::set<int> ends;
		if (c.e->host >= 0)
			ends.insert(c.e->host);
		std::string peer = c.e->capture("peer");
		if (!peer.empty())
			if (int h = host_with_address(cx.ev, peer_address(peer)); h >= 0)
				ends.insert(h);
		if (first) {
			common = ends;
			first = false;
		} else {
			std::set<int> both;
			for (int h : ends)
				if (common.count(h))
					both.insert(h);
			common.swap(both);
		}
	}
	return !common.empty();
}

} // namespace

void pass_common_mode(diagnosis_context &cx)
{
	const candidate &best = cx.best;
	// Mismatch reports compare each rank with another: every rank printing
	// one is what they are, and the pairs say whose collective differs
	// (hang structure), not the environment.
	if (!best.e || !best.e->capture("mismatch_peer").empty())
		return;
	std::set<int> same, hosts;
	// A traceback ends its process: the same exception after a traceback
	// on lines that name no rank is as many processes as it shows.
	int unranked = 0;
	// Each traceback ends one process, also where many share one label
	// (a node's torchrun agent under srun --label relays all its workers).
	// But a rank runs one process at a time: its tracebacks from processes
	// told apart by pid are its restarts (Ray's retries), one rank.
	size_t tracebacks = 0;
	std::set<int> restarted;
	// A node's kernel names each crashed process by its pid: the same
	// crash of several pids within one second of each other (each line
	// stamped itself) is as many processes, ranks or not. (Not a
	// DataLoader's workers, a rank's own children.)
	std::set<std::pair<int, std::string>> pids;
	for (const auto &c : cx.cands) {
		if ((c.e->r ? c.e->r != best.e->r : c.e->rule_id != best.e->rule_id) || c.e->rank >= 0 ||
		    c.e->inherited_time || best.e->inherited_time || c.e->time_us == no_time || best.e->time_us == no_time ||
		    std::llabs(c.e->time_us - best.e->time_us) > us_per_s || c.e->capture("comm").find("worker") != std::string::npos)
			continue;
		std::string pid = c.e->capture("pid");
		if (!pid.empty())
			pids.insert({c.e->host, pid});
	}
	for (const auto &c : cx.cands) {
		if (c.e->r ? c.e->r != best.e->r : c.e->rule_id != best.e->rule_id)
			continue;
		bool process_end = !c.e->capture("traceback_line").empty();
		if (c.e->rank < 0 && !process_end)
			continue;
		bool together = c.e->time_us == no_time || best.e->time_us == no_time ||
				std::fabs(static_cast<double>(c.e->time_us - best.e->time_us)) / 1e6 <= c.unc + best.unc + 1.0;
		// An unstamped line below a later stamped one of the same file
		// came after best: not at once.
		for (const candidate *a : {&c, &best}) {
			const candidate *b = a == &c ? &best : &c;
			if (a->e->not_before_raw_us != no_time && b->e->raw_us != no_time && a->e->file == b->e->file &&
			    a->e->not_before_raw_us > b->e->raw_us + static_cast<int64_t>(us_per_s))
				together = false;
		}
		if (together) {
			// One rank's traceback every rank prints (DCP's "(RANK 6)")
			// ends none of theirs.
			if (process_end && c.e->capture("relayed").empty() &&
			    (c.e->rank < 0 || c.e->pid < 0 || restarted.insert(c.e->rank).second))
				tracebacks++;
			if (c.e->rank >= 0)
				same.insert(c.e->rank);
			else
				unranked++;
			hosts.insert(c.e->host);
		}
	}
	size_t processes = std::max({same.size() + static_cast<size_t>(unranked), tracebacks, pids.size()});
	int world = cx.ev.ranks.world_size();
	bool every_rank = best.e->cls == failure_class::launch_failure && world >= 2 && same.size() == static_cast<size_t>(world);
	// Transport errors show on both ends of a link by nature: not an
	// environment-wide fault, unless the same error comes at once from
	// more nodes than one link has ends (the fabric's, not one link's).
	std::set<int> known_hosts(hosts);
	known_hosts.erase(-1);
	bool fabric = best.e->cls == failure_class::network && same.size() >= 3 && known_hosts.size() >= 3 &&
		      !one_node_in_every_report(cx, best);
	// Several ranks of one node reporting the same fault within a second
	// (and no other node): that node's (its NIC, its memory, the data its
	// ranks share), no rank before another.
	bool one_node = known_hosts.size() == 1 && ranks_reporting_together(cx, best) >= 2;
	if (((processes >= 3 || every_rank) && (best.e->cls != failure_class::network || fabric)) || one_node) {
		cx.d.common_mode = static_cast<int>(processes);
		// (Lines of one known node beside lines that name none: that node,
		// the others being its own unprefixed output.)
		cx.d.common_host = known_hosts.size() == 1 ? *known_hosts.begin() : -1;
		cx.d.common_many_hosts = known_hosts.size() >= 2;
		// Lines that name no host (one stdout for all): the node is the
		// one whose ranks ended with an error of their own, if one.
		if (known_hosts.empty())
			cx.d.common_host = sole_host_of_failed_ranks(cx.ev);
		// Transport errors on every node at once, and one of them whose
		// own adapter reported its port failing: that node is the end
		// that broke, the others lost their links to it.
		if (fabric && cx.d.common_host < 0)
			cx.d.common_host = sole_host_of_own_adapter_fault(cx.ev);
	}
}

} // namespace diag
