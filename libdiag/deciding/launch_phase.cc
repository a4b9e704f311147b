// A fault while the job was still starting is a launch failure whatever it
// says. Nothing had run yet: no rank reported progress and no collective
// beyond the first completed. PyTorch creates NCCL communicators at the
// first collective, so an NCCL transport error then is an NCCL init failure;
// a CUDA error counts only when NCCL says it failed in its init code, NCCL
// relays it as its own last error, or the rank never completed NCCL init
// while others did (an out-of-memory in the first forward pass is not a
// launch failure).
#include "deciding/context.hh"
#include "deciding/diagnose.hh"

#include <cstdlib>
#include <set>
#include <string>

namespace diag {

namespace {

// The CUDA failure an NCCL error relays as its last error (the lines right
// after "NCCL error ..., unhandled system error"): NCCL's own CUDA call.
// Before any collective completed, NCCL was making the communicator.
bool relayed_by_nccl(const evidence &ev, const event &e)
{
	for (const auto &x : ev.events)
		if (x.file == e.file && x.line < e.line && e.line - x.line <= 4 && x.rank == e.rank &&
		    x.kind == rule_kind::exception && x.r && x.r->family == "nccl" && !x.dropped)
			return true;
	return false;
}

// NCCL's return trail follows its WARN within a few lines of the same writer.
constexpr uint64_t trail_lines = 12;

// Whether the fault's own writer passed an NCCL error back up through NCCL's
// set-up code right after it (an init_trail rule, nccl.yaml): the fault
// happened while the communicator was being made, whatever code its own line
// names (a shared-memory segment, a socket).
bool on_init_trail(const evidence &ev, const event &e)
{
	if (e.pid < 0)
		return false;
	for (const auto &x : ev.events)
		if (x.kind == rule_kind::init_trail && x.file == e.file && x.line > e.line &&
		    x.line <= e.line + trail_lines && x.pid == e.pid && x.host == e.host)
			return true;
	return false;
}

// Nothing had run yet: no rank reported progress and no collective beyond
// the first completed.
bool nothing_ran(const evidence &ev)
{
	if (!ev.last_progress.empty())
		return false;
	for (const auto &x : ev.events)
		if (x.last_completed > 1 || x.seq > 2)
			return false;
	return true;
}

bool during_startup(const evidence &ev, const event &e)
{
	// NCCL saying it failed in its init code (a startup rule, nccl.yaml) is
	// an init failure whatever ran before (a progress bar of checkpoint
	// loading, a new communicator); but GPU memory running out there after
	// training ran is the training's memory, a new communicator its last
	// straw.
	bool startup = e.at_startup || on_init_trail(ev, e);
	if (e.cls != failure_class::network && e.cls != failure_class::cuda_oom && startup)
		return true;
	if (!nothing_ran(ev))
		return false;
	// A work completion with an error status (InfiniBand/RoCE "vendor err
	// 129"), or a queue pair failing, means the link carried traffic: a
	// data-path fault, not init.
	if (e.cls == failure_class::network)
		return e.capture("status").empty() && e.capture("qp_event").empty();
	if (startup || relayed_by_nccl(ev, e))
		return true;
	if (e.rank < 0)
		return false;
	bool others = false;
	for (const auto &x : ev.events)
		if (x.kind == rule_kind::rank_map && x.rank >= 0) {
			if (x.rank == e.rank)
				return false;
			others = true;
		}
	return others;
}

// The workers torchrun's failure summary lists as having exited with an
// error of their own (a positive exit code: not a signal from the agent).
std::set<int> ranks_failed_on_their_own(const evidence &ev)
{
	std::set<int> out;
	for (const auto &b : ev.events) {
		if (!b.r || b.capture("rank").empty() || b.capture("local_rank").empty() || b.kind != rule_kind::plain ||
		    b.role != event_role::context)
			continue;
		for (const auto &x : ev.events)
			if (x.file == b.file && x.line > b.line && x.line <= b.line + 2 && !x.capture("exitcode").empty() &&
			    x.capture("pid").size() && x.kind == rule_kind::plain) {
				if (std::atoi(x.capture("exitcode").c_str()) > 0)
					out.insert(std::atoi(b.capture("rank").c_str()));
				break;
			}
	}
	return out;
}

// Whether the first fault, or the same fault logged on another line (NCCL's
// WARN behind a rank's "Last error:"), is on NCCL's init trail.
bool fault_on_init_trail(const diagnosis_context &cx, const event &first)
{
	if (first.at_startup || on_init_trail(cx.ev, first))
		return true;
	for (const auto &c : cx.cands)
		if ((c.e->r ? c.e->r == first.r : c.e->rule_id == first.rule_id) && on_init_trail(cx.ev, *c.e))
			return true;
	return false;
}

// A client that timed out connecting to the rendezvous store names the host
// where its server never listened. The server is global rank 0's (env:// and
// torchrun's workers start it in rank 0's process): a launch failure that
// names no rank, with the other ranks such clients of one host and rank 0
// never one of them, is rank 0's (a rank that failed beside a live server
// leaves the others waiting on keys, not unable to connect).
void store_server_rank(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::launch_failure || d.first_rank >= 0 || d.common_mode > 0 || !d.first ||
	    d.first->rank >= 0 || !d.first->capture("store_host").empty())
		return;
	// A node's launcher (torchrun's agent) serves its own store: a failure
	// on its stream, or a traceback through its code, is the agent's.
	if (d.first->task >= 0 && !cx.ev.tasks_are_ranks)
		return;
	std::string store;
	int clients = 0;
	for (const auto &e : cx.ev.events) {
		if (!e.capture("launcher_frame").empty())
			return;
		std::string h = e.capture("store_host");
		if (e.dropped || h.empty())
			continue;
		if (e.rank == 0 || (!store.empty() && h != store))
			return;
		store = h;
		clients++;
	}
	bool named = store.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string::npos &&
		     store.rfind("localhost", 0) != 0 && store.find(':') == std::string::npos;
	if (clients == 0 || !named)
		return;
	int host = cx.ev.intern_host(store);
	if (d.first->host >= 0 && d.first->host != host)
		return;
	d.first_rank = 0;
	d.borrowed_rank = 0;
	d.first_host = host;
	d.rank_singled_out = true;
	d.notes.push_back("the other ranks could not reach the rendezvous/store server on " + store +
			  ", which rank 0 starts; the failure that names no rank is rank 0's");
}

// A process told to stop (a launcher's exception naming the signal) whose
// traceback ran through the job's set-up: it was still starting when the
// stop came (its agent waiting in the rendezvous).
const event *stopped_while_starting(const evidence &ev)
{
	for (const auto &x : ev.events)
		if (!x.dropped && x.kind == rule_kind::exception && x.at_startup && !x.capture("signal").empty())
			return &x;
	return nullptr;
}

// A rank two processes announced as they joined their group (a line each
// prints once, the `member` capture): the launch gave two of them one rank.
const event *rank_taken_twice(const evidence &ev)
{
	std::set<std::pair<int, std::string>> seen;
	for (const auto &x : ev.events)
		if (x.kind == rule_kind::rank_map && x.rank >= 0 && !x.capture("member").empty() &&
		    !seen.insert({x.rank, x.capture("member") + "/" + x.capture("nranks")}).second)
			return &x;
	return nullptr;
}

} // namespace

