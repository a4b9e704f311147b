// What the diagnosis passes share: the inputs, the candidates for the first
// fault, the structure found, and the decision taking shape. Each pass reads
// what earlier passes wrote and adds its own part; diagnose.cc runs them in
// order.
#pragma once

#include "aligning/clock.hh"
#include "deciding/decision.hh"
#include "deciding/knowledge.hh"
#include "model/evidence.hh"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace diag {

struct hang_structure;

// What the watchdogs' reports say about who stopped.
struct hang_view {
	std::vector<int> suspects;
	std::vector<std::string> suspect_why; // one per suspect
	long long seq = -1;
	std::string why;
	std::set<int> reporting_ranks; // the ranks whose own watchdog reported a timeout
	int stall_reports = 0;         // Horovod stall reports (they name no reporting rank)
	// How many reported the hang: the ranks' own watchdogs, or the stall
	// reports where those are more.
	int reporting() const
	{
		return std::max(static_cast<int>(reporting_ranks.size()), stall_reports);
	}
	std::set<int> waiting; // ranks seen waiting in the collective (reported, or aborted by their watchdog)
};

// A silence this long in a job that had been stepping means it had
// stopped, not that it was slow: beyond NCCL's watchdog timeout (10 minutes
// before PyTorch 2.2, 30 since). Shared by the passes that read a hang from
// silence (stopped_while_hung.cc, stalled_before_end.cc).
constexpr int64_t hang_silence_us = 30LL * 60 * 1000000;

struct diagnosis_context {
	diagnosis_context(evidence &e, const knowledge &k, const clock_result &c, const hang_structure &f)
		: ev(e), kn(k), clk(c), fr(f)
	{
	}
	evidence &ev;
	const knowledge &kn;
	const clock_result &clk;
	const hang_structure &fr;

	// The job's window on the common clock (no_time: unknown).
	int64_t job_start_us = no_time, job_end_us = no_time;

	// Initiating events still in the running, and Slurm's own word.
	std::vector<candidate> cands;
	bool have_job_end_line = false; // a log line said how the job ended
	bool have_sacct = false;
	event sacct_ev;                 // sacct's State as an event (have_sacct)
	candidate best;                 // the fault chosen so far

	hang_view hv;
	decision d;
};

// The passes, in the order diagnose() runs them. Each does one thing.
void pass_xid_meaning(diagnosis_context &cx);      // xid_meaning.cc
void pass_exit_signals(diagnosis_context &cx);     // exits.cc: a launcher's exitcode -N is signal N
void pass_relevance(diagnosis_context &cx);        // relevance.cc: job window, survival
void pass_slurm_last_word(diagnosis_context &cx);  // slurm_last_word.cc: sacct's State as a candidate
void pass_fault_choice(diagnosis_context &cx);     // fault_choice.cc: the first fault, ties, support
void pass_common_mode(diagnosis_context &cx);      // common_mode.cc: the same fault on many ranks
void pass_hang_structure(diagnosis_context &cx);   // hang_structure.cc: who is missing or different
void pass_stall_report(diagnosis_context &cx);     // stall_report.cc: the ranks a stall report names missing
// Whether the event is a stall report naming stalled ranks: in a list
// ("missing ranks: 0, 6") or, one line per rank, by its label ("2: [...]").
bool names_stalled_ranks(const event &e);
// Whether that report names rank r.
bool stall_report_names(const event &e, int r);
void pass_decide(diagnosis_context &cx);           // decide.cc: class and first rank from the above
void pass_stopped_while_hung(diagnosis_context &cx); // stopped_while_hung.cc: a cancel that ended a hang
void pass_stalled_before_end(diagnosis_context &cx); // stalled_before_end.cc: steps stopped long before the log did
void pass_peer_fault(diagnosis_context &cx);       // peer_fault.cc: a link error that is its peer's
void pass_mutual_link_errors(diagnosis_context &cx); // mutual_link_errors.cc: link errors naming each other's ends
void pass_link_fault_rank(diagnosis_context &cx);    // link_fault_rank.cc: a link's loss several ranks reported is no rank's
void pass_launch_phase(diagnosis_context &cx);     // launch_phase.cc: a fault before anything ran
void pass_nan_origin(diagnosis_context &cx);       // nan_origin.cc: where a NaN appeared first
void pass_host_resolution(diagnosis_context &cx);  // host_resolution.cc: the first rank's host
void pass_starved_node(diagnosis_context &cx);     // starved_node.cc: a node lost after the OOM killer
void pass_reclaimed_node(diagnosis_context &cx);   // reclaimed_node.cc: a node lost on spot capacity
void pass_confidence(diagnosis_context &cx);       // confidence.cc: how sure, and why not

// The rank behind the others in training steps, as hang structure finds
// it (hang_structure.cc).
hang_view ranks_behind_in_steps(const evidence &ev);
// The one rank that stopped printing a line the others went on printing
// in turn (hang_structure.cc; reading/rank_rounds.hh).
hang_view rank_missing_from_rounds(const evidence &ev);
// Whether a round gap names a rank (a task's names one where tasks are ranks).
bool gap_counts(const evidence &ev, const round_gap &g);
bool job_level(failure_class c);
// Whether a node-failure event's host is the node lost, not the survivor
// that reported it (fault_choice.cc).
bool names_failed_node(const evidence &ev, const event &e);
// "localhost" and the like: a name every machine has for itself
// (aligning/identities.cc).
bool loopback_name(const std::string &h);
// Whether the evidence names at most one machine, "localhost" aside.
bool one_machine(const evidence &ev);
// Whether e is host's kernel seeing its own network link fail (peer_fault.cc).
bool kernel_link_fault(const evidence &ev, const event &e, int host);
// The one node of the job whose kernel saw its own network link fail (the
// latest such line at or before broke, else the first), or null where no
// node or several did; of those near broke where some are (peer_fault.cc).
const event *one_node_saw_its_link_fail(const evidence &ev, int64_t broke);
// An Xid 154 whose recovery action (a GPU reset, a node reboot) no later
// line of that GPU cleared and no boot of its node since performed: the
// GPU stays unusable, whichever job ran when the driver said so.
bool standing_recovery_action(const evidence &ev, const event &e);
// When the collective a watchdog timed out in began: the line's time less
// its Timeout(ms) (no_time where it names none, or none sensible)
// (relevance.cc).
int64_t collective_began_us(const event &e);
// A network error's peer capture as the address alone (peer_fault.cc).
std::string peer_address(std::string peer);
// How many ranks of best's host reported best's fault within a second of
// it (fault_choice.cc).
size_t ranks_reporting_together(const diagnosis_context &cx, const candidate &best);
// Whether a is earlier than b on the common clock (unknown times last).
bool earlier_event(const event &a, const event &b);
// Whether a came before b: by line in one file, else on the common clock
// (unknown times order nothing). A line with no time of its own is
// somewhere between its neighbours' stamps: before b only where the latest
// it could be is.
bool came_before(const event &a, const event &b);

} // namespace diag
