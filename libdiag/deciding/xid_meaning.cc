// Xid lines take their meaning from conf/xid.yaml; Xid 154 names the
// recovery action (context for the next action, not a fault of its own).
#include "deciding/context.hh"

namespace diag {

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
