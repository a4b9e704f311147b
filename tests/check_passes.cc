// The diagnosis passes one at a time, on evidence built by hand: each test
// sets up what a pass reads and checks only what that pass decides.
#include "ck_cxx.hh"
#include "aligning/clock.hh"
#include "aligning/identities.hh"
#include "aligning/rank_layout.hh"
#include "deciding/context.hh"
#include "deciding/diagnose.hh"

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>

#include <unistd.h>

using namespace diag;

namespace {

constexpr int64_t t0 = 1780000000LL * us_per_s; // some instant in 2026

struct fixture {
	evidence ev;
	knowledge kn;
	clock_result clk;
	hang_structure fr;
	uint32_t log = 0, kern = 0;
	fixture()
	{
		source_file s;
		s.path = "job.out";
		s.kind = source_kind::job_log;
		log = ev.add_source(s);
		s.path = "kern.log";
		s.kind = source_kind::kernel_log;
		kern = ev.add_source(s);
		clk.default_uncertainty_s = 0.5;
	}
	// An event on the common clock at t0 + secs, stamped so on its line.
	event &add(failure_class cls, event_role role, int rank, double secs, uint64_t line, uint32_t file = 0,
		   const char *rule = "test.rule")
	{
		event e;
		e.rule_id = rule;
		e.cls = cls;
		e.role = role;
		e.rank = rank;
		e.file = file;
		e.line = line;
		e.order = ev.events.size();
		e.time_us = e.raw_us = t0 + static_cast<int64_t>(secs * 1e6);
		e.ts.kind = ts_kind::absolute;
		e.ts.epoch_us = e.time_us;
		ev.events.push_back(e);
		return ev.events.back();
	}
};

} // namespace

// The rank map knows that rank ran on host (as its local rank, on its CUDA
// device, where given).
static void place(fixture &f, int rank, const char *host, int local_rank = -1, int cuda_dev = -1)
{
	rank_info ri;
	ri.rank = rank;
	ri.host = f.ev.intern_host(host);
	ri.local_rank = local_rank;
	ri.cuda_dev = cuda_dev;
	f.ev.ranks.add(ri);
}

// Stamps e with the wall time a zone_s zone shows at utc_s, as a line with
// no zone of its own prints it.
static void stamp_local(event &e, int64_t utc_s, int zone_s)
{
	time_t t = static_cast<time_t>(utc_s + zone_s);
	struct tm tm;
	gmtime_r(&t, &tm);
	e.ts = ts_value{};
	e.ts.kind = ts_kind::local;
	e.ts.year = tm.tm_year + 1900, e.ts.month = tm.tm_mon + 1, e.ts.day = tm.tm_mday;
	e.ts.hour = tm.tm_hour, e.ts.minute = tm.tm_min, e.ts.second = tm.tm_sec;
}

START_TEST(relevance_drops_kernel_lines_from_before_the_job)
{
	fixture f;
	f.ev.job.job_id = "77";
	f.ev.job.start_us = t0;
	f.ev.job.end_us = t0 + 3600 * us_per_s;
	f.add(failure_class::gpu_hardware, event_role::initiating, 0, -2 * 3600, 1, f.kern);
	f.add(failure_class::cuda_oom, event_role::initiating, 1, 600, 5, f.log);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_relevance(cx);
	ck_assert(f.ev.events[0].dropped);
	ck_assert(!f.ev.events[1].dropped);
	// sacct -P's local Start, placed by the zone the clock pass found: a
	// crash nine minutes before it is an earlier job's, as with a UTC Start.
	fixture g;
	g.ev.job.job_id = "78";
	g.ev.job.times_local = true;
	g.ev.job.start_us = t0;
	g.ev.job.end_us = t0 + 3600 * us_per_s;
	g.add(failure_class::segfault, event_role::initiating, -1, -9 * 60, 1, g.kern);
	g.add(failure_class::segfault, event_role::initiating, -1, 11 * 60, 2, g.kern);
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_relevance(cy);
	ck_assert(g.ev.events[0].dropped);
	ck_assert(!g.ev.events[1].dropped);
}
END_TEST

// With no start from Slurm, the job's first sign of life bounds the kernel
// lines that count; a collective that timed out was started its timeout
// before the watchdog said so: an Xid half an hour before the first
// stamped line of the job, just before that collective began, stays.
START_TEST(relevance_a_timed_out_collective_was_alive_its_timeout_earlier)
{
	for (int with_timeout = 0; with_timeout <= 1; with_timeout++) {
		fixture f;
		f.add(failure_class::gpu_hardware, event_role::initiating, -1, -30 * 60 - 2, 1, f.kern);
		event &w = f.add(failure_class::collective_hang, event_role::victim, 0, 0, 15, f.log);
		if (with_timeout)
			w.captures.emplace_back("timeout_ms", "1800000");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert_int_eq(f.ev.events[0].dropped, !with_timeout);
	}
}
END_TEST

START_TEST(relevance_drops_what_names_another_job)
{
	fixture f;
	f.ev.job.job_id = "4418";
	event &c = f.add(failure_class::unknown, event_role::context, -1, 10, 1, f.kern);
	c.captures = {{"job", "4411"}, {"pid", "31877"}};
	event &k = f.add(failure_class::host_oom, event_role::initiating, -1, 10, 2, f.kern);
	k.captures = {{"pid", "31877"}};
	f.add(failure_class::python_exception, event_role::initiating, 0, 20, 9, f.log);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_relevance(cx);
	ck_assert(f.ev.events[0].dropped);
	ck_assert(f.ev.events[1].dropped); // the same report: same pid
	ck_assert(!f.ev.events[2].dropped);
}
END_TEST

START_TEST(relevance_drops_an_xid_of_another_process)
{
	fixture f;
	int host = f.ev.intern_host("gpu-c14");
	rank_info ri;
	ri.rank = 2;
	ri.host = host;
	ri.pid = 77022;
	f.ev.ranks.add(ri);
	for (const char *pid : {"1896", "77022"}) {
		event &x = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 1, f.kern);
		x.host = host;
		x.captures = {{"gpu_pid", pid}};
	}
	f.ev.events[1].time_us += 3600 * us_per_s; // another report, an hour later
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_relevance(cx);
	ck_assert(f.ev.events[0].dropped);
	ck_assert(!f.ev.events[1].dropped);
}
END_TEST

// The job's last stamped line bounds its end from below only: with no End
// from Slurm, a kernel fault hours after it (unstamped watchdogs between)
// stays; with Slurm's End, one after the end is another job's.
START_TEST(relevance_keeps_a_kernel_fault_after_the_last_stamp_without_slurms_end)
{
	for (int end_known = 0; end_known <= 1; end_known++) {
		fixture f;
		f.ev.job.start_us = t0;
		if (end_known)
			f.ev.job.end_us = t0 + 60 * us_per_s;
		f.add(failure_class::unknown, event_role::context, -1, 0, 1, f.log);
		f.add(failure_class::gpu_hardware, event_role::initiating, -1, 4 * 3600, 1, f.kern);
		event &w = f.add(failure_class::collective_hang, event_role::victim, 3, 0, 9, f.log);
		w.time_us = no_time;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert(f.ev.events[1].dropped == (end_known == 1));
	}
}
END_TEST

// A pid the job's own lines name on the node (its launcher stopping that
// worker) is the job's, though no rank is known for it.
START_TEST(relevance_keeps_an_xid_of_a_pid_the_jobs_lines_name)
{
	for (int named = 0; named <= 1; named++) {
		fixture f;
		int host = f.ev.intern_host("dgx0057");
		rank_info ri;
		ri.rank = 2;
		ri.host = host;
		ri.pid = 77022;
		f.ev.ranks.add(ri);
		event &x = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 1, f.kern);
		x.host = host;
		x.captures = {{"gpu_pid", "630199"}};
		event &stop = f.add(failure_class::unknown, event_role::victim, -1, 60, 7, f.log);
		stop.host = host;
		stop.captures = {{"pid", named ? "630199" : "630198"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert(f.ev.events[0].dropped == (named == 0));
	}
}
END_TEST

START_TEST(relevance_marks_what_the_rank_survived)
{
	fixture f;
	event &oom = f.add(failure_class::cuda_oom, event_role::initiating, 2, 0, 10);
	oom.writer_known = true;
	oom.key = 3;
	f.ev.last_progress[writer_key(f.log, 3)] = 500;
	event &last = f.add(failure_class::python_exception, event_role::initiating, 2, 7200, 900);
	last.writer_known = true;
	last.key = 3;
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_relevance(cx);
	ck_assert(f.ev.events[0].decoy);
	ck_assert(!f.ev.events[1].decoy);
}
END_TEST

START_TEST(relevance_reads_what_the_line_says)
{
	fixture f;
	event &e = f.add(failure_class::cuda_oom, event_role::initiating, -1, 0, 10);
	e.handled = true; // "..., retrying with a smaller batch"
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_relevance(cx);
	ck_assert(f.ev.events[0].decoy);
	ck_assert_uint_eq(cx.d.notes.size(), 1);
}
END_TEST

// A node reclaimed or lost is dealt with by no line's words: a managed
// controller's "Cluster is preempted ... Recovering..." followed by its
// "Ignoring the job cancellation failure" starts the job anew.
START_TEST(relevance_a_lost_node_is_not_dealt_with_by_words)
{
	for (failure_class cls : {failure_class::preemption, failure_class::node_failure}) {
		fixture f;
		event &e = f.add(cls, event_role::initiating, -1, 0, 10);
		e.handled = true;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert(!f.ev.events[0].decoy);
	}
}
END_TEST

START_TEST(relevance_shared_writer_needs_minutes_of_progress_before_the_collapse)
{
	// Unprefixed: progress of the shared writer 10 minutes later survives
	// it, unless that progress came after the collapse had begun.
	for (int collapse_first = 0; collapse_first < 2; collapse_first++) {
		fixture f;
		f.add(failure_class::segfault, event_role::initiating, -1, 0, 10);
		f.ev.last_progress[writer_key(f.log, 0)] = 400;
		f.ev.last_progress_us[writer_key(f.log, 0)] = t0 + 600 * us_per_s;
		if (collapse_first)
			f.add(failure_class::collective_hang, event_role::victim, 3, 300, 300);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert(f.ev.events[0].decoy == !collapse_first);
	}
}
END_TEST

// An unstamped line takes the last stamp before it, which may be minutes
// early: the shared writer's progress 10 minutes after that stamp is only
// seconds after the first stamp that follows the line, so survives nothing.
START_TEST(relevance_an_inherited_time_is_bounded_by_the_next_stamp)
{
	for (int hi_near = 0; hi_near < 2; hi_near++) {
		fixture f;
		event &e = f.add(failure_class::nan_inf, event_role::initiating, 25, 0, 10);
		e.inherited_time = true;
		e.ts_hi.kind = ts_kind::absolute;
		e.ts_hi.epoch_us = t0 + (hi_near ? 590 : 60) * us_per_s;
		f.ev.last_progress[writer_key(f.log, 0)] = 400;
		f.ev.last_progress_us[writer_key(f.log, 0)] = t0 + 600 * us_per_s;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert(f.ev.events[0].decoy == !hi_near);
	}
}
END_TEST

START_TEST(slurm_last_word_is_a_candidate_only_for_its_states)
{
	fixture f;
	f.ev.job.state = "TIMEOUT";
	f.ev.job.end_us = t0;
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_slurm_last_word(cx);
	ck_assert(cx.have_sacct);
	ck_assert(cx.sacct_ev.cls == failure_class::time_limit);
	fixture g;
	g.ev.job.state = "FAILED";
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_slurm_last_word(cy);
	ck_assert(!cy.have_sacct);
}
END_TEST

// Ctrl-C (a KeyboardInterrupt, the launcher's SIGINT) before anything went
// wrong is the user's stop; after a rank's watchdog timed out it is the
// user giving up on a job already failing, and decides nothing.
START_TEST(slurm_last_word_an_interrupt_before_any_trouble_is_the_users_stop)
{
	for (int timed_out = 0; timed_out <= 1; timed_out++) {
		fixture f;
		if (timed_out) {
			event &w = f.add(failure_class::collective_hang, event_role::victim, 1, 0, 5);
			w.kind = rule_kind::watchdog;
		}
		event &k = f.add(failure_class::user_cancel, event_role::context, 0, 60, 9, 0, "python.keyboard_interrupt");
		k.kind = rule_kind::exception;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_slurm_last_word(cx);
		const event &ki = f.ev.events.back();
		ck_assert(ki.role == (timed_out ? event_role::context : event_role::initiating));
	}
}
END_TEST

// A SIGTERM the program reports, under Slurm: its time limit and its
// preemption send the same signal, so it decides nothing; but where sacct
// says the job COMPLETED well short of its limit, Slurm did not stop it
// (scancel --signal bypasses the controller): someone's stop.
START_TEST(slurm_last_word_a_sigterm_in_a_job_slurm_calls_completed_is_someones_stop)
{
	for (int completed = 0; completed <= 1; completed++) {
		fixture f;
		f.ev.job.job_id = "7";
		f.ev.job.state = completed ? "COMPLETED" : "FAILED";
		f.ev.job.exit_code = completed ? "0:0" : "1:0";
		f.ev.job.elapsed_s = 3600;
		f.ev.job.timelimit_s = 86400;
		f.ev.job.end_us = t0 + 600 * us_per_s;
		event &k = f.add(failure_class::user_cancel, event_role::context, 2, 50, 9, 0, "shell.program_got_sigterm");
		k.signal = SIGTERM;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_slurm_last_word(cx);
		ck_assert(f.ev.events.back().role == (completed ? event_role::initiating : event_role::context));
	}
}
END_TEST

// A user's stop at pdsh's terminal kills its ssh children: the sessions
// closed after it ("Connection to H closed by remote host") are its
// teardown, not nodes lost. Closed before it, they are a fault of their own.
START_TEST(slurm_last_word_remote_shells_closed_after_a_stop_are_its_teardown)
{
	for (int closed_after = 0; closed_after <= 1; closed_after++) {
		fixture f;
		rule ssh;
		ssh.id = "test.connection_closed";
		ssh.family = "remote_shell";
		f.add(failure_class::user_cancel, event_role::context, -1, 10, closed_after ? 5 : 9, 0,
		      "remote_shell.pdsh_interrupted");
		event &c = f.add(failure_class::node_failure, event_role::initiating, -1, 10, closed_after ? 9 : 5);
		c.r = &ssh;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_slurm_last_word(cx);
		ck_assert(f.ev.events[1].role == (closed_after ? event_role::victim : event_role::initiating));
		ck_assert(f.ev.events[0].role == (closed_after ? event_role::initiating : event_role::context));
	}
}
END_TEST

// A worker's death its runner could only guess at (Ray's connection error
// code 2, the OOM killer first of its causes) is the job's end where
// nothing went wrong before it; after a watchdog timeout it is teardown.
START_TEST(slurm_last_word_an_unexplained_death_before_any_trouble_is_its_likely_cause)
{
	for (int timed_out = 0; timed_out <= 1; timed_out++) {
		fixture f;
		if (timed_out) {
			event &w = f.add(failure_class::collective_hang, event_role::victim, 1, 0, 5);
			w.kind = rule_kind::watchdog;
		}
		event &k = f.add(failure_class::host_oom, event_role::context, -1, 60, 9, 0, "ray.worker_died_unexplained");
		k.kind = rule_kind::task_exit;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_slurm_last_word(cx);
		const event &ki = f.ev.events.back();
		ck_assert(ki.role == (timed_out ? event_role::context : event_role::initiating));
		ck_assert(ki.cls == failure_class::host_oom);
	}
}
END_TEST

// A job that died of a signal in the last minutes of its time limit
// (Slurm's --signal=B:INT@30 ahead of the limit) reached its limit: the
// KeyboardInterrupt is the limit's, not the user's. An hour short of the
// limit, or a job that failed with an exit code of its own, is not. A job
// requeued in those minutes (its handler of the warning signal) reached it.
START_TEST(slurm_last_word_a_signal_at_the_time_limit_is_the_limit)
{
	struct {
		const char *state, *exit;
		int64_t elapsed;
		bool limit;
	} rows[] = {{"FAILED", "0:2", 14370, true},    {"CANCELLED", "0:15", 14100, true}, {"FAILED", "130:0", 14390, true},
		    {"FAILED", "0:2", 10800, false},   {"FAILED", "1:0", 14390, false},    {"COMPLETED", "0:0", 14399, false},
		    {"REQUEUED", "0:0", 14358, true},  {"REQUEUED", "0:0", 7200, false}};
	for (const auto &r : rows) {
		fixture f;
		f.ev.job.job_id = "7";
		f.ev.job.state = r.state;
		f.ev.job.exit_code = r.exit;
		f.ev.job.elapsed_s = r.elapsed;
		f.ev.job.timelimit_s = 14400;
		f.ev.job.end_us = t0 + 60 * us_per_s;
		event &k = f.add(failure_class::user_cancel, event_role::context, 0, 50, 9, 0, "python.keyboard_interrupt");
		k.kind = rule_kind::exception;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_slurm_last_word(cx);
		ck_assert_int_eq(cx.have_sacct && cx.sacct_ev.cls == failure_class::time_limit, r.limit);
		if (r.limit)
			ck_assert(f.ev.events.back().role == event_role::context);
	}
}
END_TEST

START_TEST(slurm_last_word_loses_to_an_earlier_relevant_fault)
{
	fixture f;
	f.ev.job.state = "CANCELLED";
	f.ev.job.end_us = t0 + 120 * us_per_s;
	f.add(failure_class::python_exception, event_role::initiating, 4, 0, 3);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_slurm_last_word(cx);
	pass_fault_choice(cx);
	ck_assert_ptr_eq(cx.best.e, &f.ev.events[0]);
}
END_TEST

START_TEST(fault_choice_takes_the_stronger_fault_on_the_same_host)
{
	fixture f;
	event &cuda = f.add(failure_class::cuda_error, event_role::initiating, 3, 0, 3);
	cuda.host = f.ev.intern_host("node1");
	cuda.weight = 60;
	const auto cuda_host = cuda.host;
	// add() may reallocate the events: cuda is not used after it.
	event &xid = f.add(failure_class::gpu_hardware, event_role::initiating, 3, 5, 1, f.kern);
	xid.host = cuda_host;
	xid.weight = 90;
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	ck_assert(cx.best.e->cls == failure_class::gpu_hardware);
}
END_TEST

// A node marked dead after the cloud said it reclaims that node: the
// reclaim. A preemption of another node, or one said long after, does not.
START_TEST(fault_choice_a_node_lost_after_its_reclaim_is_the_reclaim)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		int lost = f.ev.intern_host("10.0.3.47"), other = f.ev.intern_host("10.0.3.48");
		event &reclaim = f.add(failure_class::preemption, event_role::initiating, -1, variant == 0 ? 0 : variant == 1 ? 20 : 300, 3);
		reclaim.host = variant == 1 ? other : lost;
		reclaim.weight = 82;
		event &dead = f.add(failure_class::node_failure, event_role::initiating, -1, 17, 5);
		dead.host = lost;
		dead.weight = 88;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		ck_assert(cx.best.e->cls == (variant == 0 ? failure_class::preemption : failure_class::node_failure));
	}
}
END_TEST

