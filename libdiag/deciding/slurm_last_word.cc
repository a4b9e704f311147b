// Slurm's last word: the job's final State in sacct, as a candidate event
// when no log line said it. It decides the class only when nothing earlier
// and still relevant explains the end (fault_choice orders it by time).
#include "deciding/context.hh"

namespace diag {

namespace {

bool sacct_state_event(const evidence &ev, event &out)
{
	const std::string &s = ev.job.state;
	failure_class c;
	if (s == "TIMEOUT" || s == "DEADLINE")
		c = failure_class::time_limit;
	else if (s == "PREEMPTED")
		c = failure_class::preemption;
	else if (s == "NODE_FAIL" || s == "BOOT_FAIL")
		c = failure_class::node_failure;
	else if (s == "CANCELLED")
		c = failure_class::user_cancel;
	else if (s == "OUT_OF_MEMORY")
		c = failure_class::host_oom;
	else
		return false;
	out = event();
	out.rule_id = "sacct.state";
	out.cls = c;
	out.role = event_role::initiating;
	out.kind = c == failure_class::host_oom ? rule_kind::plain : rule_kind::job_end;
	out.weight = c == failure_class::host_oom ? 60 : c == failure_class::node_failure ? 88 : 45;
	out.time_us = out.raw_us = ev.job.end_us;
	out.text = "sacct: job " + ev.job.job_id + " " + ev.job.state_detail;
	out.file = UINT32_MAX;
	return true;
}

} // namespace

bool job_level(failure_class c)
{
	return c == failure_class::time_limit || c == failure_class::preemption || c == failure_class::user_cancel ||
	       c == failure_class::node_failure;
}

void pass_slurm_last_word(diagnosis_context &cx)
{
	cx.have_sacct = sacct_state_event(cx.ev, cx.sacct_ev);
}

} // namespace diag
