// Slurm's last word: the job's final State in sacct, as a candidate event
// when no log line said it. It decides the class only when nothing earlier
// and still relevant explains the end (fault_choice orders it by time).
// Without sacct, a step that slurmstepd cancelled before anything of the
// job had gone wrong was cancelled from outside (scancel); a job that the
// user interrupted (Ctrl-C) before anything went wrong was stopped by them,
// and so was one whose launcher was told to stop where no scheduler ran.
// A worker whose death its runner could only guess at (Ray's "exits with a
// connection error code 2", the OOM killer first of the causes it lists),
// before anything went wrong, died of that guess.
#include "deciding/context.hh"
#include "deciding/exits.hh"

#include <algorithm>

#include <climits>
#include <cstdio>
#include <csignal>

namespace diag {

namespace {

// A job that sacct says failed or was cancelled by a signal (ExitCode
// "0:2", or a shell's 128+N) within minutes of its time limit: the signal
// Slurm sends ahead of the limit (--signal=B:INT@30, USR1@600 for a
// checkpoint) ended it, not the user. The margin is that lead: up to ten
// minutes, a tenth of a short limit.
bool ended_at_the_limit(const job_facts &job)
{
	if (job.elapsed_s < 0 || job.timelimit_s <= 0)
		return false;
	int64_t margin = std::min<int64_t>(600, std::max<int64_t>(60, job.timelimit_s / 10));
	const bool near_the_limit = job.elapsed_s <= job.timelimit_s && job.timelimit_s - job.elapsed_s <= margin;
	// A job requeued in those minutes: its handler of the limit's warning
	// signal (--signal=B:USR1@N, "scontrol requeue") put it back.
	if (job.state == "REQUEUED")
		return near_the_limit;
	if (job.state != "FAILED" && job.state != "CANCELLED")
		return false;
	long long code = -1, sig = -1;
	size_t colon = job.exit_code.find(':');
	if (colon == std::string::npos || !parse_uint_str(job.exit_code.substr(0, colon), code) ||
	    !parse_uint_str(job.exit_code.substr(colon + 1), sig))
		return false;
	if (sig == 0 && code <= 128)
		return false;
	return near_the_limit;
}

// Seconds as sacct prints a duration: [D-]HH:MM:SS.
std::string clock_duration(int64_t secs)
{
	char buf[48];
	int64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, x = secs % 60;
	if (d > 0)
		snprintf(buf, sizeof(buf), "%lld-%02lld:%02lld:%02lld", static_cast<long long>(d), static_cast<long long>(h),
			 static_cast<long long>(m), static_cast<long long>(x));
	else
		snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", static_cast<long long>(h), static_cast<long long>(m),
			 static_cast<long long>(x));
	return buf;
}

// Something of the job that went wrong on its own: a fault, a process that
// failed (an exit code, a crash, a kill), a timeout, a victim's symptom of
// a fault. The teardown a cancellation causes (a launcher's SIGTERM to its
// workers, srun's "Terminated") is none, nor what the job survived.
bool trouble(const event &e)
{
	if (e.dropped || e.decoy || e.handled || e.kind == rule_kind::job_end)
		return false;
	if (e.kind == rule_kind::task_exit)
		return e.exitcode > 0 || (e.signal > 0 && e.signal != SIGTERM && e.signal != SIGINT && e.signal != SIGHUP);
	if (e.kind == rule_kind::watchdog || e.role == event_role::initiating)
		return true;
	return e.role == event_role::victim && e.cls != failure_class::unknown && e.cls != failure_class::user_cancel;
}

// The first sign of a stop from outside (first, or null) becomes the job's
// end when nothing of the job went wrong before it.
void end_without_cause(evidence &ev, event *first)
{
	if (!first)
		return;
	for (const auto &e : ev.events)
		if (&e != first && trouble(e) && came_before(e, *first))
			return;
	first->role = event_role::initiating;
	first->weight = 45;
	first->why_not.clear();
	// The remote shells the stop tore down (pdsh killing its ssh children:
	// "Connection to H closed by remote host", ssh's exit 255) are its
	// teardown, not nodes lost.
	for (auto &e : ev.events)
		if (&e != first && !e.dropped && e.role == event_role::initiating && e.r && e.r->family == "remote_shell" &&
		    e.cls == failure_class::node_failure && came_before(*first, e)) {
			e.role = event_role::victim;
			e.why_not = "a remote shell closed by the stop before it";
		}
	// So are the native crashes of processes dying under it, below it in
	// its file (a DataLoader worker's segfault, "terminate called
	// recursively" as a rank unwinds): they did not end the job.
	for (auto &e : ev.events)
		if (&e != first && !e.dropped && e.role == event_role::initiating && e.cls == failure_class::segfault &&
		    e.file == first->file && e.line > first->line) {
			e.role = event_role::victim;
			e.why_not = "after the stop: its teardown";
		}
}

// srun's "STEP J.S ON node CANCELLED AT t" names no reason: scancel, or
// srun tearing the step down after a task failed. With nothing of the job
// going wrong before it, the former: the earliest such line becomes the
// job's end, a cancellation.
void step_cancel_without_cause(evidence &ev)
{
	if (!ev.job.state.empty())
		return; // sacct says how the job ended
	event *first = nullptr;
	for (auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::job_end)
			continue;
		if (e.role == event_role::initiating || (e.role == event_role::victim && e.cls != failure_class::user_cancel))
			return; // a line says why the job ended (a time limit, a task's failure)
		if (e.cls == failure_class::user_cancel && (!first || came_before(e, *first) ||
							    (first->time_us == no_time && e.time_us != no_time)))
			first = &e;
	}
	end_without_cause(ev, first);
}