// A node lost on spot capacity is taken back, not broken: the job's launch
// asked for such capacity, or the cloud's notice came first under another
// of its names. A plain node loss stays a failure, whatever the node's name.
START_TEST(reclaimed_node_a_lost_spot_vm_is_a_preemption)
{
	for (int variant = 0; variant < 5; variant++) {
		fixture f;
		int lost = f.ev.intern_host(variant == 1 ? "mlc-a2spot-ghpc-1" : "10.130.2.44");
		event &dead = f.add(failure_class::node_failure, event_role::initiating, -1, 17, 5);
		dead.host = lost;
		if (variant == 2) {
			event &hint = f.add(failure_class::unknown, event_role::context, -1, -600, 1);
			hint.captures = {{"spot_capacity", "--preemptible"}};
		}
		if (variant >= 3) {
			event &notice = f.add(failure_class::preemption, event_role::initiating, -1, variant == 3 ? 5 : 900, 3);
			notice.host = f.ev.intern_host("ray-worker-8b71d2e4-tpu");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::node_failure;
		cx.d.first = &f.ev.events[0];
		cx.d.first_host = lost;
		pass_reclaimed_node(cx);
		bool reclaimed = variant == 2 || variant == 3;
		ck_assert_msg(cx.d.cls == (reclaimed ? failure_class::preemption : failure_class::node_failure), "variant %d",
			      variant);
		ck_assert_int_eq(cx.d.first_host, lost);
	}
}
END_TEST

START_TEST(fault_choice_borrows_the_rank_of_the_same_fault_in_other_words)
{
	fixture f;
	f.add(failure_class::host_oom, event_role::initiating, -1, 0, 1, f.kern);
	f.add(failure_class::host_oom, event_role::initiating, 5, 2, 7);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	ck_assert_int_eq(cx.best.e->rank, 5);
	ck_assert_uint_eq(cx.d.support.size(), 1);
}
END_TEST

START_TEST(common_mode_needs_three_ranks_at_once)
{
	for (int n = 2; n <= 3; n++) {
		fixture f;
		for (int r = 0; r < n; r++)
			f.add(failure_class::launch_failure, event_role::initiating, r, 0.1 * r, 1 + static_cast<uint64_t>(r), 0,
			      "launch.import");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_eq(cx.d.common_mode, n == 3 ? 3 : 0);
	}
}
END_TEST

// A transport error shows on both ends of a link: on three nodes at once
// it is the fabric's (no rank), unless one node is an end of every report
// (the peers name the node that names one of them).
START_TEST(common_mode_network_on_three_nodes_unless_one_node_is_in_every_report)
{
	for (int named = 0; named <= 1; named++) {
		fixture f;
		const char *hosts[] = {"n1", "n2", "n3"};
		for (int r = 0; r < 3; r++) {
			int host = f.ev.intern_host(hosts[r]);
			event &e = f.add(failure_class::network, event_role::initiating, r, 0.1 * r, 1 + static_cast<uint64_t>(r), 0,
					 "nccl.ib_completion");
			e.host = host;
			if (named)
				e.captures = {{"peer", r == 0 ? "10.0.0.2<4000>" : "10.0.0.1<4000>"}};
			event &boot = f.add(failure_class::unknown, event_role::context, r, 0, 100 + static_cast<uint64_t>(r), 0,
					    "nccl.bootstrap");
			boot.host = host; // (e may have moved: add() grows the vector)
			boot.captures = {{"host_ip", std::string("10.0.0.") + std::to_string(r + 1)}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_eq(cx.d.common_mode, named ? 0 : 3);
	}
}
END_TEST

// The passes up to launch_phase on what a test set up, in diagnose()'s order
// (common mode left out where a test holds launch_phase apart from it).
static decision through_launch_phase(fixture &f, bool common_mode = true)
{
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	if (common_mode)
		pass_common_mode(cx);
	pass_decide(cx);
	pass_launch_phase(cx);
	return cx.d;
}

static void watchdog(fixture &f, int rank, long long seq, const std::string &op, const std::string &numel)
{
	event &e = f.add(failure_class::collective_hang, event_role::victim, rank, 600, 100 + static_cast<uint64_t>(rank));
	e.kind = rule_kind::watchdog;
	e.seq = seq;
	e.captures = {{"op", op}, {"numel", numel}};
}

// Hang structure on what f holds singles out exactly one rank, this one;
// what it found, for more checks.
static hang_view ck_sole_hang_suspect(fixture &f, int rank)
{
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	ck_assert_uint_eq(cx.hv.suspects.size(), 1);
	ck_assert_int_eq(cx.hv.suspects[0], rank);
	return cx.hv;
}

START_TEST(hang_structure_finds_the_desynced_rank)
{
	fixture f;
	for (int r = 0; r < 8; r++)
		watchdog(f, r, 511, r == 3 ? "BROADCAST" : "ALLREDUCE", r == 3 ? "112" : "33554432");
	hang_view hv = ck_sole_hang_suspect(f, 3);
	ck_assert(hv.why.find("desync") != std::string::npos);
}
END_TEST

// One rank of four waited in a collective and the others never did (they
// had finished): the lone one differs. Not with a fault in the logs, nor
// in a world of two.
START_TEST(hang_structure_a_lone_waiting_rank_of_three_or_more_differs)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		f.ev.ranks.note_world_size(variant == 2 ? 2 : 4);
		watchdog(f, 0, 48117, "ALLREDUCE", "1");
		if (variant == 1)
			f.add(failure_class::cuda_error, event_role::initiating, 2, 10, 50);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (variant == 0) {
			ck_assert_uint_eq(cx.hv.suspects.size(), 1);
			ck_assert_int_eq(cx.hv.suspects[0], 0);
		} else {
			ck_assert(std::find(cx.hv.suspects.begin(), cx.hv.suspects.end(), 0) == cx.hv.suspects.end());
		}
	}
}
END_TEST

// A rank waiting in a later collective got past the one the others wait
// in (a broadcast's root): the one among those that differs in size is the
// desync, not the one ahead.
START_TEST(hang_structure_a_rank_ahead_is_no_desync_the_odd_size_is)
{
	fixture f;
	watchdog(f, 0, 7221, "ALLREDUCE", "593920");
	for (int r = 1; r < 4; r++)
		watchdog(f, r, 7219, "BROADCAST", r == 2 ? "24084544" : "64");
	ck_sole_hang_suspect(f, 2);
}
END_TEST

// Collective mismatch reports name two ranks each: the rank in every
// pair of three or more reporters is the odd one; of two, either.
START_TEST(hang_structure_the_rank_in_every_mismatch_pair)
{
	for (int reporters : {8, 2}) {
		fixture f;
		for (int r = 0; r < reporters; r++) {
			event &e = f.add(failure_class::collective_hang, event_role::initiating, r, 5, 10 + static_cast<uint64_t>(r));
			e.kind = rule_kind::exception;
			e.captures = {{"mismatch_peer", r == 0 ? "1" : "0"}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (reporters == 8) {
			ck_assert_uint_eq(cx.hv.suspects.size(), 1);
			ck_assert_int_eq(cx.hv.suspects[0], 0);
		} else {
			ck_assert(cx.hv.suspects.empty());
		}
	}
}
END_TEST

START_TEST(hang_structure_singles_out_nobody_when_all_agree)
{
	fixture f;
	for (int r = 0; r < 8; r++)
		watchdog(f, r, 511, "ALLREDUCE", "1024");
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	ck_assert(cx.hv.suspects.empty());
	ck_assert_int_eq(cx.hv.reporting(), 8);
}
END_TEST

START_TEST(hang_structure_one_rank_of_two_behind_in_enqueued_work_stopped)
{
	fixture f;
	for (int r = 0; r < 2; r++) {
		watchdog(f, r, 511, "ALLREDUCE", "1024");
		f.ev.events.back().last_enqueued = r == 1 ? 511 : 513;
	}
	ck_sole_hang_suspect(f, 1);
	// Each waits in its own last enqueued collective (a SeqNum desync of
	// two): nothing says which strayed.
	fixture d;
	for (int r = 0; r < 2; r++) {
		watchdog(d, r, r == 1 ? 511 : 512, "ALLREDUCE", "1024");
		d.ev.events.back().last_enqueued = r == 1 ? 511 : 512;
	}
	diagnosis_context cd(d.ev, d.kn, d.clk, d.fr);
	pass_hang_structure(cd);
	ck_assert(cd.hv.suspects.empty());
	// Two of four behind: both suspects, neither singled out.
	fixture g;
	for (int r = 0; r < 4; r++) {
		watchdog(g, r, 511, "ALLREDUCE", "1024");
		g.ev.events.back().last_enqueued = r < 2 ? 511 : 513;
	}
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_hang_structure(cy);
	ck_assert(cy.hv.suspects.size() != 1);
}
END_TEST

START_TEST(hang_structure_a_rank_that_enqueued_the_collective_reached_it)
{
	// Three of four wait in SeqNum 511; rank 0 waits in 512. Rank 2
	// enqueued less than the others but did enqueue 511: it reached the
	// collective, and the SeqNum desync singles out rank 0.
	fixture f;
	const long long enq[] = {513, 512, 511, -1};
	for (int r = 0; r < 4; r++) {
		watchdog(f, r, r == 0 ? 512 : 511, "ALLREDUCE", "1024");
		f.ev.events.back().last_enqueued = enq[r];
	}
	ck_sole_hang_suspect(f, 0);
	// One that never enqueued 511 is still the one behind.
	fixture g;
	const long long behind[] = {513, 512, 510, 513};
	for (int r = 0; r < 4; r++) {
		watchdog(g, r, 511, "ALLREDUCE", "1024");
		g.ev.events.back().last_enqueued = behind[r];
	}
	ck_sole_hang_suspect(g, 2);
}
END_TEST

// Two pools' subgroups and a cross-pool pair each count their own work:
// the pair's SeqNum and enqueued work say nothing against the pools'. The
// rank of the world that reported nothing is the one missing.
START_TEST(hang_structure_compares_work_within_one_process_group)
{
	for (int groups = 1; groups <= 2; groups++) {
		fixture f;
		for (int r = 1; r < 8; r++) {
			bool cross = r == 4;
			watchdog(f, r, cross ? 5001 : 40011, cross ? "RECV" : "ALLREDUCE", cross ? "4194304" : "8388608");
			event &e = f.ev.events.back();
			e.last_enqueued = cross ? 5001 : 40011;
			if (groups == 2)
				e.captures.emplace_back("pg", cross ? "3" : r < 4 ? "1" : "2");
		}
		f.ev.ranks.note_world_size(8);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		ck_assert_uint_eq(cx.hv.suspects.size(), 1);
		ck_assert_int_eq(cx.hv.suspects[0], groups == 2 ? 0 : 4);
	}
}
END_TEST

START_TEST(hang_structure_keeps_every_flight_recorder_suspect)
{
	fixture f;
	f.fr.present = true;
	f.fr.suspects = {9, 14};
	f.fr.suspect_why = {"never enqueued #120", "no dump from rank 14"};
	f.fr.refused = {{"fr/rank_5", "forbidden pickle opcode REDUCE"}};
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::collective_hang);
	ck_assert_uint_eq(cx.d.suspects.size(), 2);
	ck_assert_int_eq(cx.d.suspects[1].rank, 14);
	ck_assert_uint_eq(cx.d.refused.size(), 1);
	ck_assert(!cx.d.rank_singled_out);
}
END_TEST

static event &sigkill(fixture &f, int rank, uint64_t line)
{
	event &k = f.add(failure_class::unknown, event_role::victim, rank, 700, line);
	k.kind = rule_kind::task_exit;
	k.signal = 9;
	return k;
}

// Only victims, of the network: the ranks of one node saw their
// connections closed by a peer on another node, whose one rank logged a
// network error of its own: that rank went first. Where each node's ranks
// saw the other close (both ends closed), nobody is blamed.
START_TEST(decide_victims_that_all_name_one_node_closing_blame_it)
{
	for (bool both_closed : {false, true}) {
		fixture f;
		place(f, 5, "pe-x12");
		place(f, 13, "pe-x13");
		for (int i = 0; i < 3; i++) {
			event &closed = f.add(failure_class::network, event_role::victim, 5, 2 + i, 20 + i);
			closed.host = f.ev.intern_host("pe-x12");
			closed.captures = {{"peer_closed", ""}, {"peer", "pe-x13<50387>"}};
		}
		event &own = f.add(failure_class::network, event_role::victim, 13, 0, 10);
		own.host = f.ev.intern_host("pe-x13");
		own.captures = {{"peer", "pe-x12<48211>"}};
		if (both_closed)
			own.captures.push_back({"peer_closed", ""});
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::network);
		if (both_closed) {
			ck_assert_int_lt(cx.d.first_rank, 0);
			ck_assert_int_lt(cx.d.first_host, 0);
		} else {
			ck_assert_int_eq(cx.d.first_rank, 13);
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "pe-x13");
		}
	}
}
END_TEST

START_TEST(decide_a_kill_after_the_timeouts_is_the_hang_culprit)
{
	fixture f;
	f.ev.tasks_are_ranks = true;
	for (int r = 0; r < 3; r++)
		watchdog(f, r, 5, "ALLREDUCE", "2048");
	sigkill(f, 3, 200);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::collective_hang);
	ck_assert_int_eq(cx.d.first_rank, 3);
}
END_TEST

// The rank srun SIGKILLed had reported its own watchdog timeout: it was
// waiting like the other, and the kill is the teardown. A hang, whatever
// order the unstamped lines of different files come in.
START_TEST(decide_a_kill_of_a_rank_that_timed_out_is_teardown)
{
	fixture f;
	f.ev.tasks_are_ranks = true;
	source_file task1;
	task1.path = "job-1.out";
	const uint32_t second = f.ev.add_source(task1);
	for (int r = 0; r < 2; r++) {
		watchdog(f, r, 53741, r ? "REDUCE_SCATTER" : "ALLREDUCE", "");
		f.ev.events.back().file = r ? second : f.log; // a file per task
		f.ev.events.back().time_us = no_time;
	}
	sigkill(f, 1, 3).time_us = no_time;
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::collective_hang);
}
END_TEST

START_TEST(decide_a_lone_kill_before_anything_else_names_its_rank_not_a_cause)
{
	fixture f;
	sigkill(f, 3, 20);
	for (int r = 0; r < 3; r++)
		watchdog(f, r, 5, "ALLREDUCE", "2048");
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_decide(cx);
	// SIGKILL alone never says out of memory (issue 11, kind 3).
	ck_assert(cx.d.cls == failure_class::unknown);
	ck_assert_int_eq(cx.d.first_rank, 3);
	DIAG_CK_STR_EQ(cx.d.confidence, "low");
}
END_TEST

// A worker's launcher reporting its SIGKILL (torchrun's "exitcode: -9") did
// not send it; with no stop announced, the OOM killer did, as a guess. An
// announced stop (a cancel) keeps it a kill of unknown cause.
START_TEST(decide_a_launcher_reported_kill_with_no_stop_announced_is_the_oom_killer)
{
	for (bool cancelled : {false, true}) {
		fixture f;
		event &k = sigkill(f, 3, 20);
		k.exitcode = -9;
		k.captures = {{"exitcode", "-9"}, {"local_rank", "3"}};
		if (cancelled)
			f.add(failure_class::user_cancel, event_role::victim, -1, 900, 30);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == (cancelled ? failure_class::unknown : failure_class::host_oom));
		ck_assert_int_eq(cx.d.first_rank, 3);
		DIAG_CK_STR_EQ(cx.d.confidence, "low");
	}
	// Slurm's own "task 3: Killed" stays a kill: the scheduler sends those.
	fixture g;
	event &k = sigkill(g, 3, 20);
	k.captures = {{"task", "3"}};
	g.ev.tasks_are_ranks = true;
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_hang_structure(cy);
	pass_decide(cy);
	ck_assert(cy.d.cls == failure_class::unknown);
}
END_TEST

START_TEST(launch_phase_turns_an_early_transport_error_into_a_launch_failure)
{
	fixture f;
	f.add(failure_class::network, event_role::initiating, 1, 0, 3);
	const decision d = through_launch_phase(f, false);
	ck_assert(d.cls == failure_class::launch_failure);
	f.ev.last_progress[writer_key(f.log, 0)] = 2; // something had run
	const decision d2 = through_launch_phase(f, false);
	ck_assert(d2.cls == failure_class::network);
	// A host's adapter reporting its port failing (a node's rule) is the
	// network's even before anything ran.
	fixture g;
	rule port;
	port.id = "test.port_error";
	port.scope = rule::fault_scope::node;
	event &e = g.add(failure_class::network, event_role::initiating, -1, 0, 3);
	e.r = &port;
	e.host = g.ev.intern_host("mi3x-vm02");
	ck_assert(through_launch_phase(g, false).cls == failure_class::network);
}
END_TEST

// The CUDA failure an NCCL error relays as its last error, before any
// collective completed, is NCCL's own while making the communicator: a
// launch failure, though the relay names neither rank nor NCCL's init code.
// The same failure with no NCCL error just above it stays what it is.
START_TEST(launch_phase_a_cuda_failure_nccl_relays_before_anything_ran_is_a_launch_failure)
{
	for (int relayed = 0; relayed <= 1; relayed++) {
		fixture f;
		rule nccl_error;
		nccl_error.family = "nccl";
		event &x = f.add(failure_class::network, event_role::initiating, -1, 0, relayed ? 7 : 1);
		x.kind = rule_kind::exception;
		x.r = &nccl_error;
		f.add(failure_class::cuda_oom, event_role::initiating, -1, 0, 10);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::cuda_oom;
		cx.d.first = &f.ev.events[1];
		pass_launch_phase(cx);
		ck_assert(cx.d.cls == (relayed ? failure_class::launch_failure : failure_class::cuda_oom));
	}
}
END_TEST

// Two ranks failing alike at start-up is the environment's, no rank's;
// the same failure on another rank half an hour later (it waited for the
// first, then gave up) is the first's victim: the first rank stands.
START_TEST(launch_phase_the_same_failure_long_after_is_no_common_mode)
{
	for (int later_s : {0, 1800}) {
		fixture f;
		f.add(failure_class::python_exception, event_role::initiating, 8, 0, 12).at_startup = true;
		f.add(failure_class::python_exception, event_role::initiating, 0, later_s, 40).at_startup = true;
		const decision d = through_launch_phase(f, false);
		ck_assert(d.cls == failure_class::launch_failure);
		ck_assert_int_eq(d.first_rank, later_s ? 8 : -1);
	}
}
END_TEST

// A Python exception is a launch failure only where its traceback ran
// through the set-up itself (at_startup, from a set-up frame): the same
// exception before any progress, with no such frame, is the training's.
START_TEST(launch_phase_a_python_exception_inside_the_set_up_is_a_launch_failure)
{
	for (int in_set_up = 0; in_set_up <= 1; in_set_up++) {
		fixture f;
		event &e = f.add(failure_class::python_exception, event_role::initiating, 3, 0, 12);
		e.at_startup = in_set_up;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::python_exception;
		cx.d.first = &f.ev.events[0];
		cx.d.first_rank = 3;
		pass_launch_phase(cx);
		ck_assert(cx.d.cls == (in_set_up ? failure_class::launch_failure : failure_class::python_exception));
		ck_assert_int_eq(cx.d.first_rank, 3);
	}
}
END_TEST

START_TEST(nan_origin_is_the_rank_that_is_different)
{
	fixture f;
	for (int r = 0; r < 4; r++)
		f.add(failure_class::nan_inf, event_role::initiating, r, 1.0, 10 + static_cast<uint64_t>(r), 0, "numeric.loss_nan")
			.captures = {{"step", "4120"}};
	f.add(failure_class::nan_inf, event_role::initiating, 2, 1.2, 20, 0, "numeric.local_grad_norm");
	event &ls = f.add(failure_class::nan_inf, event_role::context, 2, 0.5, 5, 0, "numeric.min_loss_scale");
	ls.captures = {{"loss_scale", "Current loss scale"}};
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	pass_common_mode(cx);
	pass_decide(cx);
	ck_assert_int_eq(cx.d.first_rank, -1); // common mode: the all-reduced loss everywhere
	pass_nan_origin(cx);
	ck_assert_int_eq(cx.d.first_rank, 2);
	ck_assert(cx.d.nan_known);
	DIAG_CK_STR_EQ(cx.d.nan_cause, "overflow");
	ck_assert_int_eq(cx.d.nan_step, 4120);
}
END_TEST

// Rank 0 alone logs the reduced loss going non-finite; rank 6 alone shows a
// local sign (an anomaly-mode backward) within the clocks' reach: rank 6 is where it
// appeared. A local sign well after the loss report does not move it.
START_TEST(nan_origin_a_local_sign_beside_rank_0s_reduced_loss)
{
	for (int later = 0; later < 2; later++) {
		fixture f;
		f.add(failure_class::nan_inf, event_role::initiating, 0, 10.0, 66, 0, "numeric.floating_point_error");
		f.add(failure_class::nan_inf, event_role::initiating, 6, later ? 40.0 : 10.2, 12, 0, "numeric.nan_inf_tensor")
			.captures = {{"nan_local", "nan"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		pass_decide(cx);
		pass_nan_origin(cx);
		ck_assert_int_eq(cx.d.first_rank, later ? 0 : 6);
	}
}
END_TEST

// One srun task's output per file (job-%t.out, numbered from 0): a line that
// names no writer is that file's task, and, where the file's own NCCL Init
// line names its one rank, that rank's (and host's). A lone job log with one
// rank's Init line lends that rank to nothing (rank 0 alone may print it).
START_TEST(host_resolution_a_numbered_file_is_one_tasks_output)
{
	for (int lone = 0; lone < 2; lone++) {
		fixture f;
		std::vector<uint32_t> files;
		for (int t = 0; t < (lone ? 1 : 4); t++) {
			source_file s;
			// Task 3's file missing (a dead task's), a later one there.
			s.path = lone ? "run/train.log" : "run/sft-3701784-" + std::to_string(t == 3 ? 5 : t) + ".out";
			s.kind = source_kind::job_log;
			files.push_back(f.ev.add_source(s));
		}
		uint32_t mine = files[lone ? 0 : 2];
		event &init = f.add(failure_class::unknown, event_role::context, 6, 0, 1, mine, "nccl.init");
		init.kind = rule_kind::rank_map;
		init.host = f.ev.intern_host("dgx12");
		init.pid = 83318;
		f.ev.ranks.note_world_size(8);
		rank_info ri;
		ri.rank = 6;
		ri.host = init.host;
		ri.pid = 83318;
		f.ev.ranks.add(ri);
		f.add(failure_class::nan_inf, event_role::initiating, -1, 5, 12, mine, "numeric.nan_inf_tensor");
		f.add(failure_class::nan_inf, event_role::initiating, -1, 5, 3, files[0] == mine ? mine : files[1],
		      "numeric.loss_nan");
		resolve_identities(f.ev);
		const event &anomaly = f.ev.events[f.ev.events.size() - 2], &loss = f.ev.events.back();
		if (lone) {
			ck_assert_int_eq(anomaly.rank, -1);
			continue;
		}
		ck_assert_int_eq(anomaly.rank, 6);
		DIAG_CK_STR_EQ(f.ev.host_name(anomaly.host), "dgx12");
		ck_assert_int_eq(loss.task, 1); // task 1's file, no Init line: its task, and its rank where tasks are ranks
		ck_assert_int_eq(loss.rank, 1);
	}
}
END_TEST

// The first line names no node, the same fault in other words names one:
// that node. Two nodes named, or a time limit (the job's), name none.
// A spot VM's notice names the Kubernetes node; the job's lines know the
// machine as its pod (kubectl get pods -o wide's row ties the two): the
// verdict names the pod. Two pods on that node, or a pod the job's lines
// never name: the node stays.
START_TEST(host_resolution_names_a_node_by_the_pod_the_job_knows)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		event &notice = f.add(failure_class::preemption, event_role::initiating, -1, 10, 50);
		notice.host = f.ev.intern_host("gke-a100-spot-x6qv");
		f.add(failure_class::unknown, event_role::context, -1, 0, 60).captures = {{"pod", "ft-worker-0"},
										    {"pod_node", "gke-a100-spot-x6qv"}};
		if (variant == 1)
			f.add(failure_class::unknown, event_role::context, -1, 0, 61).captures = {
				{"pod", "ft-worker-1"}, {"pod_node", "gke-a100-spot-x6qv"}};
		if (variant != 2)
			f.add(failure_class::unknown, event_role::context, 4, 0, 2).host = f.ev.intern_host("ft-worker-0");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::preemption;
		cx.d.first = &f.ev.events[0];
		cx.d.first_host = f.ev.events[0].host;
		pass_host_resolution(cx);
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), variant == 0 ? "ft-worker-0" : "gke-a100-spot-x6qv");
	}
}
END_TEST

