// What to do next: the class's action from conf/actions.yaml, the Xid's own
// from conf/xid.yaml, and Xid 154's stated recovery action; {host}, {rank}
// and {xid} filled in, unknown values as words.
#include "rendering/explain.hh"

#include <utility>

namespace diag {

const event *choose_next_action(const explain_input &x, verdict &v)
{
	const evidence &ev = x.ev;
	const decision &d = x.d;
	const event *first = d.first;
	action_info act = x.kn.action_for(d.cls);
	if (first && first->kind == rule_kind::xid && first->xid >= 0)
		if (const xid_info *xi = x.kn.xid(first->xid)) {
			act.kind = xi->action;
			if (!xi->text.empty())
				act.text = xi->text;
		}
	const event *recovery = nullptr;
	if (d.cls == failure_class::gpu_hardware) {
		for (const auto &e : ev.events)
			if (!e.dropped && e.kind == rule_kind::xid && e.xid == 154 && e.recovery_action >= 0 &&
			    (d.first_host < 0 || e.host == d.first_host))
				recovery = &e;
		if (recovery)
			if (auto ra = x.kn.recovery_action(recovery->recovery_action)) {
				act.kind = ra->kind;
				act.text = "the driver asks for: " + ra->text;
			}
	}
	v.action = act.kind;
	std::string host_s = d.first_host >= 0 ? ev.host_name(d.first_host) : "the node";
	v.action_text = fill_template(act.text, [&](const std::string &name) -> std::string {
		if (name == "host")
			return host_s;
		if (name == "rank")
			return d.first_rank >= 0 ? std::to_string(d.first_rank) : "?";
		if (name == "xid")
			return first && first->xid >= 0 ? std::to_string(first->xid) : "?";
		return "";
	});
	// Unknown values read better as words than as a question mark.
	for (const auto &[from, to] : {std::pair<std::string, std::string>{"Rank ?", "The failing rank"},
				       {"rank ?", "the failing rank"}, {"Xid ?", "the Xid"},
				       {"Node the node", "A node"}}) {
		for (size_t p = v.action_text.find(from); p != std::string::npos; p = v.action_text.find(from, p))
			v.action_text.replace(p, from.size(), to);
	}
	return recovery;
}

} // namespace diag
