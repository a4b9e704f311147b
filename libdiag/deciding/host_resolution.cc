// Who ran where: ranks, hosts and pids that one line did not name come from
// the others (before clock alignment, which works per host), and the first
// rank's host from everything that maps ranks to hosts.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"
#include "deciding/exits.hh"

#include "aligning/rank_map.hh"
#include "reading/line_prefix.hh"
#include "reading/plugin_records.hh"

namespace diag {

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

// The host a rank ran on: the rank map, else what the rank's own lines said.
int host_of_rank(const evidence &ev, int rank)
{
	if (rank < 0)
		return -1;
	if (const rank_info *ri = ev.ranks.by_rank(rank); ri && ri->host >= 0)
		return ri->host;
	for (const auto &e : ev.events)
		if (e.rank == rank && e.host >= 0 && !e.dropped && ev.sources()[e.file].kind != source_kind::kernel_log)
			return e.host;
	return -1;
}

} // namespace

void pass_host_resolution(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.first_host < 0 && d.first_rank >= 0)
		d.first_host = host_of_rank(cx.ev, d.first_rank);
	for (auto &s : d.suspects)
		if (s.host < 0)
			s.host = host_of_rank(cx.ev, s.rank);
}

} // namespace diag