START_TEST(host_resolution_takes_the_node_the_same_fault_names_elsewhere)
{
	for (int variant = 0; variant < 4; variant++) {
		fixture f;
		failure_class cls = variant == 2 ? failure_class::time_limit
				    : variant == 3 ? failure_class::preemption
						   : failure_class::host_oom;
		f.add(cls, event_role::initiating, -1, 10, 5);
		// (A reclaim naming no node, beside the node lost: that node.)
		event &other = f.add(variant == 3 ? failure_class::node_failure : cls, event_role::initiating, -1, 9, 3);
		other.host = f.ev.intern_host("10.52.3.12");
		if (variant == 1) {
			event &third = f.add(cls, event_role::initiating, -1, 9, 4);
			third.host = f.ev.intern_host("10.52.3.13");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = cls;
		cx.d.first = &f.ev.events[0];
		pass_host_resolution(cx);
		if (variant == 0 || variant == 3)
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "10.52.3.12");
		else
			ck_assert_int_eq(cx.d.first_host, -1);
	}
}
END_TEST

// A fault that names no node, in a job whose lines name one machine only:
// that machine. With two named, none.
START_TEST(host_resolution_the_one_machine_the_lines_name)
{
	for (int machines = 1; machines <= 2; machines++) {
		fixture f;
		f.add(failure_class::cuda_oom, event_role::initiating, -1, 10, 5);
		for (int m = 0; m < machines; m++) {
			event &c = f.add(failure_class::unknown, event_role::context, -1, 1, 1 + m);
			c.host = f.ev.intern_host(m == 0 ? "gpu3090-07" : "gpu3090-08");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::cuda_oom;
		cx.d.first = &f.ev.events[0];
		pass_host_resolution(cx);
		// A hang's rank found by structure, with no line of its own: the same.
		diagnosis_context cy(f.ev, f.kn, f.clk, f.fr);
		cy.d.cls = failure_class::collective_hang;
		cy.d.first_rank = 0;
		pass_host_resolution(cy);
		if (machines == 1) {
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "gpu3090-07");
			DIAG_CK_STR_EQ(f.ev.host_name(cy.d.first_host), "gpu3090-07");
		} else {
			ck_assert_int_eq(cx.d.first_host, -1);
			ck_assert_int_eq(cy.d.first_host, -1);
		}
	}
}
END_TEST

START_TEST(host_resolution_maps_a_bus_on_a_line_of_no_host_to_its_rank)
{
	// nvidia-smi's line, pasted with no host, names the GPU at 03:00; the
	// fault's node is known otherwise (gx-c17), where rank 5 used that bus
	// (NCCL's "busId 3000"). A bus no rank of that node used names none.
	for (bool known_bus : {true, false}) {
		fixture f;
		const char *bus[] = {"2000", "3000", "82000", "83000"};
		for (int r = 0; r < 8; r++) {
			rank_info ri;
			ri.rank = r;
			ri.host = f.ev.intern_host(r < 4 ? "gx-c16" : "gx-c17");
			ri.busid = normalise_busid(bus[r % 4]);
			f.ev.ranks.add(ri);
		}
		event &e = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 215);
		e.captures = {{"pci", known_bus ? "0000:03:00.0" : "0000:41:00.0"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::gpu_hardware;
		cx.d.first = &e;
		cx.d.first_host = f.ev.intern_host("gx-c17");
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_rank, known_bus ? 5 : -1);
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "gx-c17");
	}
}
END_TEST

START_TEST(host_resolution_uses_the_rank_map_then_the_rank_own_lines)
{
	fixture f;
	rank_info ri;
	ri.rank = 4;
	ri.host = f.ev.intern_host("gpu-d22");
	f.ev.ranks.add(ri);
	event &e = f.add(failure_class::python_exception, event_role::context, 6, 0, 3);
	e.host = f.ev.intern_host("node-b7");
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	cx.d.first_rank = 4;
	cx.d.suspects.push_back(suspect_rank{6, -1, "why"});
	pass_host_resolution(cx);
	DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "gpu-d22");
	DIAG_CK_STR_EQ(f.ev.host_name(cx.d.suspects[0].host), "node-b7");
}
END_TEST

START_TEST(fault_choice_takes_the_node_lost_not_the_survivor_that_reported_it)
{
	fixture f;
	// slurmstepd on node1 reports; srun names node3.
	event &rep = f.add(failure_class::node_failure, event_role::initiating, -1, 0, 20);
	rep.host = f.ev.intern_host("node1");
	rep.captures = {{"reporter", "node1"}};
	rep.weight = 90;
	event &lost = f.add(failure_class::node_failure, event_role::initiating, -1, 1, 22);
	lost.host = f.ev.intern_host("node3");
	lost.weight = 90;
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	DIAG_CK_STR_EQ(f.ev.host_name(cx.best.e->host), "node3");
}
END_TEST

START_TEST(host_resolution_names_the_one_node_that_did_not_report_a_node_failure)
{
	for (int reporting = 1; reporting <= 2; reporting++) {
		fixture f;
		f.ev.job.nodelist = "node[01-03]";
		const char *names[] = {"node01", "node02"};
		for (int i = 0; i < reporting; i++) {
			event &rep = f.add(failure_class::node_failure, event_role::initiating, -1, i, 20 + static_cast<uint64_t>(i));
			rep.captures = {{"reporter", names[i]}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::node_failure;
		cx.d.first = &f.ev.events[0];
		pass_host_resolution(cx);
		if (reporting == 2)
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "node03");
		else
			ck_assert_int_eq(cx.d.first_host, -1); // two nodes silent: no host
	}
}
END_TEST

START_TEST(fault_choice_a_node_report_gives_way_to_the_same_fault_naming_a_rank)
{
	for (int first = 0; first < 2; first++) {
		fixture f;
		rule node_rule;
		node_rule.id = "test.node_report";
		node_rule.scope = rule::fault_scope::node;
		// The two lines inherit times: either may come first.
		event &cg = f.add(failure_class::host_oom, event_role::initiating, 2, first ? 0.001 : 0, 58);
		cg.r = &node_rule;
		cg.weight = 85;
		event &task = f.add(failure_class::host_oom, event_role::initiating, 3, first ? 0 : 0.001, 59);
		task.weight = 85;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		ck_assert_int_eq(cx.best.e->rank, 3);
	}
}
END_TEST

// A launch failure whose reports all come from clients of the store names
// the store's host; one where a node failed for a reason of its own does not.
START_TEST(host_resolution_names_the_store_no_client_could_reach)
{
	for (int own_failure = 0; own_failure <= 1; own_failure++) {
		fixture f;
		const char *clients[] = {"gpu-r02", "gpu-r03"};
		for (int i = 0; i < 2; i++) {
			int client = f.ev.intern_host(clients[i]);
			event &w = f.add(failure_class::launch_failure, event_role::victim, -1, i, 10 + static_cast<uint64_t>(i));
			w.host = client;
			w.captures = {{"store_host", "gpu-r01"}};
			// (add may move the events: w is not used after it)
			event &r = f.add(failure_class::launch_failure, event_role::initiating, -1, i, 20 + static_cast<uint64_t>(i));
			r.host = client;
		}
		if (own_failure) {
			event &pyxis = f.add(failure_class::launch_failure, event_role::initiating, -1, 0, 5);
			pyxis.host = f.ev.intern_host("gpu-r04");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::launch_failure;
		cx.d.first = &f.ev.events[1];
		cx.d.first_host = f.ev.events[1].host;
		pass_host_resolution(cx);
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), own_failure ? "gpu-r02" : "gpu-r01");
	}
}
END_TEST

// The store's clients could not connect to its server on one host: the
// launch failure that names no rank is rank 0's, the server's, unless rank 0
// was itself such a client.
START_TEST(launch_phase_a_failure_beside_an_unreachable_store_is_rank_0s)
{
	for (int rank0_waited = 0; rank0_waited <= 1; rank0_waited++) {
		fixture f;
		event &imp = f.add(failure_class::launch_failure, event_role::initiating, -1, 0, 4);
		imp.host = -1;
		for (int r = 1; r <= 3; r++) {
			event &w = f.add(failure_class::launch_failure, event_role::victim, r == 3 && rank0_waited ? 0 : r, 600, 5 + static_cast<uint64_t>(r));
			w.captures = {{"store_host", "hpc-g042"}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::launch_failure;
		cx.d.first = &f.ev.events[0];
		pass_launch_phase(cx);
		ck_assert_int_eq(cx.d.first_rank, rank0_waited ? -1 : 0);
		if (!rank0_waited)
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "hpc-g042");
	}
}
END_TEST

// Ranks that only waited on a key another should have set name the store
// the job stated; the store's server waiting for clients names none.
START_TEST(host_resolution_waits_on_a_key_name_the_stated_store)
{
	for (int on_key = 0; on_key <= 1; on_key++) {
		fixture f;
		event &m = f.add(failure_class::unknown, event_role::context, -1, 0, 2);
		m.captures = {{"master_addr", "hpc-g048"}};
		event &w = f.add(failure_class::launch_failure, event_role::victim, -1, 900, 8);
		if (on_key)
			w.captures = {{"store_key", "/default_pg/0//cuda//0"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::launch_failure;
		pass_host_resolution(cx);
		if (on_key)
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "hpc-g048");
		else
			ck_assert_int_eq(cx.d.first_host, -1);
	}
}
END_TEST

// A node's slurmstepd error srun passed on without the node's name (the
// rule's relayed_by capture) is that of the node whose task srun reports
// failed just after it; without the capture the line is no relay.
START_TEST(host_resolution_a_stepd_error_is_the_node_srun_names_next)
{
	for (bool relayed : {true, false}) {
		fixture f;
		rule node_rule;
		node_rule.scope = rule::fault_scope::node;
		event &err = f.add(failure_class::launch_failure, event_role::initiating, -1, 0, 4);
		err.r = &node_rule;
		err.text = "slurmstepd: error: pyxis: seccomp filter failed";
		if (relayed)
			err.captures = {{"relayed_by", "slurmstepd"}};
		event &later = f.add(failure_class::unknown, event_role::context, -1, 3, 30);
		later.kind = rule_kind::task_exit;
		later.host = f.ev.intern_host("gpu-m10");
		event &exit = f.add(failure_class::unknown, event_role::context, -1, 1, 7);
		exit.kind = rule_kind::task_exit;
		exit.host = f.ev.intern_host("gpu-m11");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::launch_failure;
		cx.d.first = &f.ev.events[0];
		pass_host_resolution(cx);
		if (relayed)
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "gpu-m11");
		else
			ck_assert_int_eq(cx.d.first_host, -1);
	}
}
END_TEST

// torchrun's rendezvous result on a node's stream places the ranks it names.
START_TEST(identities_an_agents_global_ranks_run_on_its_node)
{
	fixture f;
	event &res = f.add(failure_class::unknown, event_role::context, -1, 0, 30);
	res.host = f.ev.intern_host("gpu-k02");
	res.captures = {{"agent_ranks", "4, 5, 6, 7"}};
	resolve_identities(f.ev);
	const rank_info *ri = f.ev.ranks.by_rank(6);
	ck_assert(ri != nullptr);
	DIAG_CK_STR_EQ(f.ev.host_name(ri->host), "gpu-k02");
	ck_assert_int_eq(ri->local_rank, 2);
}
END_TEST

// A rank no line placed, in a block of a node's ranks whose known ranks sit
// at their local ranks on one host, ran there, even when the highest rank
// never spoke (the world counted short of a whole node).
START_TEST(host_resolution_places_a_rank_by_its_nodes_block)
{
	fixture f;
	f.ev.job.nodelist = "dgx[01-03]";
	for (int r : {8, 10, 11}) {
		rank_info ri;
		ri.rank = r;
		ri.local_rank = r % 4;
		ri.host = f.ev.intern_host("dgx03");
		f.ev.ranks.add(ri);
	}
	f.ev.ranks.note_world_size(11);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	cx.d.first_rank = 9;
	pass_host_resolution(cx);
	DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "dgx03");
	// A local rank out of place says the layout is not by node.
	fixture g;
	g.ev.job.nodelist = "dgx[01-03]";
	rank_info ri;
	ri.rank = 8;
	ri.local_rank = 2;
	ri.host = g.ev.intern_host("dgx03");
	g.ev.ranks.add(ri);
	g.ev.ranks.note_world_size(11);
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	cy.d.first_rank = 9;
	pass_host_resolution(cy);
	ck_assert_int_eq(cy.d.first_host, -1);
}
END_TEST

// "mpirun -np 8 -H gpu-a:4,gpu-b:4": ranks fill each host's slots in the
// order given, so rank 6 ran on gpu-b; not where a known rank sits
// elsewhere, the world is larger than the slots, or two launches differ.
START_TEST(host_resolution_places_a_rank_by_the_launch_lines_host_slots)
{
	auto launch = [](fixture &f, const char *hosts) {
		event &e = f.add(failure_class::unknown, event_role::context, -1, 0, 1);
		e.captures = {{"launch_hosts", hosts}, {"launch_world", "8"}};
	};
	auto known = [](fixture &f, int rank, const char *host) {
		rank_info ri;
		ri.rank = rank;
		ri.host = f.ev.intern_host(host);
		f.ev.ranks.add(ri);
	};
	{
		fixture f;
		launch(f, "gpu-a:4,gpu-b:4");
		known(f, 1, "gpu-a.cluster"); // a longer name of the same machine
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.first_rank = 6;
		pass_host_resolution(cx);
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "gpu-b");
	}
	{
		fixture f; // ranks 1 and 5 known the other way round: not laid out by slot
		launch(f, "gpu-a:4,gpu-b:4");
		known(f, 1, "gpu-b");
		known(f, 5, "gpu-a");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.first_rank = 6;
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_host, -1);
	}
	{
		fixture f; // 8 ranks on 6 slots wrap around
		launch(f, "gpu-a:3,gpu-b:3");
		f.ev.ranks.note_world_size(8);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.first_rank = 4;
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_host, -1);
	}
	{
		fixture f; // two launches of different layouts
		launch(f, "gpu-a:4,gpu-b:4");
		launch(f, "gpu-b:4,gpu-a:4");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.first_rank = 6;
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_host, -1);
	}
}
END_TEST

// A pasted terminal session: the login node's prompt, then srun --pty's
// prompt on the compute node, then the command that failed. Its rank ran
// where the last prompt above the fault says; a prompt below it, or a
// machine a line names, is no word on it.
START_TEST(host_resolution_a_rank_runs_where_the_prompt_above_its_fault_says)
{
	rule shell;
	shell.id = "test.prompt";
	shell.family = "shell";
	auto prompt = [&](fixture &f, const char *node, uint64_t line) {
		event &e = f.add(failure_class::unknown, event_role::context, -1, 0, line);
		e.r = &shell;
		e.captures = {{"job_node", node}};
	};
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		prompt(f, "login2", 1);
		prompt(f, "dgx-b117", variant == 1 ? 70 : 4);
		f.add(failure_class::launch_failure, event_role::initiating, 0, 5, 59); // events[2]
		if (variant == 2) {
			event &named = f.add(failure_class::unknown, event_role::context, -1, 1, 10);
			named.host = f.ev.intern_host("dgx-b200");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::launch_failure;
		cx.d.first = &f.ev.events[2]; // (after the last add: its storage may move)
		cx.d.first_rank = 0;
		pass_host_resolution(cx);
		const std::string want = variant == 0 ? "dgx-b117" : variant == 1 ? "login2" : "dgx-b200";
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), want.c_str());
	}
}
END_TEST

START_TEST(identities_a_torchrun_worker_is_its_agents_block_rank_on_the_agents_node)
{
	fixture f;
	// "1: [default0]:Fatal Python error": agent task 1, local rank 0.
	event &crash = f.add(failure_class::segfault, event_role::initiating, -1, 0, 38);
	crash.task = 1;
	crash.local_rank = 0;
	// Agent 1's failure block: "rank : 2 (local_rank: 0)", host localhost.
	event &block = f.add(failure_class::unknown, event_role::context, 2, 5, 170);
	block.task = 1;
	block.local_rank = 0;
	rank_info ri;
	ri.rank = 2;
	ri.host = f.ev.intern_host("localhost");
	f.ev.ranks.add(ri);
	// "srun: error: node2: task 1: Exited with exit code 1"
	event &exit = f.add(failure_class::unknown, event_role::context, -1, 6, 200);
	exit.kind = rule_kind::task_exit;
	exit.host = f.ev.intern_host("node2");
	exit.captures = {{"task", "1"}};
	resolve_identities(f.ev);
	ck_assert_int_eq(f.ev.events[0].rank, 2);
	DIAG_CK_STR_EQ(f.ev.host_name(f.ev.events[0].host), "node2");
}
END_TEST

START_TEST(identities_a_launcher_rank_layout_gives_host_and_local_rank)
{
	fixture f;
	event &layout = f.add(failure_class::unknown, event_role::context, -1, 0, 4);
	layout.captures = {{"rank_layout", "{'gpu-d21': [0, 1, 2, 3], 'gpu-d22': [4, 5, 6, 7]}"}};
	event &exit = f.add(failure_class::unknown, event_role::context, -1, 5, 9);
	exit.kind = rule_kind::task_exit;
	exit.host = f.ev.intern_host("gpu-d22");
	exit.local_rank = 1;
	resolve_identities(f.ev);
	ck_assert_int_eq(f.ev.events[1].rank, 5);
	ck_assert_uint_eq(f.ev.ranks.world_size(), 8);
	rank_layout l;
	ck_assert(!parse_rank_layout("{'a': [0, 1}", l));
	ck_assert(!parse_rank_layout("{'a': [x]}", l));
	ck_assert(!parse_rank_layout("{}", l));
	ck_assert(parse_rank_layout("{\"n1\": [0,1], \"n2\": []}", l) && l.size() == 2 && l[0].second.size() == 2);
}
END_TEST

START_TEST(identities_a_launcher_slot_table_numbers_ranks_through_the_hosts)
{
	fixture f;
	event &layout = f.add(failure_class::unknown, event_role::context, -1, 0, 4);
	layout.captures = {{"slot_layout", "{'gpn-1': [0, 1, 2, 3], 'gpn-2': [0, 1, 2, 3]}"}};
	event &exit = f.add(failure_class::unknown, event_role::context, -1, 5, 9);
	exit.kind = rule_kind::task_exit;
	exit.host = f.ev.intern_host("gpn-2");
	exit.local_rank = 2;
	resolve_identities(f.ev);
	ck_assert_int_eq(f.ev.events[1].rank, 6);
	ck_assert_uint_eq(f.ev.ranks.world_size(), 8);
}
END_TEST

START_TEST(identities_an_nccl_lines_device_is_its_local_rank_under_a_launchers_slot_table)
{
	for (bool layout : {true, false}) {
		fixture f;
		if (layout) {
			event &l = f.add(failure_class::unknown, event_role::context, -1, 0, 4);
			l.captures = {{"slot_layout", "{'gpu-m03': [0, 1, 2, 3], 'gpu-m04': [0, 1, 2, 3]}"}};
		}
		// "gpu-m04: gpu-m04:4411:4502 [3] NCCL WARN NET/IB : Got completion ..."
		event &ib = f.add(failure_class::network, event_role::initiating, -1, 5, 9);
		ib.host = f.ev.intern_host("gpu-m04");
		ib.pid = 4411;
		ib.cuda_dev = 3;
		resolve_identities(f.ev);
		ck_assert_int_eq(f.ev.events.back().rank, layout ? 7 : -1);
	}
}
END_TEST

