// The same fault on many ranks at once (an import error everywhere, every
// agent's rendezvous timing out) is the environment's, not one rank's:
// nobody is singled out. So is a launch fault on every rank of a small job.
#include "deciding/context.hh"

#include <algorithm>
#include <cmath>
#include <set>

namespace diag {

void pass_common_mode(diagnosis_context &cx)
{
	const candidate &best = cx.best;
	if (!best.e)
		return;
	std::set<int> same, hosts;
	// A traceback ends its process: the same exception after a traceback
	// on lines that name no rank is as many processes as it shows.
	int unranked = 0;
	// Each traceback ends one process, also where many share one label
	// (a node's torchrun agent under srun --label relays all its workers).
	size_t tracebacks = 0;
	for (const auto &c : cx.cands) {
		if (c.e->r ? c.e->r != best.e->r : c.e->rule_id != best.e->rule_id)
			continue;
		bool process_end = c.e->kind == rule_kind::exception && !c.e->capture("traceback_line").empty();
		if (c.e->rank < 0 && !process_end)
			continue;
		bool together = c.e->time_us == no_time || best.e->time_us == no_time ||
				std::fabs(static_cast<double>(c.e->time_us - best.e->time_us)) / 1e6 <= c.unc + best.unc + 1.0;
		if (together) {
			if (process_end)
				tracebacks++;
			if (c.e->rank >= 0)
				same.insert(c.e->rank);
			else
				unranked++;
			hosts.insert(c.e->host);
		}
	}
	size_t processes = std::max(same.size() + static_cast<size_t>(unranked), tracebacks);
	int world = cx.ev.ranks.world_size();
	bool every_rank = best.e->cls == failure_class::launch_failure && world >= 2 && same.size() == static_cast<size_t>(world);
	// Transport errors show on both ends of a link by nature: not an
	// environment-wide fault.
	if ((processes >= 3 || every_rank) && best.e->cls != failure_class::network) {
		cx.d.common_mode = static_cast<int>(processes);
		cx.d.common_host = hosts.size() == 1 ? *hosts.begin() : -1;
	}
}

} // namespace diag