// Ctrl-C: a KeyboardInterrupt, a launcher that got SIGINT. With nothing of
// the job going wrong before it, the user stopped the job: the earliest
// such sign becomes its end, a cancellation. (After a fault or a timeout it
// is the user giving up on a job already failing: that fault decides.)
//
// A launcher told to stop by SIGTERM or SIGHUP (the terminal that started it
// closed) is the same where no scheduler ran or spoke for the job (no Slurm
// job, banner or srun line, no cluster manager's word on the job's end: a
// pod deleted, a container stopped, nohup):
// someone stopped it. Under Slurm that SIGTERM is as often the time limit
// or a preemption whose banner was not kept: it decides nothing.
bool under_scheduler(const evidence &ev)
{
	if (!ev.job.job_id.empty() || !ev.job.state.empty() || !ev.job.nodelist.empty() || !ev.plugin_tasks.empty())
		return true;
	// Slurm's own lines, another scheduler's or cluster manager's, or any
	// word on the job's end.
	for (const auto &e : ev.events)
		if (!e.dropped && ((e.r && (e.r->family == "slurm" || e.r->family == "scheduler" ||
					    e.r->family == "orchestrator")) ||
				   e.kind == rule_kind::job_end))
			return true;
	return false;
}

// sacct's word that the job ended well (COMPLETED), not at its limit:
// Slurm neither timed it out nor preempted it (those are states of their
// own), so a SIGTERM its processes got, and stopped on, came from someone
// else (scancel --signal, which bypasses the controller; a kill). (FAILED
// is left out: srun's SIGTERM to a failed task's siblings ends that way.)
bool scheduler_did_not_stop_it(const job_facts &j)
{
	return j.state == "COMPLETED" && !ended_at_the_limit(j);
}

void interrupt_without_cause(evidence &ev)
{
	// The interrupt that came with the time limit is the limit's.
	if (ended_at_the_limit(ev.job))
		return;
	const bool scheduled = under_scheduler(ev) && !scheduler_did_not_stop_it(ev.job);
	event *first = nullptr;
	for (auto &e : ev.events)
		if (!e.dropped && e.cls == failure_class::user_cancel && e.role == event_role::context &&
		    (!scheduled || (e.signal != SIGTERM && e.signal != SIGHUP)) &&
		    (!first || came_before(e, *first) || (first->time_us == no_time && e.time_us != no_time)))
			first = &e;
	end_without_cause(ev, first);
}

// A worker's end its runner reports with a likely cause but no word of the
// worker's own (a task_exit rule with a class, in context): where nothing
// of the job went wrong before it, the likely cause is the job's end. After
// a fault or a timeout it is that fault's teardown.
void unexplained_death_without_cause(evidence &ev)
{
	event *first = nullptr;
	for (auto &e : ev.events)
		if (!e.dropped && e.kind == rule_kind::task_exit && e.role == event_role::context &&
		    e.cls != failure_class::unknown && e.cls != failure_class::user_cancel &&
		    (!first || came_before(e, *first) || (first->time_us == no_time && e.time_us != no_time)))
			first = &e;
	end_without_cause(ev, first);
	if (first && first->role == event_role::initiating)
		first->weight = 30; // a guess: the kernel log would confirm it
}

bool sacct_state_event(const evidence &ev, event &out)
{
	const std::string &s = ev.job.state;
	failure_class c;
	if (s == "TIMEOUT" || s == "DEADLINE" || ended_at_the_limit(ev.job))
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
	out.text = "job " + ev.job.job_id + " " + ev.job.state_detail;
	if (c == failure_class::time_limit && s != "TIMEOUT" && s != "DEADLINE")
		out.text += " (ExitCode " + ev.job.exit_code + ") after " + clock_duration(ev.job.elapsed_s) + " of its " +
			    clock_duration(ev.job.timelimit_s) + " time limit";
	out.file = UINT32_MAX;
	return true;
}

} // namespace

bool job_level(failure_class c)
{
	return c == failure_class::time_limit || c == failure_class::preemption || c == failure_class::user_cancel ||
	       c == failure_class::node_failure;
}

// A step's banner ("*** STEP J.0 ... CANCELLED ... DUE TO TIME LIMIT", a
// staging step run under its own --time) that the job outlived: a banner
// of the job itself, or of a later step, came after it in the same file,
// minutes later. That step ended; the job went on, and its own end is the
// later banner's.
void step_banners_the_job_outlived(evidence &ev)
{
	constexpr int64_t outlived_us = 5LL * 60 * 1000000;
	for (auto &e : ev.events) {
		const std::string step = e.capture("step");
		if (e.dropped || e.kind != rule_kind::job_end || step.empty() || e.time_us == no_time)
			continue;
		for (const auto &later : ev.events)
			if (!later.dropped && later.kind == rule_kind::job_end && later.file == e.file && later.line > e.line &&
			    later.capture("job") == e.capture("job") && later.capture("step") != step &&
			    later.time_us != no_time && later.time_us - e.time_us > outlived_us) {
				e.dropped = true;
				e.why_not = "a step the job outlived: its own end came later (" + ev.where(later) + ")";
				break;
			}
	}
}

void pass_slurm_last_word(diagnosis_context &cx)
{
	step_banners_the_job_outlived(cx.ev);
	step_cancel_without_cause(cx.ev);
	interrupt_without_cause(cx.ev);
	unexplained_death_without_cause(cx.ev);
	cx.have_sacct = sacct_state_event(cx.ev, cx.sacct_ev);
}

} // namespace diag