START_TEST(identities_srun_task_ranges_are_hosts_of_those_ranks)
{
	fixture f;
	event &exit = f.add(failure_class::unknown, event_role::victim, -1, 5, 9);
	exit.kind = rule_kind::task_exit;
	exit.host = f.ev.intern_host("hpc-g004");
	exit.captures = {{"task", "16-23"}};
	f.add(failure_class::collective_hang, event_role::victim, 19, 0, 3);
	resolve_identities(f.ev);
	DIAG_CK_STR_EQ(f.ev.host_name(f.ev.events[1].host), "hpc-g004");
}
END_TEST

// torchrun --standalone started every rank on one machine: a rank that
// said nothing of its host ran on the one the logs name. Without that
// launch line, in a job without a node list, the one machine the lines
// name is still the best word on it (measured on the real-log corpus);
// with a second machine named, nothing says which.
START_TEST(host_resolution_a_one_node_launch_places_every_rank_on_its_machine)
{
	for (int variant = 0; variant <= 2; variant++) {
		fixture f;
		place(f, 1, "ml-ws07");
		if (variant == 1) {
			event &l = f.add(failure_class::unknown, event_role::context, -1, 0, 1);
			l.captures = {{"one_node", "--standalone"}};
		}
		if (variant == 2)
			place(f, 2, "ml-ws08");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.first_rank = 0;
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_host, variant < 2 ? f.ev.intern_host("ml-ws07") : -1);
	}
}
END_TEST

// A process in a Docker container sees the container's id as its host
// name; mpirun's notice of the same rank names the machine.
START_TEST(host_resolution_names_the_machine_not_the_container)
{
	for (int named = 0; named <= 1; named++) {
		fixture f;
		place(f, 3, "5f0c2a9d71e4");
		place(f, 5, "c0ffee123456");
		if (named) {
			event &notice = f.add(failure_class::segfault, event_role::victim, 3, 1, 38);
			notice.host = f.ev.intern_host("10.66.8.12");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.first_rank = 3;
		pass_host_resolution(cx);
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), named ? "10.66.8.12" : "5f0c2a9d71e4");
	}
}
END_TEST

START_TEST(host_resolution_names_a_node_not_its_address)
{
	fixture f;
	int ip = f.ev.intern_host("10.19.0.1");
	f.ev.intern_host("hpc-g004");
	rank_info ri;
	ri.rank = 0;
	ri.host = ip;
	f.ev.ranks.add(ri);
	// "10.19.0.1:   host      : hpc-g004" in torchrun's failure block.
	event &bh = f.add(failure_class::unknown, event_role::context, -1, 0, 51);
	bh.host = ip;
	bh.captures = {{"block_host", "hpc-g004"}};
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	cx.d.first_rank = 0;
	pass_host_resolution(cx);
	DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "hpc-g004");
}
END_TEST

// DeepSpeed's launcher names each worker's pid; the kernel's OOM kill
// names only the pid: on one machine, that is the worker's rank. A pid no
// spawn line named stays no rank's.
START_TEST(identities_a_spawned_workers_pid_names_its_rank_in_the_kernels_line)
{
	for (int spawned = 0; spawned <= 1; spawned++) {
		fixture f;
		event &sp = f.add(failure_class::unknown, event_role::context, 1, 0, 9);
		sp.pid = spawned ? 58213 : 58214;
		sp.captures = {{"spawned", "spawned"}};
		event &k = f.add(failure_class::host_oom, event_role::initiating, -1, 300, 11, f.kern);
		k.pid = 58213;
		k.host = f.ev.intern_host("ws-l40s03");
		resolve_identities(f.ev);
		ck_assert_int_eq(f.ev.events[1].rank, spawned ? 1 : -1);
	}
}
END_TEST

// "0: [default3]:ModuleNotFoundError ..." and no failure block: under one
// srun task, or with no srun at all ("[default3]:" alone), one agent on a
// job of one node runs ranks equal to its local ranks.
START_TEST(identities_one_agent_on_one_node_runs_ranks_equal_to_local_ranks)
{
	for (int labelled = 0; labelled <= 1; labelled++)
		for (int nodes = 1; nodes <= 2; nodes++) {
			fixture f;
			f.ev.job.nodelist = nodes == 1 ? "gpu-a34" : "gpu-a[34-35]";
			event &crash = f.add(failure_class::launch_failure, event_role::initiating, -1, 0, 4);
			crash.task = labelled ? 0 : -1;
			crash.local_rank = 3;
			resolve_identities(f.ev);
			ck_assert_int_eq(f.ev.events[0].rank, nodes == 1 ? 3 : -1);
		}
}
END_TEST

START_TEST(identities_ranks_in_one_agents_stream_run_on_its_node)
{
	// 0: one node; 1: the job has two nodes; 2: a rank is known elsewhere;
	// 3: two nodes, but the agent's lines carry its srun label.
	for (int variant = 0; variant < 4; variant++) {
		fixture f;
		if (variant == 1 || variant == 3)
			f.ev.job.nodelist = "gpu-c[07-08]";
		int task = variant == 3 ? 1 : -1;
		// "  host      : gpu-c07" in the agent's failure block, for rank 0.
		event &bh = f.add(failure_class::unknown, event_role::context, -1, 0, 40);
		bh.captures = {{"block_host", "gpu-c07"}};
		bh.task = task;
		rank_info ri;
		ri.rank = 0;
		ri.host = f.ev.intern_host("gpu-c07");
		f.ev.ranks.add(ri);
		if (variant == 2) {
			ri.rank = 3;
			ri.host = f.ev.intern_host("gpu-c08");
			f.ev.ranks.add(ri);
		}
		// "... loss nan ... rank 2": a worker's line in the same stream.
		event &nan = f.add(failure_class::nan_inf, event_role::initiating, 2, -10, 6);
		nan.task = task;
		// A line of another agent (srun label 0) stays unplaced.
		event &other = f.add(failure_class::unknown, event_role::victim, 5, -5, 7);
		other.task = variant == 3 ? 0 : task;
		resolve_identities(f.ev);
		if (variant == 0 || variant == 3)
			DIAG_CK_STR_EQ(f.ev.host_name(f.ev.events[1].host), "gpu-c07");
		else
			ck_assert_int_lt(f.ev.events[1].host, 0);
		if (variant == 3)
			ck_assert_int_lt(f.ev.events[2].host, 0);
	}
}
END_TEST

START_TEST(launch_phase_a_fault_in_nccls_init_code_is_a_launch_failure_after_progress)
{
	for (bool at_startup : {true, false}) {
		fixture f;
		event &e = f.add(failure_class::cuda_error, event_role::initiating, 1, 0, 30);
		e.at_startup = at_startup; // "init.cc:1132 NCCL WARN Cuda failure ..."
		f.ev.last_progress[writer_key(f.log, 0)] = 20; // a progress bar ran before
		const decision d = through_launch_phase(f, false);
		ck_assert(d.cls == (at_startup ? failure_class::launch_failure : failure_class::cuda_error));
	}
}
END_TEST

START_TEST(confidence_drops_when_another_rank_ties)
{
	fixture f;
	f.add(failure_class::cuda_oom, event_role::initiating, 1, 0, 3);
	f.add(failure_class::python_exception, event_role::initiating, 2, 0.1, 4);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	pass_decide(cx);
	pass_confidence(cx);
	DIAG_CK_STR_EQ(cx.d.confidence, "medium");
	ck_assert_uint_eq(cx.d.notes.size(), 1);
	fixture g;
	g.add(failure_class::cuda_oom, event_role::initiating, 1, 0, 3);
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_fault_choice(cy);
	pass_decide(cy);
	pass_confidence(cy);
	DIAG_CK_STR_EQ(cy.d.confidence, "high");
}
END_TEST


static event &exited(fixture &f, int rank, int exitcode, double secs, uint64_t line)
{
	event &x = f.add(failure_class::unknown, event_role::context, rank, secs, line, 0, "test.exit");
	x.kind = rule_kind::task_exit;
	x.exitcode = exitcode;
	x.signal = exitcode < 0 ? -exitcode : -1;
	return x;
}

// slurmstepd's cgroup OOM line reaches the output under the label of the
// node's first task: it names no rank. The one rank SIGKILLed is the
// process the OOM killer took, and the verdict keeps it; a node's launch
// failure keeps no rank borrowed so.
START_TEST(decide_a_nodes_oom_report_keeps_the_rank_sigkilled)
{
	for (int launch = 0; launch <= 1; launch++) {
		fixture f;
		rule node_rule;
		node_rule.id = "test.node_report";
		node_rule.scope = rule::fault_scope::node;
		failure_class cls = launch ? failure_class::launch_failure : failure_class::host_oom;
		event &cg = f.add(cls, event_role::initiating, -1, 0, 58);
		cg.r = &node_rule;
		cg.weight = 85;
		cg.host = f.ev.intern_host("node2");
		exited(f, 2, -9, 1, 60);
		exited(f, 3, -15, 2, 61);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_decide(cx);
		ck_assert_int_eq(cx.d.first_rank, launch ? -1 : 2);
	}
}
END_TEST

START_TEST(exits_a_negative_exit_code_takes_its_signals_class)
{
	fixture f;
	exited(f, 0, -11, 1, 1);
	exited(f, 1, -7, 1, 2);
	exited(f, 2, -9, 1, 3);
	exited(f, 3, -15, 1, 4);
	exited(f, 4, 1, 1, 5);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_exit_signals(cx);
	ck_assert(f.ev.events[0].role == event_role::initiating && f.ev.events[0].cls == failure_class::segfault);
	ck_assert(f.ev.events[1].role == event_role::initiating && f.ev.events[1].cls == failure_class::segfault);
	// SIGKILL alone says no more than killed; the teardown's SIGTERM and an
	// exit code are no fault of their own.
	for (size_t i = 2; i < 5; i++)
		ck_assert(f.ev.events[i].role == event_role::context);
	// With the kernel's OOM kill in the logs, a SIGKILLed worker is its victim.
	fixture g;
	exited(g, 2, -9, 1, 3);
	g.add(failure_class::host_oom, event_role::initiating, -1, 0, 1, g.kern);
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_exit_signals(cy);
	ck_assert(g.ev.events[0].role == event_role::initiating && g.ev.events[0].cls == failure_class::host_oom);
	// A launcher's "exited on signal N" for one rank (mpirun) is the same
	// fact; srun's "tasks 0-3: Killed" is the step's teardown, not one kill.
	fixture h;
	h.add(failure_class::host_oom, event_role::initiating, -1, 0, 1, h.kern);
	for (int sig : {11, 9}) {
		event &x = h.add(failure_class::unknown, event_role::context, 1, 1, 5, 0, "test.mpirun");
		x.kind = rule_kind::task_exit;
		x.signal = sig;
	}
	event &srun = h.add(failure_class::unknown, event_role::victim, -1, 2, 9, 0, "test.srun");
	srun.kind = rule_kind::task_exit;
	srun.signal = 9;
	srun.captures = {{"task", "0-3"}};
	diagnosis_context cz(h.ev, h.kn, h.clk, h.fr);
	pass_exit_signals(cz);
	ck_assert(h.ev.events[1].role == event_role::initiating && h.ev.events[1].cls == failure_class::segfault);
	ck_assert(h.ev.events[2].role == event_role::initiating && h.ev.events[2].cls == failure_class::host_oom);
	ck_assert(h.ev.events[3].role == event_role::victim);
}
END_TEST

// A writer's events of one rule are capped, but of a reading the newest
// takes the last kept one's place.
START_TEST(evidence_keeps_a_writers_newest_reading)
{
	evidence ev;
	for (int i = 0; i < 6; i++) {
		event e;
		e.rule_id = "test.reading";
		e.rank = 0;
		e.line = static_cast<uint64_t>(i + 1);
		e.captures = {{"host_mem_percent", std::to_string(50 + i * 9)}};
		ev.add(std::move(e));
	}
	ck_assert_uint_eq(ev.events.size(), 3);
	ck_assert_uint_eq(ev.events[2].line, 6);
	DIAG_CK_STR_EQ(ev.events[2].capture("host_mem_percent"), "95");
	// Other rules' events past the cap stay dropped.
	for (int i = 0; i < 5; i++) {
		event e;
		e.rule_id = "test.plain";
		e.line = static_cast<uint64_t>(10 + i);
		ev.add(std::move(e));
	}
	ck_assert_uint_eq(ev.events.size(), 6);
	ck_assert_uint_eq(ev.events[5].line, 12);
}
END_TEST

// Lines of one rule naming different machines (a terminal's prompts) or
// different missing ranks (a coordinator's line per task) are each kept,
// past the cap on one writer's events: which file came first must not
// decide which machines are known.
START_TEST(evidence_keeps_each_machine_and_missing_rank_named)
{
	evidence ev;
	for (int i = 0; i < 8; i++) {
		event e;
		e.rule_id = "test.prompt";
		e.line = static_cast<uint64_t>(i + 1);
		e.captures = {{"job_node", i < 4 ? "gpua17" : "gpua18"}};
		ev.add(std::move(e));
	}
	ck_assert_uint_eq(ev.events.size(), 6); // three of each
	ck_assert_uint_eq(ev.events[5].line, 7);
	DIAG_CK_STR_EQ(ev.events[5].capture("job_node"), "gpua18");
	for (int t = 1; t < 6; t++) {
		event e;
		e.rule_id = "test.heartbeat";
		e.rank = 0;
		e.line = static_cast<uint64_t>(20 + t);
		e.captures = {{"missing_rank", std::to_string(t)}};
		ev.add(std::move(e));
	}
	ck_assert_uint_eq(ev.events.size(), 11);
	DIAG_CK_STR_EQ(ev.events[10].capture("missing_rank"), "5");
}
END_TEST

// The job's own last reading of its host's memory stands for the kernel's
// word where no kernel log came: 90% or more, and the last one counts.
START_TEST(exits_a_sigkill_after_a_nearly_full_host_memory_reading_is_host_oom)
{
	for (const char *last : {"95.3", "64.0"}) {
		fixture f;
		exited(f, 1, -9, 5, 9);
		event &early = f.add(failure_class::unknown, event_role::context, 0, 1, 3);
		early.captures = {{"host_mem_percent", std::string(last) == "95.3" ? "57.9" : "96.0"}};
		event &late = f.add(failure_class::unknown, event_role::context, 0, 2, 6);
		late.captures = {{"host_mem_percent", last}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_exit_signals(cx);
		if (std::string(last) == "95.3")
			ck_assert(f.ev.events[0].role == event_role::initiating && f.ev.events[0].cls == failure_class::host_oom);
		else
			ck_assert(f.ev.events[0].role == event_role::context);
	}
}
END_TEST

START_TEST(fault_choice_a_hosts_rankless_fault_takes_the_rank_that_crashed_there)
{
	fixture f;
	for (int r = 0; r < 4; r++)
		place(f, r, r < 2 ? "node1" : "node2");
	int node1 = f.ev.intern_host("node1"), node2 = f.ev.intern_host("node2");
	event &fault = f.add(failure_class::cuda_error, event_role::initiating, -1, 0, 1);
	fault.host = node2;
	exited(f, 3, -6, 5, 8);   // aborted on its own, on node2
	exited(f, 2, -15, 5, 9);  // torn down
	exited(f, 0, 1, 6, 10).host = node1; // another host's exit code
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	ck_assert_int_eq(cx.d.borrowed_rank, 3);
	// A fault that names neither rank nor host ("free(): invalid pointer"
	// in an unprefixed log): the one rank of the job that crashed, if one.
	for (int crashed = 1; crashed <= 2; crashed++) {
		fixture g;
		g.add(failure_class::segfault, event_role::initiating, -1, 0, 1);
		exited(g, 3, -6, 5, 8);
		exited(g, 1, crashed == 2 ? -11 : -15, 5, 9);
		diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
		pass_fault_choice(cy);
		ck_assert_int_eq(cy.d.borrowed_rank, crashed == 1 ? 3 : -1);
	}
}
END_TEST

// An Xid whose bus id no rank map places names its node only; the one
// rank there whose CUDA calls failed at that moment is the GPU's. Two such
// ranks on the node, or one a minute later, say nothing.
START_TEST(fault_choice_a_gpu_fault_takes_the_rank_whose_cuda_failed_with_it)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		for (int r = 0; r < 8; r++)
			place(f, r, r < 4 ? "hpc0796" : "hpc0797");
		event &xid = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 3, f.kern);
		xid.host = f.ev.intern_host("hpc0797");
		f.add(failure_class::cuda_error, event_role::initiating, 6, variant == 2 ? 60 : 0.9, 10);
		f.add(failure_class::cuda_error, event_role::initiating, 1, 0.5, 11); // another node's
		if (variant == 1)
			f.add(failure_class::cuda_error, event_role::initiating, 5, 1.2, 12);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		ck_assert_ptr_eq(cx.best.e, &f.ev.events[0]);
		ck_assert_int_eq(cx.d.borrowed_rank, variant == 0 ? 6 : -1);
	}
}
END_TEST

// srun's unstamped report of several ranks' error exits, one line after
// another, is in the order srun heard of them: its first rank is no first
// failure to lend a fault that names none. One error exit alone is.
START_TEST(fault_choice_borrows_no_rank_from_the_head_of_a_burst_of_exits)
{
	for (int burst = 0; burst <= 1; burst++) {
		fixture f;
		event &oom = f.add(failure_class::cuda_oom, event_role::initiating, -1, 0, 1);
		oom.time_us = no_time;
		int ranks[] = {4, 7, 6};
		for (int i = 0; i < (burst ? 3 : 1); i++)
			exited(f, ranks[i], 1, 0, 26 + static_cast<uint64_t>(i)).time_us = no_time;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		ck_assert_int_eq(cx.d.borrowed_rank, burst ? -1 : 4);
	}
}
END_TEST

START_TEST(common_mode_counts_processes_whose_traceback_names_no_rank)
{
	fixture f;
	for (int i = 0; i < 3; i++) {
		event &e = f.add(failure_class::launch_failure, event_role::initiating, -1, 0, 10 + 5 * static_cast<uint64_t>(i), 0,
				 "launch.import");
		e.kind = rule_kind::exception;
		e.captures = {{"traceback_line", std::to_string(6 + 5 * i)}};
	}
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	pass_common_mode(cx);
	ck_assert_int_eq(cx.d.common_mode, 3);
	// The same line three times without tracebacks may be one process.
	fixture g;
	for (int i = 0; i < 3; i++)
		g.add(failure_class::filesystem, event_role::initiating, -1, 0, 10 + static_cast<uint64_t>(i), 0, "fs.eio");
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_fault_choice(cy);
	pass_common_mode(cy);
	ck_assert_int_eq(cy.d.common_mode, 0);
}
END_TEST

