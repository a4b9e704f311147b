// A node lost on capacity the cloud may take back is a preemption, not a
// failure: the job's nodes were spot or preemptible VMs (their names or the
// job's launch say so), or the cloud's own notice that it reclaimed a node
// came before the loss under another of the node's names (Ray's autoscaler
// names the VM, its heartbeat detector the address). The node to look at
// stays the one lost; an admin requeues rather than drains.
#include "deciding/context.hh"

#include <cctype>

namespace diag {

namespace {

// A notice this long after the loss is about something else.
constexpr int64_t notice_after_us = 120LL * 1000000;

// "mlc-a2spot-ghpc-1", "gke-a100-spot-4g-...", "tpu-v4-preemptible-32":
// a name that says which capacity the VM was bought on.
bool spot_name(const std::string &host)
{
	std::string h;
	for (char c : host)
		h += static_cast<char>(tolower(static_cast<unsigned char>(c)));
	return h.find("spot") != std::string::npos || h.find("preemptible") != std::string::npos;
}

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
		if (d.first && d.first->time_us != no_time && e.time_us != no_time &&
		    e.time_us > d.first->time_us + notice_after_us)
			continue;
		why = "the cloud said it reclaimed a node (" + e.text.substr(0, 120) + ") before one was lost";
		break;
	}
	if (why.empty() && d.first_host >= 0 && spot_name(cx.ev.host_name(d.first_host)))
		why = "the node lost, " + cx.ev.host_name(d.first_host) + ", is a spot/preemptible VM by its name";
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
