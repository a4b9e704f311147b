// The diagnosis as named passes over a shared context (context.hh), then
// the verdict put into words (rendering/explain.hh).
#include "deciding/diagnose.hh"

#include "deciding/context.hh"
#include "rendering/explain.hh"

namespace diag {

bool earlier_event(const event &a, const event &b)
{
	if (a.time_us != b.time_us) {
		if (a.time_us == no_time || b.time_us == no_time)
			return b.time_us == no_time;
		return a.time_us < b.time_us;
	}
	return a.order < b.order;
}

bool came_before(const event &a, const event &b)
{
	if (a.file == b.file)
		return a.line < b.line;
	if (a.time_us == no_time || b.time_us == no_time)
		return false;
	return a.time_us + a.time_spread_us() < b.time_us - b.time_spread_us();
}

verdict diagnose(diagnosis_input &in)
{
	diagnosis_context cx(*in.ev, *in.kn, *in.clock, in.fr);
	pass_xid_meaning(cx);
	pass_exit_signals(cx);
	pass_relevance(cx);
	pass_slurm_last_word(cx);
	pass_fault_choice(cx);
	pass_common_mode(cx);
	pass_hang_structure(cx);
	pass_stall_report(cx);
	pass_decide(cx);
	pass_stopped_while_hung(cx);
	pass_stalled_before_end(cx);
	pass_peer_fault(cx);
	pass_mutual_link_errors(cx);
	pass_link_fault_rank(cx);
	pass_launch_phase(cx);
	pass_nan_origin(cx);
	pass_host_resolution(cx);
	pass_starved_node(cx);
	pass_reclaimed_node(cx);
	pass_confidence(cx);

	verdict v;
	v.job_id = cx.ev.job.job_id;
	explain_input x{cx.ev, cx.kn, cx.clk, cx.fr, cx.d};
	word_verdict(x, v);
	const event *recovery = choose_next_action(x, v);
	pick_evidence(x, recovery, v);
	return v;
}

} // namespace diag