// A node's torchrun agent under srun --label relays all its workers: three
// tracebacks under one label are three processes.
START_TEST(common_mode_counts_tracebacks_under_one_label)
{
	for (int n = 2; n <= 3; n++) {
		fixture f;
		for (int i = 0; i < n; i++) {
			event &e = f.add(failure_class::launch_failure, event_role::initiating, 0, 0.1 * i,
					 10 + 5 * static_cast<uint64_t>(i), 0, "launch.import");
			e.kind = rule_kind::exception;
			e.captures = {{"traceback_line", std::to_string(6 + 5 * i)}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_eq(cx.d.common_mode, n == 3 ? 3 : 0);
	}
}
END_TEST

// One rank's tracebacks from processes told apart by pid (Ray retrying the
// worker, each attempt running out of memory alike) are its restarts, one
// after another: one rank, not three processes at once.
START_TEST(common_mode_counts_a_ranks_restarts_once)
{
	for (int with_pids = 0; with_pids <= 1; with_pids++) {
		fixture f;
		for (int i = 0; i < 3; i++) {
			event &e = f.add(failure_class::cuda_oom, event_role::initiating, 1, 0.1 * i,
					 10 + 5 * static_cast<uint64_t>(i), 0, "cuda.oom_exception");
			e.kind = rule_kind::exception;
			e.captures = {{"traceback_line", std::to_string(6 + 5 * i)}};
			if (with_pids)
				e.pid = 4311 + 259 * i;
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_eq(cx.d.common_mode, with_pids ? 0 : 3);
	}
}
END_TEST

// One rank's traceback relayed by every rank (DCP's "(RANK 6)") is that
// rank's one failure, however many print it.
START_TEST(common_mode_does_not_count_relayed_tracebacks)
{
	for (int relayed = 0; relayed <= 1; relayed++) {
		fixture f;
		for (int i = 0; i < 4; i++) {
			event &e = f.add(failure_class::filesystem, event_role::initiating, 6, 0.1 * i,
					 10 + 5 * static_cast<uint64_t>(i), 0, "fs.enospc");
			e.captures = {{"traceback_line", std::to_string(6 + 5 * i)}};
			if (relayed)
				e.captures.emplace_back("relayed", "1");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_eq(cx.d.common_mode, relayed ? 0 : 4);
	}
}
END_TEST

// Two ranks failing to start alike are the environment's when they are all
// the job has; in a larger job they may share one bad node.
START_TEST(common_mode_every_rank_of_a_small_job_at_launch)
{
	for (int world = 2; world <= 4; world += 2) {
		fixture f;
		f.ev.ranks.note_world_size(world);
		for (int r = 0; r < 2; r++)
			f.add(failure_class::launch_failure, event_role::initiating, r, 0.1 * r, 1 + static_cast<uint64_t>(r), 0,
			      "launch.import");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_eq(cx.d.common_mode, world == 2 ? 2 : 0);
	}
	// Not a fault of the running job: two ranks out of memory at once still
	// leave the earlier one first.
	fixture g;
	g.ev.ranks.note_world_size(2);
	for (int r = 0; r < 2; r++)
		g.add(failure_class::cuda_oom, event_role::initiating, r, 0.1 * r, 1 + static_cast<uint64_t>(r), 0, "cuda.oom");
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_fault_choice(cy);
	pass_common_mode(cy);
	ck_assert_int_eq(cy.d.common_mode, 0);
}
END_TEST

START_TEST(launch_phase_two_ranks_failing_alike_single_out_nobody)
{
	fixture f;
	f.add(failure_class::network, event_role::initiating, 0, 0, 3, 0, "nccl.system");
	f.add(failure_class::network, event_role::initiating, 9, 0.2, 9, 0, "nccl.system");
	const decision d = through_launch_phase(f);
	ck_assert(d.cls == failure_class::launch_failure);
	ck_assert_int_eq(d.first_rank, -1);
	// One rank's own init failure, the others' different: that rank.
	fixture g;
	g.add(failure_class::network, event_role::initiating, 5, 0, 3, 0, "nccl.system");
	g.add(failure_class::network, event_role::victim, 1, 2, 9, 0, "nccl.remote");
	const decision d2 = through_launch_phase(g);
	ck_assert(d2.cls == failure_class::launch_failure);
	ck_assert_int_eq(d2.first_rank, 5);
}
END_TEST


START_TEST(launch_phase_a_fault_on_nccls_init_trail_is_a_launch_failure)
{
	// "misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/..."
	// then "NCCL INFO init.cc:1236 -> 2" on the same writer: NCCL init.
	for (int variant : {0, 1, 2}) {
		fixture f;
		event &e = f.add(failure_class::filesystem, event_role::initiating, 1, 0, 10);
		e.pid = 4100;
		event &t = f.add(failure_class::unknown, event_role::context, 1, 0, variant == 2 ? 40 : 14);
		t.kind = rule_kind::init_trail;
		t.pid = variant == 1 ? 4200 : 4100; // another process's trail, or one far after
		const decision d = through_launch_phase(f, false);
		ck_assert(d.cls == (variant == 0 ? failure_class::launch_failure : failure_class::filesystem));
	}
}
END_TEST

// NCCL's init trail after the relayed error, or (vLLM's workers) the error
// raised out of a traceback through ncclCommInitRank (the reader marks it
// at_startup); neither once something ran, nor with no sign of set-up.
START_TEST(launch_phase_relayed_nccl_errors_through_init_code_are_a_launch_failure)
{
	enum { trail, trail_after_progress, raised_in_comm_init, no_sign, variants };
	for (int v = 0; v < variants; v++) {
		fixture f;
		event &relayed = f.add(failure_class::network, event_role::victim, -1, 0, 10); // ncclInternalError
		relayed.at_startup = v == raised_in_comm_init;
		if (v == trail || v == trail_after_progress) {
			event &t = f.add(failure_class::unknown, event_role::context, -1, 0, 4);
			t.kind = rule_kind::init_trail;
		}
		if (v == trail_after_progress)
			f.ev.last_progress[writer_key(f.log, 0)] = 2;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::network);
		pass_launch_phase(cx);
		bool launch = v == trail || v == raised_in_comm_init;
		ck_assert_msg(cx.d.cls == (launch ? failure_class::launch_failure : failure_class::network), "variant %d", v);
	}
}
END_TEST

// torch.multiprocessing.spawn's "-- Process 1 terminated" numbers the
// process on its machine: under srun's task 1, which ran on the second
// node, it is that node's local rank 1 (the rank there on CUDA device 1).
START_TEST(identities_spawn_process_index_is_a_local_rank_on_its_tasks_node)
{
	for (bool second_node : {true, false}) {
		fixture f;
		for (int r = 0; r < 8; r++)
			place(f, r, r < 4 ? "gpu-d21" : "gpu-d22", -1, r % 4);
		int a = f.ev.intern_host("gpu-d21"), b = f.ev.intern_host("gpu-d22");
		event &exit = f.add(failure_class::unknown, event_role::context, -1, 0, 60);
		exit.kind = rule_kind::task_exit;
		exit.host = second_node ? b : a;
		exit.captures = {{"task", "1"}};
		event &e = f.add(failure_class::nan_inf, event_role::initiating, 1, 0, 50);
		e.task = 1;
		e.local_rank = 1;
		e.captures = {{"spawn_local", "1"}};
		resolve_identities(f.ev);
		ck_assert_int_eq(f.ev.events[1].rank, second_node ? 5 : 1);
	}
}
END_TEST

START_TEST(launch_phase_a_launch_failure_on_two_ranks_singles_out_nobody)
{
	// "Duplicate GPU detected : rank 3 and rank 2 ..." and "... rank 1 and rank 0 ...".
	fixture f;
	f.add(failure_class::launch_failure, event_role::initiating, 3, 0, 3, 0, "nccl.init");
	f.add(failure_class::launch_failure, event_role::initiating, 1, 0.1, 9, 0, "nccl.init");
	const decision d = through_launch_phase(f);
	ck_assert(d.cls == failure_class::launch_failure);
	ck_assert_int_eq(d.first_rank, -1);
	// After training ran, a launch-class fault is left as it was chosen.
	fixture g;
	g.add(failure_class::launch_failure, event_role::initiating, 3, 0, 3, 0, "nccl.init");
	g.add(failure_class::launch_failure, event_role::initiating, 1, 0.1, 9, 0, "nccl.init");
	g.ev.last_progress[writer_key(g.log, 0)] = 2;
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_fault_choice(cy);
	pass_common_mode(cy);
	pass_decide(cy);
	int before = cy.d.first_rank;
	pass_launch_phase(cy);
	ck_assert_int_eq(cy.d.first_rank, before);
}
END_TEST


// "gpu-n01: RuntimeError: CUDA error: no kernel image is available ..." and
// the same from gpu-n02 under pdsh, and the launcher's exit line of local
// rank 1 on gpu-n01: one fault on two nodes at start, nobody's.
START_TEST(launch_phase_the_same_unranked_fault_on_two_nodes_singles_out_nobody)
{
	for (bool two_nodes : {true, false}) {
		fixture f;
		int n1 = f.ev.intern_host("gpu-n01"), n2 = f.ev.intern_host("gpu-n02");
		event &a = f.add(failure_class::launch_failure, event_role::initiating, -1, 0, 20, 0, "launch.cuda");
		a.host = n1;
		event &b = f.add(failure_class::launch_failure, event_role::initiating, -1, 0.1, 27, 0, "launch.cuda");
		b.host = two_nodes ? n2 : n1;
		event &x = f.add(failure_class::unknown, event_role::context, 1, 2, 32);
		x.kind = rule_kind::task_exit;
		x.exitcode = 1;
		x.host = n1;
		const decision d = through_launch_phase(f, false);
		ck_assert(d.cls == failure_class::launch_failure);
		if (two_nodes) {
			ck_assert_int_eq(d.first_rank, -1);
			ck_assert_int_eq(d.first_host, -1);
			ck_assert_int_eq(d.common_mode, 2);
		} else {
			ck_assert_int_eq(d.first_rank, 1); // one node's lines: the exit's rank stands
			ck_assert_int_eq(d.common_mode, 0);
		}
	}
}
END_TEST

START_TEST(fault_choice_an_untimed_kernel_line_explains_only_its_own_nodes_fault)
{
	for (int same = 0; same <= 1; same++) {
		fixture f;
		int a = f.ev.intern_host("node1"), b = f.ev.intern_host("node2");
		event &net = f.add(failure_class::network, event_role::initiating, 4, 0, 3);
		net.host = a;
		net.weight = 40;
		event &oom = f.add(failure_class::host_oom, event_role::initiating, -1, 0, 1, f.kern);
		oom.host = same ? a : b;
		oom.weight = 85;
		oom.time_us = no_time; // boot-relative, no boot time: when is unknown
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		ck_assert(cx.best.e->cls == (same ? failure_class::host_oom : failure_class::network));
	}
}
END_TEST


// A rank that aborted after a fault of its own (its NCCL error) died of it:
// it was not waiting in the collective, so the one rank left is no odd one
// out; a rank that aborted with nothing of its own to say was waiting.
START_TEST(hang_structure_an_abort_after_its_own_fault_is_not_waiting)
{
	for (int own = 0; own <= 1; own++) {
		fixture f;
		f.ev.ranks.note_world_size(8);
		for (int r = 0; r < 8; r++)
			if (r != 2 && r != 3)
				watchdog(f, r, 342486, "ALLREDUCE", "262144000");
		if (own)
			f.add(failure_class::network, event_role::initiating, 2, 1, 40, 0, "nccl.system");
		exited(f, 2, -6, 2, 41);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (own) {
			ck_assert(cx.hv.suspects.empty());
		} else {
			ck_assert_uint_eq(cx.hv.suspects.size(), 1);
			ck_assert_int_eq(cx.hv.suspects[0], 3);
		}
	}
}
END_TEST

START_TEST(decide_the_rank_missing_from_a_hang_that_had_exited_first_died)
{
	fixture f;
	f.ev.ranks.note_world_size(4);
	exited(f, 3, 1, 10, 5); // exit code 1, before anyone timed out
	for (int r = 0; r < 3; r++)
		watchdog(f, r, 5, "ALLREDUCE", "2048");
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::unknown);
	ck_assert_int_eq(cx.d.first_rank, 3);
	// Torn down only after the others' timeouts: the rank that hung.
	fixture g;
	g.ev.ranks.note_world_size(4);
	for (int r = 0; r < 3; r++)
		watchdog(g, r, 5, "ALLREDUCE", "2048");
	exited(g, 3, 1, 900, 500);
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_hang_structure(cy);
	pass_decide(cy);
	ck_assert(cy.d.cls == failure_class::collective_hang);
	ck_assert_int_eq(cy.d.first_rank, 3);
}
END_TEST


START_TEST(host_resolution_names_the_node_that_never_joined_a_launch)
{
	fixture f;
	f.ev.job.nodelist = "n[1-3]";
	for (const char *h : {"n1", "n3"}) {
		event &w = f.add(failure_class::launch_failure, event_role::victim, -1, 900, 4);
		w.host = f.ev.intern_host(h);
	}
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::launch_failure);
	pass_host_resolution(cx);
	ck_assert_int_ge(cx.d.first_host, 0);
	DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "n2");
	ck_assert_int_eq(cx.d.first_rank, -1);
}
END_TEST

// Ranks that waited in vain on a key name the store the job stated; but
// when the store's server waited for its clients itself, it was up: the
// wait, shared by the nodes of its lines, names the node that never joined.
START_TEST(host_resolution_a_wait_shared_by_nodes_names_the_node_that_never_joined)
{
	for (int server_waited = 0; server_waited <= 1; server_waited++) {
		fixture f;
		f.ev.job.nodelist = "n[1-4]";
		event &m = f.add(failure_class::unknown, event_role::context, -1, 0, 1);
		m.captures = {{"master_addr", "n1"}};
		for (const char *h : {"n2", "n3"}) {
			event &w = f.add(failure_class::launch_failure, event_role::victim, -1, 900, 4);
			w.host = f.ev.intern_host(h);
			w.captures = {{"store_key", "/default_pg/0//cuda//0"}};
		}
		if (server_waited) {
			event &sv = f.add(failure_class::launch_failure, event_role::victim, -1, 901, 7, 0, "test.server");
			sv.host = f.ev.intern_host("n1");
			sv.captures = {{"store_served", "waiting for clients"}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::launch_failure;
		cx.d.first = &f.ev.events[1];
		cx.d.first_host = f.ev.events[1].host;
		pass_host_resolution(cx);
		DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), server_waited ? "n4" : "n1");
	}
}
END_TEST

// A watchdog line of the shorter shape names no tensor size: no desync with
// the ranks whose lines do. With no world size stated, the one gap below
// the highest rank named in a flood of timeouts is the rank that stopped.
START_TEST(hang_structure_a_line_without_a_size_is_no_desync_and_the_gap_is_missing)
{
	for (int with_gap = 0; with_gap < 2; with_gap++) {
		fixture f;
		for (int r = 0; r < 8; r++)
			if (!with_gap || r != 6)
				watchdog(f, r, 41620, "ALLREDUCE", r == 4 || r == 7 ? "" : "262144");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (!with_gap) {
			ck_assert_msg(cx.hv.suspects.empty(), "%s", cx.hv.why.c_str());
			continue;
		}
		ck_assert_uint_eq(cx.hv.suspects.size(), 1);
		ck_assert_int_eq(cx.hv.suspects[0], 6);
		ck_assert_msg(cx.hv.why.find("at least 8") != std::string::npos, "%s", cx.hv.why.c_str());
	}
}
END_TEST

