// A node lost on capacity the cloud may take back is a preemption, not a
// failure: the job's launch asked for spot or preemptible VMs, or the
// cloud's own notice that it reclaimed a node came before the loss under
// another of the node's names (Ray's autoscaler names the VM, its
// heartbeat detector the address). The node to look at stays the one lost;
// an admin requeues rather than drains. (A node's name is no evidence: a
// "spot" in it says how someone named it, and verdicts must not change
// when hosts are renamed.)
#include "deciding/context.hh"
#include "aligning/host_aliases.hh"

namespace diag {

namespace {

// A notice this long after the loss is about something else. (A cloud's
// record of the preemption lags it by minutes: Azure's Resource Health
// event is stamped when the health check noticed, not when the VM went.)
constexpr int64_t notice_after_us = 10LL * 60 * 1000000;

} // namespace

void pass_reclaimed_node(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::node_failure)
		return;
	std::string why;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || e.cls != failure_class::preemption || e.role != event_role::initiating)
			continue;
		// (A loss reported on a line of no time of its own was somewhere
		// between its neighbours' stamps: as late as the later one.)
		if (d.first && d.first->time_us != no_time && e.time_us != no_time &&
		    e.time_us > d.first->time_us + notice_after_us + d.first->time_spread_us())
			continue;
		// A notice of no known time about another machine, and not just
		// above the loss in its file (a cluster's event list, "61m ago":
		// any pod's, any node's), says nothing of this loss.
		if (e.time_us == no_time && e.host >= 0 && d.first_host >= 0 && e.host != d.first_host &&
		    !same_machine_as(cx.ev, d.first_host, e.host) && !(d.first && e.file == d.first->file && e.line < d.first->line))
			continue;
		why = "the cloud said it reclaimed a node (" + e.text.substr(0, 120) + ") before one was lost";
		break;
	}
	if (why.empty())
		for (const auto &e : cx.ev.events)
			if (!e.dropped && !e.capture("spot_capacity").empty()) {
				why = "the job ran on spot/preemptible capacity (" + e.capture("spot_capacity") + ")";
				break;
			}
	if (why.empty())
		return;
	d.cls = failure_class::preemption;
	d.notes.push_back("a node lost rather than failed: " + why);
}

} // namespace diag
