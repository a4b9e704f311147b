// A node lost (Slurm's NODE_FAIL, "Node failure on N", a node that stopped
// answering) minutes after its kernel's OOM killer took the job's processes
// there ran out of memory: thrashing, its daemons starved, it stopped
// answering. The memory, not the machine, is what to fix; the node and the
// rank whose process went first stay.
#include "deciding/context.hh"
#include "aligning/host_aliases.hh"

#include <algorithm>

namespace diag {

namespace {

// How long before the loss the OOM killer's work may still explain it: a
// node thrashing under memory pressure takes minutes to stop answering.
constexpr int64_t starved_before_us = 30LL * 60 * 1000000;

} // namespace

void pass_starved_node(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::node_failure || d.first_host < 0 || !d.first || d.first->time_us == no_time)
		return;
	const int64_t lost = d.first->time_us + d.first->time_spread_us();
	const event *oom = nullptr;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || e.decoy || e.cls != failure_class::host_oom || e.role != event_role::initiating ||
		    e.host < 0 || e.time_us == no_time || e.time_us > lost || e.time_us < lost - starved_before_us ||
		    cx.ev.sources()[e.file].kind != source_kind::kernel_log || !same_machine_as(cx.ev, d.first_host, e.host))
			continue;
		if (!oom || e.time_us < oom->time_us)
			oom = &e;
	}
	if (!oom)
		return;
	const long long minutes = (d.first->time_us - oom->time_us) / (60LL * 1000000);
	d.notes.push_back("the node was lost " + std::to_string(std::max(0LL, minutes)) +
			  " minutes after its kernel killed the job's processes for memory (" + cx.ev.where(*oom) +
			  "): it ran out of memory");
	d.cls = failure_class::host_oom;
	d.first = oom;
	if (oom->rank >= 0)
		d.first_rank = oom->rank;
}

} // namespace diag