// Every rank of a known world aborted (SIGABRT), all but one after saying
// their watchdog timed out: the one that said nothing was stuck elsewhere.
// Two silent ranks single out neither.
START_TEST(hang_structure_the_rank_that_aborted_without_a_word)
{
	for (int silent = 1; silent <= 2; silent++) {
		fixture f;
		f.ev.ranks.note_world_size(16);
		for (int r = 0; r < 16; r++) {
			if (r != 12 && (silent == 1 || r != 3))
				watchdog(f, r, 58105, "ALLREDUCE", "4194304");
			exited(f, r, -6, 700, 200 + static_cast<uint64_t>(r));
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (silent == 2) {
			ck_assert(cx.hv.suspects.empty());
			continue;
		}
		ck_assert_uint_eq(cx.hv.suspects.size(), 1);
		ck_assert_int_eq(cx.hv.suspects[0], 12);
		ck_assert_msg(cx.hv.why.find("reported none") != std::string::npos, "%s", cx.hv.why.c_str());
	}
	// Two ranks: the silent one only where its output is there (its
	// progress lines), not where nothing of it was read at all.
	for (int seen = 0; seen < 2; seen++) {
		fixture f;
		f.ev.ranks.note_world_size(2);
		watchdog(f, 1, 60580, "ALLREDUCE", "1");
		exited(f, 0, -6, 700, 300);
		exited(f, 1, -6, 700, 301);
		if (seen)
			f.ev.rank_progress.push_back(rank_progress_mark{f.log, 0, false, 1000});
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (!seen) {
			ck_assert(cx.hv.suspects.empty());
			continue;
		}
		ck_assert_uint_eq(cx.hv.suspects.size(), 1);
		ck_assert_int_eq(cx.hv.suspects[0], 0);
	}
}
END_TEST

// Hang structure beyond the watchdogs' own words: the steps ranks logged.

static void step_at(fixture &f, int rank, long long step, const rule *r)
{
	f.ev.rank_steps.push_back(rank_step_mark{f.log, rank, false, step, 1000 + static_cast<uint64_t>(rank), r});
}

START_TEST(hang_structure_the_rank_behind_in_steps_stopped)
{
	for (int ahead = 0; ahead < 2; ahead++) {
		fixture f;
		rule progress;
		for (int r = 0; r < 8; r++) {
			if (r != 5)
				watchdog(f, r, 511, "ALLREDUCE", "1024");
			step_at(f, r, r == 5 ? (ahead ? 1205 : 1203) : 1204, &progress);
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		if (ahead) {
			ck_assert(cx.hv.suspects.empty()); // ahead of the others is no sign of stopping
			continue;
		}
		ck_assert_uint_eq(cx.hv.suspects.size(), 1);
		ck_assert_int_eq(cx.hv.suspects[0], 5);
		ck_assert(cx.hv.why.find("1203") != std::string::npos);
	}
}
END_TEST

// Stall reports naming one rank missing for minutes before a time limit:
// the limit ended a hang. A stall reported just before the limit is no cause.
START_TEST(stopped_while_hung_a_time_limit_after_long_stall_reports_is_the_hang)
{
	for (double lead : {3600.0, 600.0, 60.0}) {
		fixture f;
		event &limit = f.add(failure_class::time_limit, event_role::initiating, -1, lead, 50);
		limit.kind = rule_kind::job_end;
		for (int i = 0; i < 3; i++) {
			event &stall = f.add(failure_class::collective_hang, event_role::victim, -1, i * 10.0, 10 + i);
			stall.captures = {{"missing_rank", "0"}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_stall_report(cx);
		cx.d.cls = failure_class::time_limit;
		cx.d.first = &f.ev.events[0];
		pass_stopped_while_hung(cx);
		if (lead > 300) {
			ck_assert(cx.d.cls == failure_class::collective_hang);
			ck_assert_int_eq(cx.d.first_rank, 0);
		} else {
			ck_assert(cx.d.cls == failure_class::time_limit);
		}
	}
}
END_TEST

// A cancel long after every rank's last progress, one rank behind in steps:
// the cancel ended a hang, and that rank stopped. A cancel soon after the
// last progress, or with nobody behind, stays a cancel.
START_TEST(stopped_while_hung_a_cancel_after_a_long_silence_is_the_hang)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		rule progress;
		const double silence_s = variant == 1 ? 120 : 3900;
		for (int r = 0; r < 4; r++) {
			step_at(f, r, r == 1 && variant != 2 ? 4 : 5, &progress);
			f.ev.rank_progress.push_back(rank_progress_mark{f.log, r, false, t0 + r * 1000});
		}
		event &cancel = f.add(failure_class::user_cancel, event_role::initiating, -1, silence_s, 59, f.log);
		cancel.kind = rule_kind::job_end;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::user_cancel;
		cx.d.first = &cancel;
		pass_stopped_while_hung(cx);
		if (variant == 0) {
			ck_assert(cx.d.cls == failure_class::collective_hang);
			ck_assert_int_eq(cx.d.first_rank, 1);
			ck_assert(cx.d.first == nullptr);
		} else {
			ck_assert(cx.d.cls == failure_class::user_cancel);
			ck_assert_int_eq(cx.d.first_rank, -1);
		}
	}
}
END_TEST

START_TEST(hang_structure_steps_of_other_kinds_of_line_do_not_compare)
{
	fixture f;
	rule a, b;
	for (int r = 0; r < 6; r++)
		watchdog(f, r, 511, "ALLREDUCE", "1024");
	for (int r = 0; r < 2; r++)
		step_at(f, r, 1204, &a);
	step_at(f, 2, 77, &b); // an epoch's batch counter, not the step
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	ck_assert(cx.hv.suspects.empty());
}
END_TEST

// Host resolution from the job's node list where no line placed the rank.

// NCCL's bootstrap line of a rank on host: the address that host uses.
static void says_address(fixture &f, int rank, int host, const char *ip, int line)
{
	event &e = f.add(failure_class::unknown, event_role::context, rank, -600, line, f.log, "nccl.bootstrap_address");
	e.host = host;
	e.captures = {{"host_ip", ip}};
}

static std::string host_resolved(fixture &f, int first_rank)
{
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	cx.d.cls = failure_class::collective_hang;
	cx.d.first_rank = first_rank;
	pass_host_resolution(cx);
	return cx.d.first_host < 0 ? std::string("-") : f.ev.host_name(cx.d.first_host);
}

START_TEST(host_resolution_places_a_rank_by_the_jobs_nodes)
{
	{
		fixture f; // one node: every rank ran there
		f.ev.job.nodelist = "gpu07";
		f.ev.ranks.note_world_size(8);
		DIAG_CK_STR_EQ(host_resolved(f, 5), "gpu07");
	}
	{
		fixture f; // the one node with room left
		f.ev.job.nodelist = "n[1-2]";
		f.ev.ranks.note_world_size(4);
		place(f, 0, "n2");
		place(f, 1, "n2");
		place(f, 2, "n1");
		DIAG_CK_STR_EQ(host_resolved(f, 3), "n1");
	}
	{
		fixture f; // Slurm's block order, as every known rank shows it
		f.ev.job.nodelist = "n[1-3]";
		f.ev.ranks.note_world_size(6);
		place(f, 0, "n1");
		place(f, 5, "n3");
		DIAG_CK_STR_EQ(host_resolved(f, 3), "n2");
	}
	{
		fixture f; // a known rank out of that order: no guess
		f.ev.job.nodelist = "n[1-3]";
		f.ev.ranks.note_world_size(6);
		place(f, 0, "n3");
		place(f, 5, "n1");
		DIAG_CK_STR_EQ(host_resolved(f, 3), "-");
	}
	{
		fixture f; // a host the list does not name: the list is no guide
		f.ev.job.nodelist = "n[1-2]";
		f.ev.ranks.note_world_size(4);
		place(f, 0, "other9");
		place(f, 1, "n1");
		place(f, 2, "n2");
		DIAG_CK_STR_EQ(host_resolved(f, 3), "-");
	}
}
END_TEST

// A network error naming its peer's address, whose host's link failed.
START_TEST(peer_fault_a_link_error_is_the_peer_hosts_whose_link_went_down)
{
	for (int own_link_too = 0; own_link_too < 2; own_link_too++) {
		fixture f;
		int a = f.ev.intern_host("node1"), b = f.ev.intern_host("node2");
		says_address(f, 0, a, "10.0.0.1", 1);
		says_address(f, 8, b, "10.0.0.2", 2);
		event &down = f.add(failure_class::network, event_role::context, -1, -0.5, 1, f.kern, "netdev.link_down");
		down.host = own_link_too ? a : b;
		event &err = f.add(failure_class::network, event_role::initiating, 3, 0, 40, f.log, "nccl.ib_completion");
		err.host = a;
		err.captures = {{"peer", "10.0.0.2<41222>"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::network;
		cx.d.first = &f.ev.events[3];
		cx.d.first_rank = 3;
		cx.d.first_host = a;
		pass_peer_fault(cx);
		if (own_link_too) {
			ck_assert_int_eq(cx.d.first_rank, 3); // its own link went down: its own error
			ck_assert_int_eq(cx.d.first_host, a);
			continue;
		}
		ck_assert_int_eq(cx.d.first_host, b);
		ck_assert_int_eq(cx.d.first_rank, -1); // no rank of node2 said anything
	}
}
END_TEST

// A generic NCCL error right after its own socket to a peer was reset by
// that end: the peer went first; where no line names the peer's host, no
// rank or host is singled out. Without the reset, the error stays its own.
START_TEST(peer_fault_an_error_after_its_socket_was_reset_is_the_peers)
{
	for (int reset = 0; reset < 2; reset++) {
		fixture f;
		int a = f.ev.intern_host("node2");
		says_address(f, 8, a, "10.0.0.2", 1);
		if (reset) {
			event &closed = f.add(failure_class::network, event_role::victim, 13, -0.02, 10, f.log, "nccl.socket_peer_closed");
			closed.captures = {{"peer", "10.0.0.9<47113>"}};
		}
		f.add(failure_class::network, event_role::initiating, 13, 0, 12, f.log, "nccl.unhandled_system_error");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::network;
		cx.d.first = &f.ev.events.back();
		cx.d.first_rank = 13;
		pass_peer_fault(cx);
		ck_assert_int_eq(cx.d.first_rank, reset ? -1 : 13);
		ck_assert_int_eq(cx.d.first_host, -1);
	}
}
END_TEST

START_TEST(host_resolution_names_an_address_by_the_node_nccl_says_uses_it)
{
	fixture f;
	int ip = f.ev.intern_host("10.0.0.2"), node = f.ev.intern_host("node2");
	says_address(f, 4, node, "10.0.0.2", 2);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	cx.d.cls = failure_class::segfault;
	cx.d.first_host = ip;
	pass_host_resolution(cx);
	ck_assert_int_eq(cx.d.first_host, node);
}
END_TEST

static event &step_cancelled(fixture &f, double secs, uint64_t line)
{
	event &c = f.add(failure_class::user_cancel, event_role::victim, -1, secs, line, 0, "test.step_cancelled");
	c.kind = rule_kind::job_end;
	return c;
}

START_TEST(slurm_last_word_a_step_cancelled_before_any_trouble_is_a_cancellation)
{
	// Nothing went wrong before slurmstepd cancelled the step: scancel.
	fixture f;
	step_cancelled(f, 0, 10);
	event &term = f.add(failure_class::unknown, event_role::victim, 2, 0.2, 11, 0, "test.closing_signal");
	term.kind = rule_kind::task_exit;
	term.signal = 15;
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_slurm_last_word(cx);
	ck_assert(f.ev.events[0].role == event_role::initiating);
	pass_fault_choice(cx);
	ck_assert_ptr_eq(cx.best.e, &f.ev.events[0]);
	ck_assert(cx.best.e->cls == failure_class::user_cancel);
}
END_TEST

START_TEST(slurm_last_word_a_step_cancelled_after_a_task_failed_is_its_teardown)
{
	// srun's kill of the step after a task failed reads the same: a teardown.
	fixture f;
	exited(f, 3, 1, -0.5, 9);
	step_cancelled(f, 0, 10);
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_slurm_last_word(cx);
	ck_assert(f.ev.events[1].role == event_role::victim);
	// sacct's word, where there is one, is Slurm's last word instead.
	fixture g;
	g.ev.job.state = "FAILED";
	step_cancelled(g, 0, 10);
	diagnosis_context cy(g.ev, g.kn, g.clk, g.fr);
	pass_slurm_last_word(cy);
	ck_assert(g.ev.events[0].role == event_role::victim);
}
END_TEST

START_TEST(peer_fault_a_link_error_naming_a_peer_that_had_exited_is_that_exit)
{
	for (int peer_said_why = 0; peer_said_why < 2; peer_said_why++) {
		fixture f;
		int a = f.ev.intern_host("node1"), b = f.ev.intern_host("node2");
		says_address(f, 0, a, "10.0.0.1", 1);
		says_address(f, 8, b, "10.0.0.2", 2);
		event &gone = exited(f, 8, 1, -1, 30);
		gone.host = b;
		if (peer_said_why) {
			event &why = f.add(failure_class::python_exception, event_role::initiating, 8, -1.5, 29);
			why.host = b;
		}
		event &err = f.add(failure_class::network, event_role::initiating, 3, 0, 40, f.log, "nccl.ib_completion");
		err.host = a;
		err.captures = {{"peer", "10.0.0.2<41222>"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::network;
		cx.d.first = &f.ev.events.back();
		cx.d.first_rank = 3;
		cx.d.first_host = a;
		pass_peer_fault(cx);
		if (peer_said_why) {
			// Its exit has a reason of its own: not this pass's to read.
			ck_assert_int_eq(cx.d.first_rank, 3);
			ck_assert(cx.d.cls == failure_class::network);
			continue;
		}
		ck_assert_int_eq(cx.d.first_rank, 8);
		ck_assert_int_eq(cx.d.first_host, b);
		ck_assert(cx.d.cls == failure_class::unknown);
	}
}
END_TEST

START_TEST(host_resolution_a_launch_wait_by_srun_label_is_from_that_tasks_node)
{
	// torchrun under srun: each node's agent is a Slurm task; its report
	// carries the label only, and srun's "node: task N" line says where.
	fixture f;
	f.ev.job.nodelist = "n[1-3]";
	const char *node_of[] = {"n1", "n3"};
	for (int task = 0; task < 2; task++) {
		event &w = f.add(failure_class::launch_failure, event_role::victim, -1, 900, 4 + task);
		w.task = task;
		event &x = exited(f, -1, 1, 901, 10 + task);
		x.host = f.ev.intern_host(node_of[task]);
		x.captures = {{"task", std::to_string(task)}};
	}
	f.ev.intern_host("n2");
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_fault_choice(cx);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::launch_failure);
	pass_host_resolution(cx);
	ck_assert_int_ge(cx.d.first_host, 0);
	DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "n2");
}
END_TEST

// Unprefixed waits name no node and no task, and every node that came up
// waited alike (common mode): the nodes whose tasks then failed were those
// waiting, and the one node of the job with neither never joined.
START_TEST(host_resolution_unplaced_waits_are_on_the_nodes_whose_tasks_failed)
{
	for (int exits = 2; exits <= 3; exits++) {
		fixture f;
		f.ev.job.nodelist = "n[1-4]";
		const char *node_of[] = {"n1", "n2", "n4"};
		for (int i = 0; i < 3; i++) {
			event &w = f.add(failure_class::launch_failure, event_role::initiating, -1, 900, 4 + static_cast<uint64_t>(i));
			w.kind = rule_kind::exception;
			w.captures = {{"traceback_line", std::to_string(1 + i)}};
		}
		for (int i = 0; i < exits; i++)
			exited(f, -1, 1, 901, 10 + static_cast<uint64_t>(i)).host = f.ev.intern_host(node_of[i]);
		f.ev.intern_host("n3");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::launch_failure);
		pass_host_resolution(cx);
		if (exits == 3) {
			ck_assert_int_ge(cx.d.first_host, 0);
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "n3");
			ck_assert_int_eq(cx.d.common_mode, 0);
		} else {
			ck_assert_int_lt(cx.d.first_host, 0); // two nodes silent: neither singled out
		}
	}
}
END_TEST

START_TEST(host_resolution_places_a_rank_by_the_blocks_of_the_hosts_seen)
{
	{
		fixture f; // no node list: three hosts, one block of 8 ranks each
		f.ev.ranks.note_world_size(24);
		place(f, 0, "a", 0);
		place(f, 3, "a", 3);
		place(f, 9, "b", 1);
		place(f, 16, "c", 0);
		place(f, 23, "c", 7);
		DIAG_CK_STR_EQ(host_resolved(f, 21), "c");
		DIAG_CK_STR_EQ(host_resolved(f, 12), "b");
	}
	{
		fixture f; // ranks spread round-robin: no blocks, no guess
		f.ev.ranks.note_world_size(8);
		place(f, 0, "a", 0);
		place(f, 1, "b", 0);
		place(f, 2, "a", 1);
		place(f, 3, "b", 1);
		DIAG_CK_STR_EQ(host_resolved(f, 5), "-");
	}
	{
		fixture f; // two hosts seen, but rank 23 is local rank 7: a third host, unseen
		f.ev.ranks.note_world_size(24);
		place(f, 0, "a", 0);
		place(f, 23, "c", 7);
		DIAG_CK_STR_EQ(host_resolved(f, 12), "-");
	}
	{
		fixture f; // no local rank known: the blocks are a guess
		f.ev.ranks.note_world_size(24);
		place(f, 0, "a");
		place(f, 9, "b");
		place(f, 23, "c");
		DIAG_CK_STR_EQ(host_resolved(f, 21), "-");
	}
}
END_TEST

START_TEST(peer_fault_a_launcher_reports_the_peers_exit_on_its_next_poll)
{
	// torchrun's agent reports a worker's exit seconds late; srun's word
	// that late is an exit after the error.
	for (int by_agent = 0; by_agent < 2; by_agent++) {
		fixture f;
		int a = f.ev.intern_host("node1"), b = f.ev.intern_host("node2");
		says_address(f, 8, b, "10.0.0.2", 2);
		event &err = f.add(failure_class::network, event_role::initiating, 3, 0, 40, f.log, "nccl.ib_completion");
		err.host = a;
		err.captures = {{"peer", "10.0.0.2<41222>"}};
		event &gone = exited(f, 8, 1, 3, 50);
		gone.host = b;
		if (by_agent)
			gone.local_rank = 0;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::network;
		cx.d.first = &f.ev.events[1];
		cx.d.first_rank = 3;
		cx.d.first_host = a;
		pass_peer_fault(cx);
		ck_assert_int_eq(cx.d.first_rank, by_agent ? 8 : 3);
	}
}
END_TEST

// The decision before pass_mutual_link_errors: a network error, its rank and
// host singled out.
static void blame_network_error(diagnosis_context &cx, const event &first, int host)
{
	cx.d.cls = failure_class::network;
	cx.d.first = &first;
	cx.d.first_rank = first.rank;
	cx.d.first_host = host;
	cx.d.rank_singled_out = true;
}

// An InfiniBand completion error (status 12) of a rank on host, naming peer.
static event &ib_completion_error(fixture &f, int rank, int host, const char *peer, double secs, uint64_t line)
{
	event &e = f.add(failure_class::network, event_role::initiating, rank, secs, line, f.log, "nccl.ib_completion");
	e.host = host;
	e.captures = {{"peer", peer}, {"status", "12"}};
	return e;
}

// Three nodes whose ranks 0, 8 and 16 say their addresses 10.0.0.1-3.
static void three_nodes(fixture &f, int &a, int &b, int &c)
{
	a = f.ev.intern_host("node1"), b = f.ev.intern_host("node2"), c = f.ev.intern_host("node3");
	says_address(f, 0, a, "10.0.0.1", 1);
	says_address(f, 8, b, "10.0.0.2", 2);
	says_address(f, 16, c, "10.0.0.3", 3);
}

// Link errors from both ends, each naming the other's address, at once:
// nobody stands apart. With a third host that both others name (and that
// names one of them back), that host is the end that failed; so is the end
// whose error came a minute before the other's, and the one end with a
// network fault of its own beside them. A pdsh prefix that is a host's
// address is that host, not a third reporter.
START_TEST(mutual_link_errors_single_out_nobody_unless_one_host_is_named_by_all)
{
	enum { at_once, third_host, a_minute_first, own_fault, address_prefix, variants };
	for (int variant = 0; variant < variants; variant++) {
		fixture f;
		int a, b, c;
		three_nodes(f, a, b, c);
		auto link_error = [&](int rank, int host, const char *peer, double secs, uint64_t line) -> event & {
			return ib_completion_error(f, rank, host, peer, secs, line);
		};
		if (variant == third_host) {
			link_error(3, a, "10.0.0.3<52116>", 0, 40);
			link_error(9, b, "10.0.0.3<52119>", 0.1, 41);
			link_error(20, c, "10.0.0.1<52114>", 0.2, 42);
		} else {
			link_error(3, a, "10.0.0.2<52116>", 0, 40);
			link_error(14, b, "10.0.0.1<52119>", variant == a_minute_first ? 60 : 0.2, 41);
		}
		if (variant == own_fault)
			f.add(failure_class::network, event_role::initiating, 3, 0, 39, f.log, "nccl.unhandled_system_error").host = a;
		if (variant == address_prefix) {
			// Node1's own line under pdsh's "10.0.0.1: " prefix, its RoCE
			// localGid giving the same address.
			event &e = link_error(-1, f.ev.intern_host("10.0.0.1"), "10.0.0.2<52117>", 0.1, 43);
			e.captures.emplace_back("host_ip", "10.0.0.1");
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		blame_network_error(cx, f.ev.events[3], a);
		pass_mutual_link_errors(cx);
		if (variant == a_minute_first || variant == own_fault) {
			ck_assert_int_eq(cx.d.first_rank, 3); // its end went first
			ck_assert_int_eq(cx.d.first_host, a);
		} else if (variant == third_host) {
			ck_assert_int_eq(cx.d.first_host, c);
			ck_assert_int_eq(cx.d.first_rank, 20);
		} else {
			ck_assert_msg(cx.d.first_rank == -1 && cx.d.first_host == -1 && !cx.d.rank_singled_out,
				      "variant %d: rank %d host %d", variant, cx.d.first_rank, cx.d.first_host);
		}
	}
}
END_TEST

// Two hosts' link errors naming the same one peer, a third host that
// reports none itself: that host's end failed, no rank of it singled out.
// Where the peer reports the same loss too, it is no longer apart.
START_TEST(mutual_link_errors_the_one_peer_two_hosts_lost)
{
	for (int peer_reports = 0; peer_reports < 2; peer_reports++) {
		fixture f;
		int a, b, c;
		three_nodes(f, a, b, c);
		auto link_error = [&](int rank, int host, const char *peer, double secs, uint64_t line) -> event & {
			return ib_completion_error(f, rank, host, peer, secs, line);
		};
		link_error(3, a, "10.0.0.3<52116>", 0, 40);
		link_error(9, b, "10.0.0.3<52119>", 0.1, 41);
		if (peer_reports)
			link_error(20, c, "10.0.0.3<52118>", 0.2, 42);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		blame_network_error(cx, f.ev.events[3], a);
		pass_mutual_link_errors(cx);
		if (!peer_reports) {
			ck_assert_int_eq(cx.d.first_host, c);
			ck_assert_int_eq(cx.d.first_rank, -1);
		} else {
			ck_assert_int_eq(cx.d.first_host, a);
			ck_assert_int_eq(cx.d.first_rank, 3);
		}
	}
}
END_TEST

// NCCL before 2.12 names no peer ("Got completion with error 12"): in a job
// on two hosts each end lost the other, and "unhandled system error" on one
// of them is that error passed up.
START_TEST(mutual_link_errors_unnamed_peers_on_two_hosts_single_out_nobody)
{
	for (int hosts : {2, 3}) {
		fixture f;
		int a = f.ev.intern_host("gpu-r17"), b = f.ev.intern_host("gpu-r19");
		place(f, 0, "gpu-r17");
		place(f, 1, "gpu-r19");
		if (hosts == 3)
			place(f, 2, "gpu-r21");
		for (int rank : {1, 0}) {
			event &e = f.add(failure_class::network, event_role::initiating, rank, 0, 46 + 6 * static_cast<uint64_t>(1 - rank), f.log,
					 "nccl.ib_completion_unnamed_peer");
			e.host = rank ? b : a;
			e.captures = {{"status", "12"}};
		}
		f.add(failure_class::network, event_role::initiating, 1, 0, 57, f.log, "nccl.unhandled_system_error").host = b;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		blame_network_error(cx, f.ev.events[0], b);
		pass_mutual_link_errors(cx);
		if (hosts == 2)
			ck_assert_msg(cx.d.first_rank == -1 && cx.d.first_host == -1 && !cx.d.rank_singled_out, "rank %d host %d",
				      cx.d.first_rank, cx.d.first_host);
		else
			ck_assert_int_eq(cx.d.first_rank, 1); // which peer each lost is not known
	}
}
END_TEST

// torchrun's launch line with a fixed --nnodes and --nproc-per-node states
// the world: a rank that never logged is still in it, and missing from the
// hang's reports. An elastic range states none.
START_TEST(hang_structure_the_launch_line_states_the_world_a_silent_rank_is_in)
{
	for (int fixed = 0; fixed <= 1; fixed++) {
		fixture f;
		event &l = f.add(failure_class::unknown, event_role::context, -1, -3600, 2, f.log);
		if (fixed)
			l.captures = {{"agent_nnodes", "1"}, {"agent_nproc", "4"}};
		for (int r = 0; r < 3; r++)
			watchdog(f, r, 5, "ALLREDUCE", "2048");
		resolve_identities(f.ev);
		ck_assert_int_eq(f.ev.ranks.world_size(), (fixed ? 4 : 3));
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		ck_assert_int_eq(static_cast<int>(cx.hv.suspects.size()), (fixed ? 1 : 0));
		if (fixed)
			ck_assert_int_eq(cx.hv.suspects[0], 3);
	}
}
END_TEST

// An Xid that names no rank, on a node whose other ranks all timed out in
// the collective: the node's one silent rank is the one whose GPU failed,
// though ranks of the other node were killed before their watchdogs fired.
// Two silent ranks on the node single out nobody.
START_TEST(decide_an_xid_without_a_rank_is_its_nodes_one_rank_not_waiting)
{
	for (int silent_here = 1; silent_here <= 2; silent_here++) {
		fixture f;
		int a = f.ev.intern_host("gpu-a01");
		for (int r = 0; r < 8; r++)
			place(f, r, r < 4 ? "gpu-a01" : "gpu-a02");
		event &x = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 1, f.kern);
		x.host = a;
		for (int r : {0, 1, 3, 4})
			if (silent_here == 1 || r != 1)
				watchdog(f, r, 5, "ALLREDUCE", "2048");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_hang_structure(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::gpu_hardware);
		ck_assert_int_eq(cx.d.first_rank, (silent_here == 1 ? 2 : -1));
	}
}
END_TEST

// An Xid naming no rank, in a job of two whose one rank's watchdog timed
// out and aborted it (SIGABRT): that abort is the watchdog's, not a crash
// of the rank the fault struck; the silent rank, missing from the hang, is
// the fault's. A rank that aborted with no timeout of its own stays the
// crashed one.
START_TEST(fault_choice_a_watchdogs_abort_is_no_crash_to_lend_an_xid_its_rank)
{
	for (int timed_out = 0; timed_out <= 1; timed_out++) {
		fixture f;
		int a = f.ev.intern_host("hpc-g032");
		f.ev.job.nodelist = "hpc-g032";
		rank_info ri;
		ri.rank = 1;
		ri.host = a;
		f.ev.ranks.add(ri);
		f.ev.ranks.note_world_size(2);
		event &x = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 1, f.kern);
		x.host = a;
		if (timed_out)
			watchdog(f, 1, 302744, "_REDUCE_SCATTER_BASE", "");
		exited(f, 1, -6, 1800, 40);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_hang_structure(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::gpu_hardware);
		ck_assert_int_eq(cx.d.first_rank, (timed_out ? 0 : 1));
	}
}
END_TEST

// An Xid naming its process (pid=N) and the exit of the rank whose pid
// that is, on a line prefixed by the node's address rather than its name:
// the same process, the exit's rank. Another pid lends nothing across the
// two names.
START_TEST(fault_choice_an_xid_takes_the_rank_of_the_exit_naming_its_pid)
{
	for (int same = 0; same <= 1; same++) {
		fixture f;
		int name = f.ev.intern_host("dgx0057"), addr = f.ev.intern_host("10.38.0.1");
		event &x = f.add(failure_class::gpu_hardware, event_role::initiating, -1, 0, 1, f.kern);
		x.host = name;
		x.captures = {{"gpu_pid", "1118640"}};
		event &q = exited(f, 1, 1, 5, 74);
		q.host = addr;
		q.captures = {{"pid", same ? "1118640" : "1118641"}};
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_hang_structure(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::gpu_hardware);
		ck_assert_int_eq(cx.d.first_rank, (same ? 1 : -1));
	}
}
END_TEST

// A launcher told to stop by SIGTERM (or SIGHUP) before anything went wrong
// is someone's stop where no scheduler ran or spoke for the job; under Slurm
// (a job id) or after a cluster manager's word on the end it decides
// nothing: a time limit whose banner was not kept sends the same SIGTERM.
START_TEST(slurm_last_word_a_sigterm_is_someones_stop_only_where_no_scheduler_ran)
{
	for (int where = 0; where < 4; where++) {
		fixture f;
		if (where == 1)
			f.ev.job.job_id = "4242";
		if (where == 2) {
			event &j = f.add(failure_class::preemption, event_role::initiating, -1, 90, 20, 0, "test.preempted");
			j.kind = rule_kind::job_end;
		}
		event &t = f.add(failure_class::user_cancel, event_role::context, -1, 60, 9, 0, "test.told_to_stop");
		t.signal = where == 3 ? 2 : 15; // 3: SIGINT, Ctrl-C, under Slurm too
		if (where == 3)
			f.ev.job.job_id = "4242";
		size_t at = f.ev.events.size() - 1;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_slurm_last_word(cx);
		ck_assert_msg(f.ev.events[at].role == (where == 0 || where == 3 ? event_role::initiating : event_role::context),
			      "case %d", where);
	}
}
END_TEST

// Such a stop that reached one node of several names that node; one that
// reached every node names none.
START_TEST(host_resolution_a_stop_that_reached_one_node_names_it)
{
	for (int both = 0; both <= 1; both++) {
		fixture f;
		int a = f.ev.intern_host("pod-0"), b = f.ev.intern_host("pod-1");
		event &t = f.add(failure_class::user_cancel, event_role::initiating, -1, 60, 9);
		t.signal = 15;
		t.host = b;
		if (both) {
			event &u = f.add(failure_class::user_cancel, event_role::context, -1, 60, 10);
			u.signal = 15;
			u.host = a;
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::user_cancel;
		cx.d.first = &f.ev.events[0];
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_host, both ? -1 : b);
	}
}
END_TEST

// "localhost" (a launcher's table on one machine) is the machine's own name
// where the job shows one, and stays what it is beside several. Where no
// line names a machine, the one node Slurm gave the job is it; of two
// nodes, which one is not known.
START_TEST(host_resolution_localhost_is_the_one_machines_own_name)
{
	for (int machines = 1; machines <= 2; machines++) {
		fixture f;
		int lo = f.ev.intern_host("localhost"), own = f.ev.intern_host("ws-q11");
		if (machines == 2)
			f.ev.intern_host("ws-q12");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::host_oom;
		cx.d.first_host = lo;
		cx.d.first_rank = 3;
		pass_host_resolution(cx);
		ck_assert_int_eq(cx.d.first_host, machines == 1 ? own : lo);
	}
	for (const char *nodes : {"a800-n05", "a800-n[05-06]"}) {
		fixture f;
		int lo = f.ev.intern_host("localhost");
		f.ev.job.nodelist = nodes;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::nan_inf;
		cx.d.first_host = lo;
		pass_host_resolution(cx);
		ck_assert_str_eq(f.ev.host_name(cx.d.first_host).c_str(),
				 std::string(nodes) == "a800-n05" ? "a800-n05" : "localhost");
	}
}
END_TEST

// A fault naming neither rank nor node, in a job that shows one machine:
// the rank missing from the watchdog reports is its. In a job of two
// machines the fault could be either's, and names no rank.
START_TEST(decide_a_fault_naming_no_rank_on_one_machine_is_the_rank_missing_from_the_hang)
{
	for (int machines = 1; machines <= 2; machines++) {
		fixture f;
		for (int r = 0; r < 4; r++)
			place(f, r, machines == 2 && r >= 2 ? "gpu-b02" : "gpu-b01");
		f.ev.ranks.note_world_size(4);
		f.add(failure_class::cuda_oom, event_role::initiating, -1, 0, 1);
		for (int r : {0, 2, 3})
			watchdog(f, r, 2291, "_REDUCE_SCATTER_BASE", "8650752");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_hang_structure(cx);
		pass_decide(cx);
		ck_assert(cx.d.cls == failure_class::cuda_oom);
		ck_assert_int_eq(cx.d.first_rank, machines == 1 ? 1 : -1);
	}
}
END_TEST

static void add_hang_tests(Suite *s)
{
	TCase *t = tcase_create("hang");
	tcase_add_test(t, fault_choice_an_xid_takes_the_rank_of_the_exit_naming_its_pid);
	tcase_add_test(t, fault_choice_a_watchdogs_abort_is_no_crash_to_lend_an_xid_its_rank);
	tcase_add_test(t, hang_structure_the_launch_line_states_the_world_a_silent_rank_is_in);
	tcase_add_test(t, decide_an_xid_without_a_rank_is_its_nodes_one_rank_not_waiting);
	tcase_add_test(t, hang_structure_the_rank_behind_in_steps_stopped);
	tcase_add_test(t, stopped_while_hung_a_cancel_after_a_long_silence_is_the_hang);
	tcase_add_test(t, stopped_while_hung_a_time_limit_after_long_stall_reports_is_the_hang);
	tcase_add_test(t, hang_structure_a_line_without_a_size_is_no_desync_and_the_gap_is_missing);
	tcase_add_test(t, hang_structure_the_rank_that_aborted_without_a_word);
	tcase_add_test(t, hang_structure_steps_of_other_kinds_of_line_do_not_compare);
	tcase_add_test(t, host_resolution_places_a_rank_by_the_jobs_nodes);
	tcase_add_test(t, peer_fault_a_link_error_is_the_peer_hosts_whose_link_went_down);
	tcase_add_test(t, peer_fault_an_error_after_its_socket_was_reset_is_the_peers);
	tcase_add_test(t, host_resolution_names_an_address_by_the_node_nccl_says_uses_it);
	tcase_add_test(t, slurm_last_word_a_step_cancelled_before_any_trouble_is_a_cancellation);
	tcase_add_test(t, slurm_last_word_a_sigterm_is_someones_stop_only_where_no_scheduler_ran);
	tcase_add_test(t, host_resolution_a_stop_that_reached_one_node_names_it);
	tcase_add_test(t, host_resolution_localhost_is_the_one_machines_own_name);
	tcase_add_test(t, decide_a_fault_naming_no_rank_on_one_machine_is_the_rank_missing_from_the_hang);
	tcase_add_test(t, slurm_last_word_a_step_cancelled_after_a_task_failed_is_its_teardown);
	tcase_add_test(t, peer_fault_a_link_error_naming_a_peer_that_had_exited_is_that_exit);
	tcase_add_test(t, host_resolution_a_launch_wait_by_srun_label_is_from_that_tasks_node);
	tcase_add_test(t, host_resolution_unplaced_waits_are_on_the_nodes_whose_tasks_failed);
	tcase_add_test(t, host_resolution_places_a_rank_by_the_blocks_of_the_hosts_seen);
	tcase_add_test(t, peer_fault_a_launcher_reports_the_peers_exit_on_its_next_poll);
	tcase_add_test(t, mutual_link_errors_single_out_nobody_unless_one_host_is_named_by_all);
	tcase_add_test(t, mutual_link_errors_the_one_peer_two_hosts_lost);
	tcase_add_test(t, mutual_link_errors_unnamed_peers_on_two_hosts_single_out_nobody);
	suite_add_tcase(s, t);
}

// Evidence for the zone tests: one absolute stamp at t0 (UTC) and two
// local stamps (no zone) that read t0 + shift_s on their host's clock, so
// that inference would take shift_s as the zone.
static void zone_evidence(fixture &f, int shift_s)
{
	int host = f.ev.intern_host("gpu-a01");
	event &a = f.add(failure_class::unknown, event_role::context, 0, 0, 1);
	a.host = host;
	for (int i = 0; i < 2; i++) {
		event &e = f.add(failure_class::unknown, event_role::context, 0, 60.0 * (i + 1), 2 + i);
		e.host = host;
		stamp_local(e, t0 / us_per_s + 60 * (i + 1), shift_s);
	}
}

static void say_zone(fixture &f, const char *zone)
{
	event &z = f.add(failure_class::unknown, event_role::context, -1, 0, 9);
	z.kind = rule_kind::zone_name;
	z.captures.emplace_back("zone", zone);
	z.ts = ts_value{};
}

START_TEST(zone_stated_by_the_job_wins_over_the_inferred_one)
{
	fixture f;
	std::string err;
	ck_assert_msg(f.kn.load(TEST_CONFDIR, err), "%s", err.c_str());
	zone_evidence(f, 10 * 3600);
	clock_options co;
	co.zone_names = &f.kn.zones();
	{
		// Nothing stated: the offset that lines the stamps up.
		fixture g;
		zone_evidence(g, 10 * 3600);
		clock_result cr;
		resolve_times(g.ev, co, cr);
		// (within the half hour inference allows)
		ck_assert_int_le(std::abs(cr.zone_offset_s - 10 * 3600), 1800);
		ck_assert(cr.zone_inferred);
	}
	say_zone(f, "JST");
	clock_result cr;
	resolve_times(f.ev, co, cr);
	ck_assert_int_eq(cr.zone_offset_s, 9 * 3600);
	ck_assert(!cr.zone_inferred);
	ck_assert_str_eq(cr.zone_name.c_str(), "JST");
	// The local stamps are read in JST: an hour after what they would be at +10.
	ck_assert_int_eq(f.ev.events[1].raw_us, t0 + 3600LL * us_per_s + 60 * us_per_s);
}
END_TEST

// Kernel lines from hours before the job widen the span many zones fit in;
// the job's last local stamp lands on the last absolute one (both record
// the collapse) only in the true zone, not at the run's edge nearest zero.
START_TEST(zone_inferred_ends_the_jobs_stamps_with_the_absolute_ones)
{
	fixture f;
	int host = f.ev.intern_host("gpu-a01");
	const int shift_s = -5 * 3600;
	f.add(failure_class::unknown, event_role::context, -1, -2 * 3600, 1, f.kern).host = host;
	f.add(failure_class::gpu_hardware, event_role::initiating, -1, 3600, 2, f.kern).host = host;
	for (int i = 0; i <= 6; i++) {
		event &e = f.add(failure_class::unknown, event_role::context, 0, 0, 3 + static_cast<uint64_t>(i));
		e.host = host;
		stamp_local(e, t0 / us_per_s + 600 * i + (i == 6 ? 1 : 0), shift_s);
	}
	clock_options co;
	clock_result cr;
	resolve_times(f.ev, co, cr);
	ck_assert(cr.zone_inferred);
	ck_assert_int_eq(cr.zone_offset_s, shift_s);
}
END_TEST


// journalctl's "-05:00" on the node's kernel lines states the zone the
// job's local stamps are in. Here the job's stamps run on half an hour past
// the last absolute one (an Xid, then the watchdogs' 30 minute timeout),
// inside sacct's local window: the span's fit alone would shift them by that
// half hour.
START_TEST(zone_stated_by_the_nodes_logs_reads_the_jobs_local_stamps)
{
	for (bool stated : {true, false}) {
		fixture f;
		int host = f.ev.intern_host("gpu-a49");
		const int zone_s = -5 * 3600;
		auto local = [&](event &e, int64_t utc_s) { stamp_local(e, utc_s, zone_s); };
		const int64_t xid_s = t0 / us_per_s;
		f.ev.job.times_local = true; // sacct -P: the controller's local times, read as UTC
		f.ev.job.start_us = (xid_s - 3 * 3600 + zone_s) * us_per_s;
		f.ev.job.end_us = (xid_s + 1808 + zone_s) * us_per_s;
		for (int64_t before : {3 * 3600 + 1500, 3600 + 1320, 0}) {
			event &k = f.add(failure_class::unknown, event_role::context, -1, -static_cast<double>(before), 1, f.kern);
			k.host = host;
			if (stated)
				k.ts.tz_offset_s = zone_s;
		}
		local(f.add(failure_class::cuda_error, event_role::initiating, 2, 0, 16), xid_s + 1);
		for (int r = 3; r < 9; r++)
			local(f.add(failure_class::collective_hang, event_role::victim, r, 0, 40 + static_cast<uint64_t>(r)),
			      xid_s + 1801);
		clock_options co;
		clock_result cr;
		resolve_times(f.ev, co, cr);
		if (stated)
			ck_assert_int_eq(cr.zone_offset_s, zone_s);
		else
			ck_assert_int_ne(cr.zone_offset_s, zone_s); // what the fit alone gives
	}
}
END_TEST

// sacct -P's times are the controller's local ones; where they are the only
// local times and the nodes' journal states its zone, they are in it.
START_TEST(zone_stated_by_the_nodes_reads_sacct_local_times)
{
	for (bool stated : {true, false}) {
		fixture f;
		const int zone_s = 5 * 3600 + 1800;
		f.ev.job.times_local = true;
		f.ev.job.start_us = t0 - 4 * 3600 * us_per_s + zone_s * us_per_s;
		f.ev.job.end_us = t0 + 600 * us_per_s + zone_s * us_per_s;
		event &k = f.add(failure_class::host_oom, event_role::initiating, -1, 0, 9, f.kern);
		k.host = f.ev.intern_host("node028");
		if (stated)
			k.ts.tz_offset_s = zone_s;
		f.add(failure_class::unknown, event_role::victim, 3, 0, 18).ts = ts_value{}; // srun's "task 3: Killed"
		clock_options co;
		clock_result cr;
		resolve_times(f.ev, co, cr);
		ck_assert_int_eq(cr.zone_offset_s, stated ? zone_s : 0);
		if (stated)
			ck_assert_int_eq(f.ev.job.start_us, t0 - 4 * 3600 * us_per_s);
	}
}
END_TEST

// Plain dmesg: seconds since boot. An audit record states the wall time it
// was made at beside its stamp; without a btime line that anchors the rest.
START_TEST(boot_stamps_anchored_by_an_audit_records_wall_time)
{
	for (bool btime : {false, true}) {
		fixture f;
		int host = f.ev.intern_host("gpu-a58");
		auto boot = [&](event &e, int64_t boot_s) {
			e.ts = ts_value{};
			e.ts.kind = ts_kind::boot_relative;
			e.ts.boot_us = boot_s * us_per_s + 250000;
			e.host = host;
		};
		const int64_t wall_s = t0 / us_per_s;
		event &audit = f.add(failure_class::unknown, event_role::context, -1, 0, 1, f.kern);
		boot(audit, 2503852);
		audit.kind = rule_kind::boot_time;
		audit.captures = {{"wall", std::to_string(wall_s)}, {"wall_ms", "250"}};
		if (btime) {
			event &b = f.add(failure_class::unknown, event_role::context, -1, 0, 2, f.kern);
			b.kind = rule_kind::boot_time;
			b.host = host;
			b.captures = {{"when", std::to_string(wall_s - 1000000)}};
		}
		boot(f.add(failure_class::host_oom, event_role::initiating, -1, 0, 3, f.kern), 2483222);
		clock_options co;
		clock_result cr;
		resolve_times(f.ev, co, cr);
		const event &oom = f.ev.events.back();
		// btime: the node booted 1e6 s before the audit; else the audit's
		// wall time less the 20630 s between the stamps.
		int64_t want = btime ? (wall_s - 1000000 + 2483222) * us_per_s + 250000 : (wall_s - 20630) * us_per_s + 250000;
		ck_assert_int_eq(oom.raw_us, want);
	}
}
END_TEST

// syslog's local time beside the audit record's own epoch: the node's zone,
// when every record gives the same one.
START_TEST(zone_given_by_audit_records_beside_local_stamps)
{
	for (bool disagree : {false, true}) {
		fixture f;
		const int zone_s = 9 * 3600;
		auto local = [&](event &e, int64_t utc_s, int z) { stamp_local(e, utc_s, z); };
		const int64_t s0 = t0 / us_per_s;
		int n = 0;
		for (const char *h : {"gpu-a58", "gpu-a59"}) {
			event &a = f.add(failure_class::unknown, event_role::context, -1, 0, 1, f.kern);
			a.kind = rule_kind::boot_time;
			a.host = f.ev.intern_host(h);
			a.captures = {{"wall", std::to_string(s0 - 5000)}, {"wall_ms", "900"}};
			local(a, s0 - 5000, disagree && n++ ? 2 * 3600 : zone_s);
		}
		local(f.add(failure_class::host_oom, event_role::initiating, -1, 0, 7, f.kern), s0, zone_s);
		local(f.add(failure_class::unknown, event_role::victim, 1, 0, 60), s0 + 3, zone_s);
		clock_options co;
		clock_result cr;
		resolve_times(f.ev, co, cr);
		ck_assert_int_eq(cr.zone_from_audit, !disagree);
		if (!disagree)
			ck_assert_int_eq(cr.zone_offset_s, zone_s);
	}
}
END_TEST

START_TEST(zone_an_abbreviation_of_several_zones_says_nothing)
{
	fixture f;
	std::string err;
	ck_assert_msg(f.kn.load(TEST_CONFDIR, err), "%s", err.c_str());
	// CST is US Central, China and Cuba: not in zones.yaml.
	ck_assert(!f.kn.zones().count("CST"));
	ck_assert(!f.kn.zones().count("IST"));
	ck_assert_int_eq(f.kn.zones().at("CEST"), 2 * 3600);
	ck_assert_int_eq(f.kn.zones().at("EDT"), -4 * 3600);
	zone_evidence(f, 8 * 3600);
	say_zone(f, "CST");
	clock_options co;
	co.zone_names = &f.kn.zones();
	clock_result cr;
	resolve_times(f.ev, co, cr);
	ck_assert_int_le(std::abs(cr.zone_offset_s - 8 * 3600), 1800);
	ck_assert(cr.zone_inferred);
	ck_assert(cr.zone_name.empty());
}
END_TEST

START_TEST(zone_measured_by_the_plugin_wins_over_the_stated_one)
{
	fixture f;
	std::string err;
	ck_assert_msg(f.kn.load(TEST_CONFDIR, err), "%s", err.c_str());
	zone_evidence(f, 2 * 3600);
	say_zone(f, "JST");
	plugin_task pt;
	pt.task = 0;
	pt.node = f.ev.intern_host("gpu-a01");
	pt.has_utc_offset = true;
	pt.utc_offset_s = 2 * 3600;
	f.ev.plugin_tasks.push_back(pt);
	clock_options co;
	co.zone_names = &f.kn.zones();
	clock_result cr;
	resolve_times(f.ev, co, cr);
	ck_assert_int_eq(cr.zone_offset_s, 9 * 3600);
	// The node's own lines are read in the zone its records give.
	ck_assert_int_eq(f.ev.events[1].raw_us, t0 + 60 * us_per_s);
	// A configured zone is not second-guessed by either.
	fixture g;
	zone_evidence(g, 2 * 3600);
	say_zone(g, "JST");
	co.tz_given = true;
	co.default_tz_offset_s = 3600;
	clock_result cg;
	resolve_times(g.ev, co, cg);
	ck_assert_int_eq(cg.zone_offset_s, 3600);
	ck_assert(cg.zone_name.empty());
}
END_TEST

START_TEST(zone_table_refuses_a_bad_offset_and_a_name_twice)
{
	char tmpl[] = "/tmp/denpex-zones-XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	close(fd);
	auto load = [&](const char *text, std::string &err) {
		FILE *fp = fopen(tmpl, "w");
		fputs(text, fp);
		fclose(fp);
		knowledge kn;
		return kn.load_zones(tmpl, err);
	};
	std::string err;
	ck_assert(load("zones:\n  - {name: JST, offset: \"+09:00\"}\n  - {name: NST, offset: \"-03:30\"}\n", err));
	ck_assert(!load("zones:\n  - {name: JST, offset: \"+9\"}\n", err));
	ck_assert_msg(err.find("offset") != std::string::npos, "%s", err.c_str());
	ck_assert(!load("zones:\n  - {name: JST, offset: \"+09:07\"}\n", err));
	ck_assert(!load("zones:\n  - {name: jst, offset: \"+09:00\"}\n", err));
	ck_assert(!load("zones:\n  - {name: JST, offset: \"+09:00\"}\n  - {name: JST, offset: \"+09:00\"}\n", err));
	ck_assert_msg(err.find("twice") != std::string::npos, "%s", err.c_str());
	ck_assert(!load("zone: []\n", err));
	unlink(tmpl);
}
END_TEST

// n stall reports of the coordinator (rank 0), a minute apart, each with
// capture = value.
static void stall_reports(fixture &f, int n, const char *capture, const char *value)
{
	for (int i = 0; i < n; i++) {
		event &e = f.add(failure_class::collective_hang, event_role::victim, 0, 60.0 * i, 10 + static_cast<uint64_t>(i));
		e.captures = {{capture, value}};
	}
}

// Horovod's stall inspector, written by the coordinator (rank 0): the
// ranks it names missing are the hang's suspects.
START_TEST(stall_report_names_the_missing_rank)
{
	fixture f;
	stall_reports(f, 3, "missing_rank", "5");
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_stall_report(cx);
	ck_assert_uint_eq(cx.hv.suspects.size(), 1);
	ck_assert_int_eq(cx.hv.suspects[0], 5);
	ck_assert(cx.hv.why.find("stall") != std::string::npos);
	pass_decide(cx);
	ck_assert(cx.d.cls == failure_class::collective_hang);
	ck_assert_int_eq(cx.d.first_rank, 5);
}
END_TEST

// A stall the job got past (its file's progress went on ten minutes and
// more after the report: a rank evaluating alone) names nobody; progress a
// minute after it (the missing rank finishing its own work) is no sign.
START_TEST(stall_report_a_stall_the_job_got_past_names_nobody)
{
	for (int later_min : {1, 20}) {
		fixture f;
		stall_reports(f, 1, "missing_rank", "0");
		uint64_t key = writer_key(f.log, 7);
		f.ev.last_progress[key] = 40;
		f.ev.last_progress_us[key] = file_local_us(f.ev.events[0].ts) + later_min * 60LL * 1000000;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		pass_stall_report(cx);
		ck_assert_uint_eq(cx.hv.suspects.size(), later_min == 1 ? 1 : 0);
	}
}
END_TEST

// Before Horovod 0.15 the report lists the ranks that did submit: the rest
// of a known world (an MPI launch's -np) is missing; with no world known,
// nobody is named.
START_TEST(stall_report_the_rest_of_the_world_beside_the_ready_ranks)
{
	for (int world = 0; world <= 7; world += 7) {
		fixture f;
		if (world)
			f.ev.ranks.note_world_size(world);
		stall_reports(f, 2, "ready_ranks", "5, 6, 3, 1, 4, 0");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_hang_structure(cx);
		pass_stall_report(cx);
		if (world) {
			ck_assert_uint_eq(cx.hv.suspects.size(), 1);
			ck_assert_int_eq(cx.hv.suspects[0], 2);
		} else {
			ck_assert(cx.hv.suspects.empty());
		}
	}
}
END_TEST

START_TEST(stall_report_lists_several_missing_ranks_and_reads_a_label)
{
	fixture f;
	event &a = f.add(failure_class::collective_hang, event_role::victim, 0, 0, 10);
	a.captures = {{"missing_rank", "0, 6"}};
	// "6: [allreduce.x ...]": the line's label is the rank.
	event &b = f.add(failure_class::collective_hang, event_role::victim, -1, 0, 11);
	b.task = 3;
	b.captures = {{"stall_list", ""}};
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_stall_report(cx);
	ck_assert_uint_eq(cx.hv.suspects.size(), 3);
	ck_assert_int_eq(cx.hv.suspects[0], 0);
	ck_assert_int_eq(cx.hv.suspects[1], 3);
	ck_assert_int_eq(cx.hv.suspects[2], 6);
	// A dropped report (from before the job) names nobody.
	fixture g;
	event &c = g.add(failure_class::collective_hang, event_role::victim, 0, 0, 10);
	c.captures = {{"missing_rank", "2"}};
	c.dropped = true;
	diagnosis_context cg(g.ev, g.kn, g.clk, g.fr);
	pass_stall_report(cg);
	ck_assert(cg.hv.suspects.empty());
}
END_TEST

// JAX's start-up barrier (the coordination service waiting for every
// process to register): every registered process reports the timeout,
// and the report lists who never came. One process named is the first,
// on its own node, and the reports alike are its victims, not the
// environment's; two or more named (nodes never started) single out nobody.
START_TEST(stall_report_a_start_up_barrier_names_the_one_process_never_registered)
{
	for (const char *named : {"5", "5, 6"}) {
		fixture f;
		rule start_up;
		start_up.id = "test.start_up_barrier";
		start_up.family = "xla";
		for (int r = 0; r < 8; r++)
			place(f, r, ("gpu-j0" + std::to_string(r + 1)).c_str());
		for (int r = 0; r < 4; r++) {
			event &e = f.add(failure_class::launch_failure, event_role::initiating, r, 0.1 * r, 10 + 5 * r);
			e.r = &start_up;
			event &m = f.add(failure_class::collective_hang, event_role::victim, r, 0.1 * r, 12 + 5 * r);
			m.r = &start_up;
			m.captures = {{"missing_rank", named}};
		}
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_fault_choice(cx);
		pass_common_mode(cx);
		ck_assert_int_gt(cx.d.common_mode, 0);
		pass_hang_structure(cx);
		pass_stall_report(cx);
		pass_decide(cx);
		pass_launch_phase(cx);
		ck_assert(cx.d.cls == failure_class::launch_failure);
		if (std::string(named) == "5") {
			ck_assert_int_eq(cx.d.first_rank, 5);
			DIAG_CK_STR_EQ(f.ev.host_name(cx.d.first_host), "gpu-j06");
			ck_assert_int_eq(cx.d.common_mode, 0);
		} else {
			ck_assert_int_lt(cx.d.first_rank, 0);
		}
	}
}
END_TEST

START_TEST(stall_report_leaves_a_suspect_the_structure_found)
{
	fixture f;
	for (int r = 0; r < 8; r++)
		watchdog(f, r, 511, r == 3 ? "BROADCAST" : "ALLREDUCE", r == 3 ? "112" : "33554432");
	event &e = f.add(failure_class::collective_hang, event_role::victim, 0, 0, 10);
	e.captures = {{"missing_rank", "6"}};
	diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
	pass_hang_structure(cx);
	pass_stall_report(cx);
	ck_assert_uint_eq(cx.hv.suspects.size(), 1);
	ck_assert_int_eq(cx.hv.suspects[0], 3);
}
END_TEST

// Rank 3 logs a fault and never a progress line of its own (only rank 0
// logs progress): rank 0 stepping on for ten minutes says rank 3 was still
// in step, unless the collapse had begun by then or the fault's time was
// only inherited from an earlier line.
START_TEST(relevance_the_other_ranks_stepping_on_survive_a_rank_without_progress_lines)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		event &oom = f.add(failure_class::cuda_oom, event_role::initiating, 3, 0, 10);
		oom.writer_known = true;
		oom.key = 4;
		oom.inherited_time = variant == 2;
		f.ev.last_progress[writer_key(f.log, 1)] = 400;
		f.ev.last_progress_us[writer_key(f.log, 1)] = t0 + 600 * us_per_s;
		if (variant == 1)
			f.add(failure_class::collective_hang, event_role::victim, 0, 300, 300);
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		pass_relevance(cx);
		ck_assert_msg(f.ev.events[0].decoy == (variant == 0), "variant %d", variant);
	}
	// Seconds of progress after it are no sign yet.
	fixture g;
	event &e = g.add(failure_class::cuda_oom, event_role::initiating, 3, 0, 10);
	e.writer_known = true;
	e.key = 4;
	g.ev.last_progress[writer_key(g.log, 1)] = 400;
	g.ev.last_progress_us[writer_key(g.log, 1)] = t0 + 20 * us_per_s;
	diagnosis_context cg(g.ev, g.kn, g.clk, g.fr);
	pass_relevance(cg);
	ck_assert(!g.ev.events[0].decoy);
}
END_TEST