void pass_launch_phase(diagnosis_context &cx)
{
	decision &d = cx.d;
	// An exception a launch rule knows (a refused configuration, a missing
	// module) raised after training had stepped is no start-up failure.
	if (d.cls == failure_class::launch_failure && d.first && d.first->kind == rule_kind::exception &&
	    !d.first->at_startup && stepped_before(cx.ev, d.first->file, d.first->line)) {
		d.cls = failure_class::python_exception;
		d.notes.push_back("the exception came after the training had made progress: not a start-up failure");
		return;
	}
	store_server_rank(cx);
	// The time ran out while the processes were still starting and nothing
	// had run: the job hung in its start-up (a rendezvous that never
	// completed), which no longer time would have ended.
	if (d.cls == failure_class::time_limit && nothing_ran(cx.ev)) {
		if (const event *x = stopped_while_starting(cx.ev)) {
			d.cls = failure_class::launch_failure;
			d.notes.push_back("the time limit's signal found a process still in the job's set-up (" + cx.ev.where(*x) +
					  ") and nothing had run: the job never got past its start-up");
			return;
		}
		// (Two processes joining as one rank wait for a peer that never
		// comes: the group cannot form.)
		if (const event *x = rank_taken_twice(cx.ev)) {
			d.cls = failure_class::launch_failure;
			d.notes.push_back("two processes joined as rank " + std::to_string(x->rank) + " (" + cx.ev.where(*x) +
					  ") and nothing ran until the time ran out: the launch gave them the wrong ranks");
			return;
		}
	}
	// A process that could not use its GPU (or met a CUDA error) as the job
	// started, on a node whose driver had said a GPU there needs a reset or
	// a reboot, and none came: the GPU's standing fault, not the set-up.
	if ((d.cls == failure_class::launch_failure || d.cls == failure_class::cuda_error) && d.first &&
	    d.first->host >= 0 && nothing_ran(cx.ev))
		for (const auto &x : cx.ev.events)
			if (!x.dropped && x.host == d.first->host && standing_recovery_action(cx.ev, x) &&
			    (d.first->time_us == no_time || x.time_us < d.first->time_us)) {
				d.cls = failure_class::gpu_hardware;
				d.notes.push_back("the driver had said a GPU on " + cx.ev.host_name(x.host) +
						  " needs recovery (" + cx.ev.where(x) + ") and none came: the GPU's fault");
				return;
			}
	// NCCL errors that only relay a failure (ncclInternalError), with no
	// initiating fault, passed back through NCCL's set-up code (its init
	// trail, or a traceback through ncclCommInitRank) before anything ran:
	// the communicator could not be made.
	if (!d.first && d.cls == failure_class::network && nothing_ran(cx.ev)) {
		for (const auto &x : cx.ev.events)
			if (x.kind == rule_kind::init_trail || (x.at_startup && x.role == event_role::victim && !x.dropped)) {
				d.cls = failure_class::launch_failure;
				return;
			}
		return;
	}
	// A host's own adapter failing (a port error the HCA reports: a rule of
	// node scope), or a rank's own port going down (an NPU's), is the
	// network's whenever it comes: the link, not the set-up, is what to
	// look at.
	const bool host_link = d.cls == failure_class::network && d.first && d.first->r &&
			       (d.first->r->scope == rule::fault_scope::node || d.first->has_capture("link_down"));
	// A file or a Python exception counts only where it failed inside the
	// set-up itself (its traceback runs through it): a missing file or a bad
	// argument found before any progress is as often the training's own.
	const bool set_up_only = d.cls == failure_class::filesystem || d.cls == failure_class::python_exception;
	if ((d.cls == failure_class::network || d.cls == failure_class::cuda_oom || d.cls == failure_class::cuda_error ||
	     set_up_only) &&
	    !host_link &&
	    d.first && (set_up_only ? fault_on_init_trail(cx, *d.first) : during_startup(cx.ev, *d.first)))
		d.cls = failure_class::launch_failure;
	else if (!(d.cls == failure_class::launch_failure && d.first && nothing_ran(cx.ev)))
		return;
	// At startup one rank's own failure leaves the others failing otherwise
	// (waiting for it, losing it). Two or more ranks failing alike (each
	// unable to reach the same bootstrap address) is the environment's.
	// (Nor where the others' reports named the one they waited for.)
	if (d.first_rank < 0 || d.common_mode > 0 || !d.hang_why.empty())
		return;
	std::set<int> ranks, hosts, unranked_hosts;
	std::set<uint64_t> unranked_lines;
	// (Alike and at once: the same failure half an hour later, after a
	// wait for the first, is the first's victim.)
	auto long_after = [&](const event &x) {
		constexpr int64_t at_once_us = 60 * us_per_s;
		const event &f = *d.first;
		if (f.raw_us == no_time || x.file != f.file)
			return false;
		int64_t t = x.raw_us != no_time ? x.raw_us : x.not_before_raw_us;
		return t != no_time && t > f.raw_us + at_once_us;
	};
	for (const auto &c : cx.cands)
		if ((c.e->r ? c.e->r == d.first->r : c.e->rule_id == d.first->rule_id) && !long_after(*c.e)) {
			if (c.e->rank >= 0) {
				ranks.insert(c.e->rank);
				// (A line under a rank's tag that names no host: where
				// that rank ran.)
				hosts.insert(c.e->host >= 0 ? c.e->host : rank_host(cx.ev, c.e->rank));
			} else {
				unranked_lines.insert((static_cast<uint64_t>(c.e->file) << 40) | c.e->line);
				if (c.e->host >= 0)
					unranked_hosts.insert(c.e->host);
			}
		}
	size_t failing = ranks.size(); // processes that failed alike
	// Lines that name no rank but each a node of its own (pdsh's or a
	// launcher's host prefix) are at least one process on each: the same
	// fault on two nodes is no one rank's, whichever rank's exit was
	// borrowed for it.
	if (ranks.empty() && unranked_hosts.size() >= 2) {
		failing = unranked_hosts.size();
		hosts = unranked_hosts;
	}
	// Lines that name no rank count as ranks where the launcher saw as many
	// workers fail on their own.
	if (failing == 0 && unranked_lines.size() >= 2) {
		std::set<int> failed = ranks_failed_on_their_own(cx.ev);
		if (failed.size() >= 2) {
			failing = failed.size();
			hosts.insert(d.first_host);
		}
	}
	if (failing >= 2) {
		d.common_mode = static_cast<int>(failing);
		d.common_host = hosts.size() == 1 ? *hosts.begin() : -1;
		d.first_rank = -1;
		d.first_host = d.common_host;
		d.borrowed_rank = -1;
	}
}

} // namespace diag
