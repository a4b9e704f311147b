// Xid lines take their meaning from conf/xid.yaml; Xid 154 names the
// recovery action (context for the next action, not a fault of its own).
#include "deciding/context.hh"

namespace diag {

bool standing_recovery_action(const evidence &ev, const event &e)
{
	const std::string action = e.capture("action");
	if (e.kind != rule_kind::xid || action.empty() || action == "0x0" || action == "0" || e.time_us == no_time)
		return false;
	for (const auto &x : ev.events) {
		if (x.host != e.host || x.time_us == no_time || x.time_us <= e.time_us)
			continue;
		if (x.r && x.r->id == "node.kernel_boot")
			return false; // (a boot resets every GPU)
		if (x.capture("pci") == e.capture("pci") && (x.capture("action") == "0x0" || x.capture("action") == "0"))
			return false;
	}
	return true;
}

void pass_xid_meaning(diagnosis_context &cx)
{
	for (auto &e : cx.ev.events) {
		if (e.kind != rule_kind::xid || e.xid < 0)
			continue;
		if (e.xid == 154) {
			e.role = event_role::context;
			continue;
		}
		if (const xid_info *x = cx.kn.xid(e.xid)) {
			e.cls = x->cls;
			e.role = x->role;
			e.weight = x->weight;
		}
	}
}

} // namespace diag