// The loss scale falls on every rank at once: a rank borrowed from how the
// processes ended is dropped; a NaN line of a rank's own, or another
// cause, keeps its rank.
START_TEST(nan_origin_an_overflow_names_no_borrowed_rank)
{
	for (int variant = 0; variant < 3; variant++) {
		fixture f;
		event &scale = f.add(failure_class::nan_inf, event_role::context, variant == 2 ? -1 : 0, 0, 10);
		if (variant != 2)
			scale.captures = {{"loss_scale", "1"}};
		event &nan = f.add(failure_class::nan_inf, event_role::initiating, variant == 1 ? 3 : -1, 5, 20);
		nan.host = f.ev.intern_host("gpu-d01");
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		cx.d.cls = failure_class::nan_inf;
		cx.d.first = &f.ev.events[1];
		cx.d.borrowed_rank = 7;
		cx.d.first_rank = variant == 1 ? 3 : 7;
		cx.d.first_host = nan.host;
		pass_nan_origin(cx);
		if (variant == 0) {
			ck_assert_str_eq(cx.d.nan_cause.c_str(), "overflow");
			ck_assert_int_eq(cx.d.first_rank, -1);
			ck_assert_int_eq(cx.d.first_host, -1);
		} else {
			ck_assert_int_eq(cx.d.first_rank, variant == 1 ? 3 : 7);
		}
	}
}
END_TEST

