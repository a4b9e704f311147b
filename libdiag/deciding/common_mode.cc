// The same fault on many ranks at once (an import error everywhere, every
// agent's rendezvous timing out) is the environment's, not one rank's:
// nobody is singled out.
#include "deciding/context.hh"

#include <cmath>
#include <set>

namespace diag {

void pass_common_mode(diagnosis_context &cx)
{
	const candidate &best = cx.best;
	if (!best.e)
		return;
	std::set<int> same, hosts;
	for (const auto &c : cx.cands) {
		if (c.e->rank < 0 || (c.e->r ? c.e->r != best.e->r : c.e->rule_id != best.e->rule_id))
			continue;
		bool together = c.e->time_us == no_time || best.e->time_us == no_time ||
				std::fabs(static_cast<double>(c.e->time_us - best.e->time_us)) / 1e6 <= c.unc + best.unc + 1.0;
		if (together) {
			same.insert(c.e->rank);
			hosts.insert(c.e->host);
		}
	}
	// Transport errors show on both ends of a link by nature: not an
	// environment-wide fault.
	if (same.size() >= 3 && best.e->cls != failure_class::network) {
		cx.d.common_mode = static_cast<int>(same.size());
		cx.d.common_host = hosts.size() == 1 ? *hosts.begin() : -1;
	}
}

} // namespace diag