// Steps until minute 10, then the log goes on without a step or an error
// until it ends: a job that ended 40 minutes after its last step hung; 10
// minutes after is a job still within a step's or a timeout's time; a log
// whose last stamp is its last progress line ended where it stepped; a
// cause found, or a rank that went first, stays.
START_TEST(stalled_before_end_a_long_silence_before_the_end_is_a_hang)
{
	for (int variant = 0; variant < 5; variant++) {
		fixture f;
		f.ev.last_progress[writer_key(f.log, 1)] = 400;
		f.ev.last_progress_us[writer_key(f.log, 1)] = t0 + 600 * us_per_s;
		source_file &sf = f.ev.source(f.log);
		sf.last_stamp.kind = ts_kind::absolute;
		sf.last_stamp.epoch_us = t0 + (variant == 1 ? 20 : 50) * 60 * us_per_s;
		sf.last_stamp_line = variant == 2 ? 400 : 420;
		diagnosis_context cx(f.ev, f.kn, f.clk, f.fr);
		if (variant == 3)
			cx.d.cls = failure_class::python_exception;
		if (variant == 4)
			cx.d.first_rank = 3;
		pass_stalled_before_end(cx);
		if (variant == 0) {
			ck_assert_int_eq(int(cx.d.cls), int(failure_class::collective_hang));
			ck_assert_int_eq(cx.d.first_rank, -1);
			ck_assert_msg(cx.d.hang_why.find("40 minutes") != std::string::npos, "%s", cx.d.hang_why.c_str());
		} else {
			ck_assert_msg(cx.d.cls != failure_class::collective_hang, "variant %d", variant);
		}
	}
}
END_TEST

static void add_survival_tests(Suite *s)
{
	TCase *t = tcase_create("survival");
	tcase_add_test(t, relevance_the_other_ranks_stepping_on_survive_a_rank_without_progress_lines);
	tcase_add_test(t, nan_origin_an_overflow_names_no_borrowed_rank);
	tcase_add_test(t, stalled_before_end_a_long_silence_before_the_end_is_a_hang);
	suite_add_tcase(s, t);
}

static void add_stall_tests(Suite *s)
{
	TCase *t = tcase_create("stall");
	tcase_add_test(t, stall_report_names_the_missing_rank);
	tcase_add_test(t, stall_report_a_stall_the_job_got_past_names_nobody);
	tcase_add_test(t, stall_report_the_rest_of_the_world_beside_the_ready_ranks);
	tcase_add_test(t, stall_report_lists_several_missing_ranks_and_reads_a_label);
	tcase_add_test(t, stall_report_a_start_up_barrier_names_the_one_process_never_registered);
	tcase_add_test(t, stall_report_leaves_a_suspect_the_structure_found);
	suite_add_tcase(s, t);
}

static void add_zone_tests(Suite *s)
{
	TCase *t = tcase_create("zone");
	tcase_add_test(t, zone_stated_by_the_job_wins_over_the_inferred_one);
	tcase_add_test(t, zone_inferred_ends_the_jobs_stamps_with_the_absolute_ones);
	tcase_add_test(t, zone_stated_by_the_nodes_logs_reads_the_jobs_local_stamps);
	tcase_add_test(t, zone_stated_by_the_nodes_reads_sacct_local_times);
	tcase_add_test(t, boot_stamps_anchored_by_an_audit_records_wall_time);
	tcase_add_test(t, zone_given_by_audit_records_beside_local_stamps);
	tcase_add_test(t, zone_an_abbreviation_of_several_zones_says_nothing);
	tcase_add_test(t, zone_measured_by_the_plugin_wins_over_the_stated_one);
	tcase_add_test(t, zone_table_refuses_a_bad_offset_and_a_name_twice);
	suite_add_tcase(s, t);
}

static Suite *suite()
{
	Suite *s = suite_create("passes");
	TCase *t = tcase_create("passes");
	tcase_add_test(t, relevance_drops_kernel_lines_from_before_the_job);
	tcase_add_test(t, relevance_a_timed_out_collective_was_alive_its_timeout_earlier);
	tcase_add_test(t, relevance_drops_what_names_another_job);
	tcase_add_test(t, relevance_drops_an_xid_of_another_process);
	tcase_add_test(t, relevance_keeps_a_kernel_fault_after_the_last_stamp_without_slurms_end);
	tcase_add_test(t, relevance_keeps_an_xid_of_a_pid_the_jobs_lines_name);
	tcase_add_test(t, relevance_marks_what_the_rank_survived);
	tcase_add_test(t, relevance_reads_what_the_line_says);
	tcase_add_test(t, relevance_a_lost_node_is_not_dealt_with_by_words);
	tcase_add_test(t, relevance_shared_writer_needs_minutes_of_progress_before_the_collapse);
	tcase_add_test(t, relevance_an_inherited_time_is_bounded_by_the_next_stamp);
	tcase_add_test(t, slurm_last_word_is_a_candidate_only_for_its_states);
	tcase_add_test(t, slurm_last_word_loses_to_an_earlier_relevant_fault);
	tcase_add_test(t, slurm_last_word_a_signal_at_the_time_limit_is_the_limit);
	tcase_add_test(t, slurm_last_word_an_interrupt_before_any_trouble_is_the_users_stop);
	tcase_add_test(t, slurm_last_word_a_sigterm_in_a_job_slurm_calls_completed_is_someones_stop);
	tcase_add_test(t, slurm_last_word_remote_shells_closed_after_a_stop_are_its_teardown);
	tcase_add_test(t, slurm_last_word_an_unexplained_death_before_any_trouble_is_its_likely_cause);
	tcase_add_test(t, fault_choice_takes_the_stronger_fault_on_the_same_host);
	tcase_add_test(t, fault_choice_a_node_lost_after_its_reclaim_is_the_reclaim);
	tcase_add_test(t, reclaimed_node_a_lost_spot_vm_is_a_preemption);
	tcase_add_test(t, fault_choice_borrows_the_rank_of_the_same_fault_in_other_words);
	tcase_add_test(t, common_mode_needs_three_ranks_at_once);
	tcase_add_test(t, common_mode_network_on_three_nodes_unless_one_node_is_in_every_report);
	tcase_add_test(t, hang_structure_finds_the_desynced_rank);
	tcase_add_test(t, hang_structure_a_lone_waiting_rank_of_three_or_more_differs);
	tcase_add_test(t, hang_structure_a_rank_ahead_is_no_desync_the_odd_size_is);
	tcase_add_test(t, hang_structure_the_rank_in_every_mismatch_pair);
	tcase_add_test(t, hang_structure_singles_out_nobody_when_all_agree);
	tcase_add_test(t, hang_structure_one_rank_of_two_behind_in_enqueued_work_stopped);
	tcase_add_test(t, hang_structure_a_rank_that_enqueued_the_collective_reached_it);
	tcase_add_test(t, hang_structure_compares_work_within_one_process_group);
	tcase_add_test(t, hang_structure_keeps_every_flight_recorder_suspect);
	tcase_add_test(t, decide_victims_that_all_name_one_node_closing_blame_it);
	tcase_add_test(t, decide_a_kill_after_the_timeouts_is_the_hang_culprit);
	tcase_add_test(t, decide_a_kill_of_a_rank_that_timed_out_is_teardown);
	tcase_add_test(t, decide_a_lone_kill_before_anything_else_names_its_rank_not_a_cause);
	tcase_add_test(t, decide_a_launcher_reported_kill_with_no_stop_announced_is_the_oom_killer);
	tcase_add_test(t, launch_phase_turns_an_early_transport_error_into_a_launch_failure);
	tcase_add_test(t, launch_phase_a_cuda_failure_nccl_relays_before_anything_ran_is_a_launch_failure);
	tcase_add_test(t, launch_phase_a_python_exception_inside_the_set_up_is_a_launch_failure);
	tcase_add_test(t, launch_phase_the_same_failure_long_after_is_no_common_mode);
	tcase_add_test(t, nan_origin_is_the_rank_that_is_different);
	tcase_add_test(t, nan_origin_a_local_sign_beside_rank_0s_reduced_loss);
	tcase_add_test(t, host_resolution_maps_a_bus_on_a_line_of_no_host_to_its_rank);
	tcase_add_test(t, host_resolution_uses_the_rank_map_then_the_rank_own_lines);
	tcase_add_test(t, host_resolution_takes_the_node_the_same_fault_names_elsewhere);
	tcase_add_test(t, host_resolution_names_a_node_by_the_pod_the_job_knows);
	tcase_add_test(t, host_resolution_the_one_machine_the_lines_name);
	tcase_add_test(t, host_resolution_a_numbered_file_is_one_tasks_output);
	tcase_add_test(t, confidence_drops_when_another_rank_ties);
	tcase_add_test(t, identities_ranks_in_one_agents_stream_run_on_its_node);
	tcase_add_test(t, launch_phase_a_fault_in_nccls_init_code_is_a_launch_failure_after_progress);
	tcase_add_test(t, launch_phase_a_fault_on_nccls_init_trail_is_a_launch_failure);
	tcase_add_test(t, launch_phase_relayed_nccl_errors_through_init_code_are_a_launch_failure);
	tcase_add_test(t, identities_spawn_process_index_is_a_local_rank_on_its_tasks_node);
	tcase_add_test(t, launch_phase_a_launch_failure_on_two_ranks_singles_out_nobody);
	tcase_add_test(t, launch_phase_the_same_unranked_fault_on_two_nodes_singles_out_nobody);
	tcase_add_test(t, fault_choice_takes_the_node_lost_not_the_survivor_that_reported_it);
	tcase_add_test(t, host_resolution_names_the_one_node_that_did_not_report_a_node_failure);
	tcase_add_test(t, host_resolution_names_the_store_no_client_could_reach);
	tcase_add_test(t, launch_phase_a_failure_beside_an_unreachable_store_is_rank_0s);
	tcase_add_test(t, host_resolution_waits_on_a_key_name_the_stated_store);
	tcase_add_test(t, host_resolution_a_stepd_error_is_the_node_srun_names_next);
	tcase_add_test(t, identities_an_agents_global_ranks_run_on_its_node);
	tcase_add_test(t, host_resolution_places_a_rank_by_its_nodes_block);
	tcase_add_test(t, host_resolution_places_a_rank_by_the_launch_lines_host_slots);
	tcase_add_test(t, host_resolution_a_rank_runs_where_the_prompt_above_its_fault_says);
	tcase_add_test(t, fault_choice_a_node_report_gives_way_to_the_same_fault_naming_a_rank);
	tcase_add_test(t, decide_a_nodes_oom_report_keeps_the_rank_sigkilled);
	tcase_add_test(t, identities_a_torchrun_worker_is_its_agents_block_rank_on_the_agents_node);
	tcase_add_test(t, identities_a_launcher_rank_layout_gives_host_and_local_rank);
	tcase_add_test(t, identities_a_launcher_slot_table_numbers_ranks_through_the_hosts);
	tcase_add_test(t, identities_srun_task_ranges_are_hosts_of_those_ranks);
	tcase_add_test(t, identities_an_nccl_lines_device_is_its_local_rank_under_a_launchers_slot_table);
	tcase_add_test(t, host_resolution_names_a_node_not_its_address);
	tcase_add_test(t, host_resolution_names_the_machine_not_the_container);
	tcase_add_test(t, host_resolution_a_one_node_launch_places_every_rank_on_its_machine);
	tcase_add_test(t, identities_one_agent_on_one_node_runs_ranks_equal_to_local_ranks);
	tcase_add_test(t, identities_a_spawned_workers_pid_names_its_rank_in_the_kernels_line);
	tcase_add_test(t, exits_a_negative_exit_code_takes_its_signals_class);
	tcase_add_test(t, exits_a_sigkill_after_a_nearly_full_host_memory_reading_is_host_oom);
	tcase_add_test(t, evidence_keeps_a_writers_newest_reading);
	tcase_add_test(t, evidence_keeps_each_machine_and_missing_rank_named);
	tcase_add_test(t, fault_choice_a_hosts_rankless_fault_takes_the_rank_that_crashed_there);
	tcase_add_test(t, fault_choice_a_gpu_fault_takes_the_rank_whose_cuda_failed_with_it);
	tcase_add_test(t, fault_choice_borrows_no_rank_from_the_head_of_a_burst_of_exits);
	tcase_add_test(t, common_mode_counts_processes_whose_traceback_names_no_rank);
	tcase_add_test(t, common_mode_counts_tracebacks_under_one_label);
	tcase_add_test(t, common_mode_counts_a_ranks_restarts_once);
	tcase_add_test(t, common_mode_does_not_count_relayed_tracebacks);
	tcase_add_test(t, common_mode_every_rank_of_a_small_job_at_launch);
	tcase_add_test(t, launch_phase_two_ranks_failing_alike_single_out_nobody);
	tcase_add_test(t, fault_choice_an_untimed_kernel_line_explains_only_its_own_nodes_fault);
	tcase_add_test(t, hang_structure_an_abort_after_its_own_fault_is_not_waiting);
	tcase_add_test(t, decide_the_rank_missing_from_a_hang_that_had_exited_first_died);
	tcase_add_test(t, host_resolution_names_the_node_that_never_joined_a_launch);
	tcase_add_test(t, host_resolution_a_wait_shared_by_nodes_names_the_node_that_never_joined);
	suite_add_tcase(s, t);
	add_hang_tests(s);
	add_zone_tests(s);
	add_stall_tests(s);
	add_survival_tests(s);
	return s;
}

int main() { return diag_ck_run(suite()); }
