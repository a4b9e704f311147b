// A job stopped from outside after its ranks had long stopped making
// progress, one of them behind the others in steps: whoever cancelled it
// ended a hang. The hang explains the end, the cancellation was its last
// word (issue 11: Slurm's word decides only where nothing earlier and
// still relevant explains the end). The silence must be long (a healthy
// job cancelled mid-run stops within one step's time of its last line)
// and the rank behind must be singled out: then it is the one that stopped.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"
#include "deciding/exits.hh"
#include "reading/timestamp.hh"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <climits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace diag {

namespace {

// Reports of one stall that went on this long before a stop: the ranks
// had waited minutes on the one missing (Horovod warns after one, torch's
// store barrier every ten seconds), the stop ended a hang.
constexpr int64_t reported_stall_us = 5LL * 60 * 1000000;

// A silence before a stop that no healthy pace explains: this many times
// the longest interval between two progress lines of one writer, and ten
// minutes at least (a pause for evaluation or a checkpoint is one such
// interval, seen before).
constexpr int64_t paced_silence_factor = 5;
constexpr int64_t paced_silence_min_us = 10LL * 60 * 1000000;
// Longer than a stop takes to end a job (Slurm's KillWait, a launcher's
// grace before SIGKILL): a job still writing after it had not hung.
constexpr int64_t alive_after_stop_us = 3LL * 60 * 1000000;

// Whether a stamp reads on one reckoning with another's kind and year
// (ts_reckoning).
bool same_reckoning(const ts_value &t, ts_kind kind, bool has_year)
{
	return t.kind != ts_kind::none && ts_reckoning(t.kind, t.year != 0) == ts_reckoning(kind, has_year);
}

// Whether the decision is one the hang's structure may overturn: the job
// stopped from outside (a cancel, its time limit), or a hang that singled
// out no rank.
bool stopped_from_outside(const decision &d)
{
	return d.cls == failure_class::user_cancel || d.cls == failure_class::time_limit;
}

bool open_to_a_hang(const decision &d)
{
	return stopped_from_outside(d) || (d.cls == failure_class::collective_hang && d.first_rank < 0);
}

// The stop ended a hang: the decision becomes that rank's hang.
void ended_a_hang(decision &d, int rank, const std::string &why, std::string note)
{
	d.cls = failure_class::collective_hang;
	d.first = nullptr;
	d.first_rank = rank;
	d.first_host = -1;
	d.rank_singled_out = rank >= 0;
	d.hang_why = why;
	d.notes.push_back(std::move(note));
}

// A report of a stall: ranks named stalled, the ranks that were ready
// (the rest stalled), or a store barrier short of its world.
bool reports_a_stall(const event &e)
{
	return names_stalled_ranks(e) || !e.capture("ready_ranks").empty() || !e.capture("barrier_world").empty();
}

// The other ranks' stall reports had named one rank missing from their
// collectives (Horovod's stall inspector, a minute at least into the wait)
// before the job was stopped from outside (a cancel, its time limit): it
// had stopped the job long before, and the stop ended a hang.
bool ended_a_reported_stall(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || cx.hv.stall_reports == 0 ||
	    cx.hv.suspects.size() != 1 || !d.first)
		return false;
	// The stall reported long before the stop (a stall the stop merely
	// interrupted is no cause of it). A stop with no time of its own, later
	// in the same file than every report, came after the last one.
	int64_t first_stall = INT64_MAX, last_stall = INT64_MIN;
	bool all_before = true;
	// Reports with no time, above the stop in its file: the inspector
	// repeats its report once per check (a minute by default), so the
	// separate runs of report lines count the minutes.
	int untimed_runs = 0;
	// (A report naming ranks counts where it names the one suspected: an
	// earlier stall that named another, stepped past, is no part of it.)
	for (const auto &e : cx.ev.events) {
		if (e.dropped || !reports_a_stall(e))
			continue;
		if (names_stalled_ranks(e) && !stall_report_names(e, cx.hv.suspects[0]))
			continue;
		if (e.time_us == no_time) {
			if (e.file == d.first->file && e.line < d.first->line)
				untimed_runs = std::max(untimed_runs, e.reading_runs);
			continue;
		}
		first_stall = std::min(first_stall, e.time_us);
		last_stall = std::max(last_stall, e.time_us);
		all_before = all_before && e.file == d.first->file && e.line < d.first->line;
	}
	// (A stall the job then stepped past, its progress lines going on below
	// the last report in that report's file, had resolved: no hang.)
	std::map<uint32_t, uint64_t> last_report; // file -> line
	for (const auto &e : cx.ev.events)
		if (!e.dropped && reports_a_stall(e))
			last_report[e.file] = std::max(last_report[e.file], e.line);
	for (const auto &p : cx.ev.last_progress) {
		const uint32_t file = static_cast<uint32_t>(p.first >> 32);
		auto it = last_report.find(file);
		if (it != last_report.end() && p.second > it->second &&
		    (d.first->file != file || p.second < d.first->line))
			return false;
	}
	int64_t stop = d.first->time_us != no_time ? d.first->time_us : all_before ? last_stall : INT64_MIN;
	const bool long_by_time = first_stall != INT64_MAX && stop != INT64_MIN && stop - first_stall >= reported_stall_us;
	const bool long_by_count = first_stall == INT64_MAX && untimed_runs > reported_stall_us / (60LL * 1000000);
	if (!long_by_time && !long_by_count)
		return false;
	ended_a_hang(d, cx.hv.suspects[0], cx.hv.why,
		     "the other ranks' stall reports named rank " + std::to_string(cx.hv.suspects[0]) +
			     " missing before the job was stopped: the stop ended a hang");
	return true;
}

// Collective timeouts reported before the job was stopped from outside
// (a cancel, its time limit), with no progress after them in their file:
// the ranks had waited a watchdog's whole timeout in a collective and
// never went on, so the stop ended a hang. The hang's structure names the
// rank where it singles one out (a desync, the one that never reported).
bool stopped_after_timeouts(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || !d.first)
		return false;
	std::map<uint32_t, uint64_t> last_timeout; // file -> line
	for (const auto &e : cx.ev.events) {
		if (e.dropped || e.handled || e.kind != rule_kind::watchdog || e.rank < 0 ||
		    e.cls != failure_class::collective_hang)
			continue;
		const bool before = e.file == d.first->file ? e.line < d.first->line
							    : e.time_us != no_time && d.first->time_us != no_time &&
								      e.time_us < d.first->time_us;
		if (!before)
			return false; // a timeout the stop itself may have caused
		last_timeout[e.file] = std::max(last_timeout[e.file], e.line);
	}
	if (last_timeout.empty())
		return false;
	// (Progress below the last timeout in its file: the job went on.)
	for (const auto &p : cx.ev.last_progress) {
		auto it = last_timeout.find(static_cast<uint32_t>(p.first >> 32));
		if (it != last_timeout.end() && p.second > it->second)
			return false;
	}
	const int rank = cx.hv.suspects.size() == 1 ? cx.hv.suspects[0] : -1;
	ended_a_hang(d, rank, rank >= 0 ? cx.hv.why : "the ranks timed out waiting in a collective before the stop",
		     "the ranks' watchdogs reported collective timeouts before the job was stopped, and no progress "
		     "followed: the stop ended a hang");
	return true;
}

// The ranks' flight recorders, dumped before the job was stopped from
// outside (a cancel, its time limit), single out one rank: the others sat
// in a collective it never joined (never enqueued, stuck before it). A
// dump is taken of a job that hangs; the stop ended that hang.
bool stopped_while_recorded_waiting(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || !cx.fr.present || cx.fr.suspects.size() != 1)
		return false;
	const int rank = cx.fr.suspects[0];
	ended_a_hang(d, rank, cx.fr.suspect_why.empty() ? "the flight recorder singles it out" : cx.fr.suspect_why[0],
		     "the ranks' flight recorders show the others waiting in a collective rank " + std::to_string(rank) +
			     " never joined: the stop ended a hang");
	return true;
}

// When the job was stopped from outside, the launchers sent their workers
// the stop (torchrun's "Sending process N closing signal SIGTERM"): every
// worker whose pid the ranks' NCCL lines made known, but one, whose node's
// other workers were all sent it, and which had said it was going before
// (its communicator aborted, its exit). That one had already exited: it
// left the others waiting in a collective, and the stop ended their wait.
bool one_worker_gone_before_the_stop(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || !d.first)
		return false;
	std::set<int> signalled;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || !e.r || e.r->id != "torchrun.closing_signal")
			continue;
		long long pid = 0;
		if (parse_uint_str(e.capture("pid"), pid) && pid > 0 && pid < INT_MAX)
			signalled.insert(static_cast<int>(pid));
	}
	if (signalled.size() < 3)
		return false;
	// The known workers of each node that was sent the stop.
	std::map<int, std::vector<const rank_info *>> by_host;
	for (const auto &r : cx.ev.ranks.all())
		if (r.second.pid > 0 && r.second.host >= 0)
			by_host[r.second.host].push_back(&r.second);
	int gone = -1, listed = 0;
	for (const auto &h : by_host) {
		std::vector<const rank_info *> missing;
		for (const rank_info *ri : h.second)
			if (!signalled.count(ri->pid))
				missing.push_back(ri);
		if (missing.size() == h.second.size())
			continue; // a node whose agent's words are not here
		listed += static_cast<int>(h.second.size() - missing.size());
		if (missing.empty())
			continue;
		if (missing.size() > 1 || gone >= 0)
			return false;
		gone = missing.front()->rank;
	}
	if (gone < 0 || listed < 3)
		return false;
	// Its own sign of going before the stop (its communicator aborted, an
	// exit): a worker merely missing from the lines says nothing.
	bool left = false;
	const event &stop = *d.first;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && e.rank == gone &&
		    (e.file == stop.file ? e.line < stop.line
					 : e.time_us != no_time && stop.time_us != no_time && e.time_us < stop.time_us) &&
		    ((e.r && e.r->id == "nccl.comm_abort_complete") || e.kind == rule_kind::task_exit))
			left = true;
	if (!left)
		return false;
	ended_a_hang(d, gone, "its launcher did not have to stop it: it had already exited",
		     "when the job was stopped its launchers sent every worker the stop but rank " + std::to_string(gone) +
			     ", which had already exited: the others waited on it, and the stop ended their wait");
	return true;
}

// A process seen waiting in a collective by a dump that carries no time
// (py-spy's, taken of a live process: before the job ended) while the user
// stopped the job: the stop ended a hang. A dump names a pid, not a rank.
bool stopped_while_seen_waiting(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::user_cancel || !d.first)
		return false;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && e.kind == rule_kind::watchdog && e.ts.kind == ts_kind::none && e.file != d.first->file) {
			ended_a_hang(d, -1, "a process was seen waiting in a collective (" + e.capture("op") + ") before the stop",
				     "a dump of a live process found it waiting in " + e.capture("op") +
					     ": the user's stop ended a hang");
			return true;
		}
	return false;
}

// One rank said its work was over (training finished or stopped early,
// its last "done") while the others said nothing of the kind, and the job
// then ended from outside, or as a hang that singled out no rank: the
// others were left waiting in a collective that rank never joined. It is
// the rank that differs, and the stop only ended the wait. So too where
// the others then failed with nothing but a victim's word (Horovod "has
// been shut down ... after one of the ranks finished execution").
bool one_rank_left(diagnosis_context &cx)
{
	decision &d = cx.d;
	// (Not a job that ended with no word at all: a log where only rank 0
	// logs says "training finished" there on a healthy run too.)
	const bool stopped = stopped_from_outside(d);
	const bool victims_only = !open_to_a_hang(d);
	if (victims_only && !(d.cls == failure_class::unknown && !d.first))
		return false;
	const event *left = nullptr;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || e.capture("left_early").empty())
			continue;
		if (e.rank < 0 || (left && left->rank != e.rank))
			return false; // a rank unknown, or more than one left
		if (!left)
			left = &e;
	}
	if (!left)
		return false;
	// Others were there to be left: the job's world, or other ranks seen.
	bool others = cx.ev.ranks.world_size() >= 2 || cx.ev.round_ranks >= 2;
	for (const auto &e : cx.ev.events)
		others = others || (e.rank >= 0 && e.rank != left->rank);
	for (const auto &m : cx.ev.rank_progress)
		others = others || ((!m.is_task || cx.ev.tasks_are_ranks) && m.id != left->rank);
	if (!others)
		return false;
	// (Where only victims' words decided, other ranks failed as victims
	// after it said so: a job that ended with no failure at all, its rank
	// 0 logging "training finished", left no one.)
	if (victims_only) {
		bool failed_after = false;
		for (const auto &e : cx.ev.events)
			failed_after = failed_after || (!e.dropped && e.role == event_role::victim && e.rank >= 0 &&
							e.rank != left->rank && came_before(*left, e));
		if (!failed_after)
			return false;
	}
	// The stop came after it (within its file, by line; across files, by time).
	if (stopped && d.first) {
		const event &s = *d.first;
		if (s.file == left->file ? s.line < left->line
					 : s.time_us != no_time && left->time_us != no_time && s.time_us < left->time_us)
			return false;
	}
	const std::string r = std::to_string(left->rank);
	ended_a_hang(d, left->rank, "it alone said its work was over while the other ranks did not",
		     "rank " + r + " alone finished (\"" + left->text + "\"); the others were left waiting for it" +
			     (stopped ? ", and the stop ended the wait" : ""));
	return true;
}

// The host a dump's prefix or header names: the longest host of the job
// whose name stands in it as a word of its own ("### node07: py-spy dump",
// "==> node07.out <==", a file named for it "==> trace-node07.out <==";
// not "node07a" or "xnode07", other names).
int dump_host(const evidence &ev, const stack_dump &s)
{
	if (!s.host.empty())
		return ev.find_host(s.host);
	int best = -1;
	size_t best_len = 0;
	auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; };
	auto before_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.'; };
	for (size_t h = 0; h < ev.host_count(); h++) {
		const std::string &name = ev.host_name(static_cast<int>(h));
		if (name.size() < 3 || name.size() <= best_len)
			continue;
		for (size_t at = s.header.find(name); at != std::string::npos; at = s.header.find(name, at + 1)) {
			size_t end = at + name.size();
			if ((at == 0 || !before_char(s.header[at - 1])) && (end == s.header.size() || !word_char(s.header[end]))) {
				best = static_cast<int>(h);
				best_len = name.size();
				break;
			}
		}
	}
	return best;
}

// Stack dumps of the job's live processes (py-spy's, taken while it ran)
// in which every rank's main thread sat in the same frames but one's, and
// then the job was stopped from outside (or hung with no rank singled
// out): the others were waiting for that one, and the stop ended their
// wait. Three ranks at least: with two, which one is odd is a guess.
bool stopped_while_one_stack_differed(diagnosis_context &cx)
{
	decision &d = cx.d;
	const bool stopped = stopped_from_outside(d);
	if (!open_to_a_hang(d) || cx.ev.stack_dumps.empty())
		return false;
	// The last dump of each process (a sweep may dump one twice), not a
	// DataLoader worker's.
	std::map<std::pair<std::string, int>, const stack_dump *> last;
	for (const auto &s : cx.ev.stack_dumps)
		if (!s.worker && !s.launcher && s.main_frames > 0)
			last[{s.host.empty() ? s.header : s.host, s.pid}] = &s;
	if (last.size() < 3)
		return false;
	std::map<uint64_t, std::vector<const stack_dump *>> groups;
	for (const auto &l : last)
		groups[l.second->main_stack].push_back(l.second);
	if (groups.size() != 2)
		return false;
	const stack_dump *odd = nullptr;
	for (const auto &g : groups)
		if (g.second.size() == 1)
			odd = g.second.front();
	if (!odd || last.size() - 1 < 2)
		return false;
	const int host = dump_host(cx.ev, *odd);
	int rank = odd->rank >= 0 ? odd->rank : cx.ev.ranks.rank_of_pid(host, odd->pid);
	if (rank < 0 && odd->local_rank >= 0 && host >= 0)
		rank = cx.ev.ranks.rank_of_local(host, odd->local_rank);
	// A process that said its rank under its pid's prefix (a Ray actor's
	// "(Actor pid=N) ... rank 0/16"), once is enough here: the dump names
	// that pid on that host (or the prefix named no host).
	for (const auto &tp : cx.ev.tagged_pids)
		if (rank < 0 && tp.first.second == odd->pid && !tp.second.mixed &&
		    (tp.first.first < 0 || host < 0 || tp.first.first == host))
			rank = tp.second.rank;
	ended_a_hang(d, rank, "its main thread alone was elsewhere (" + odd->main_top + ") when the live processes were dumped",
		     (rank >= 0 ? "rank " + std::to_string(rank) : "process " + std::to_string(odd->pid)) +
			     " alone was elsewhere in the stack dumps of the live processes (" + odd->main_top +
			     "), the others in the same frames" + (stopped ? ": the stop ended their wait" : ""));
	// (The dump says where it ran.)
	if (host >= 0)
		d.first_host = host;
	return true;
}

// The tracebacks every rank printed when the user interrupted the job
// (KeyboardInterrupt) say where each was: where all but one were inside
// torch.distributed's collectives and one was not, or one alone was inside
// one, that one had gone its own way and the others waited for it (or it
// waited in a collective they never reached). Three ranks at least; a
// launcher's own traceback is not a rank's.
bool interrupted_where_one_differed(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!open_to_a_hang(d) || cx.ev.stop_tracebacks.empty())
		return false;
	// One per rank where ranks are known (its last), else each one.
	std::map<int, const stop_traceback *> by_rank;
	std::vector<const stop_traceback *> all;
	for (const auto &tb : cx.ev.stop_tracebacks) {
		if (tb.launcher)
			continue;
		if (tb.rank >= 0)
			by_rank[tb.rank] = &tb;
		else
			all.push_back(&tb);
	}
	if (!by_rank.empty()) {
		if (!all.empty())
			return false; // ranks' and unknown writers' mixed: not one picture
		for (const auto &r : by_rank)
			all.push_back(r.second);
	}
	if (all.size() < 3)
		return false;
	std::vector<const stop_traceback *> in, out;
	for (const auto *tb : all)
		(tb->in_collective ? in : out).push_back(tb);
	const stop_traceback *odd = in.size() == 1 && out.size() >= 2 ? in.front()
				    : out.size() == 1 && in.size() >= 2 ? out.front()
									: nullptr;
	if (!odd)
		return false;
	const std::string what = odd->in_collective ? "alone inside a collective" : "alone outside the collective the others were in";
	ended_a_hang(d, odd->rank, "when the job was interrupted it was " + what + (odd->where.empty() ? "" : " (at " + odd->where + ")"),
		     (odd->rank >= 0 ? "rank " + std::to_string(odd->rank) : "one process") + " was " + what +
			     " when the job was interrupted" + (odd->where.empty() ? "" : " (at " + odd->where + ")") +
			     ", by the tracebacks every rank printed: the interrupt ended a hang");
	return true;
}

// A listing of the job's pods (kubectl get pods) in which every pod had
// completed but one, still running, and then the job was stopped from
// outside: the others had finished and left it waiting in a collective
// (or it waited for them in one they had left). It is the one that
// differs. Three pods at least; the latest row of each.
bool one_pod_still_running(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d))
		return false;
	std::map<std::string, std::string> status; // pod -> its latest row's status
	for (const auto &e : cx.ev.events)
		if (!e.dropped && !e.capture("pod_status").empty() && !e.capture("pod").empty())
			status[e.capture("pod")] = e.capture("pod_status");
	if (status.size() < 3)
		return false;
	std::string running;
	for (const auto &p : status) {
		if (p.second == "Running") {
			if (!running.empty())
				return false;
			running = p.first;
		} else if (p.second != "Completed" && p.second != "Succeeded") {
			return false;
		}
	}
	if (running.empty())
		return false;
	// (Its rank, where one rank alone ran on it.)
	const int host = cx.ev.find_host(running);
	int rank = -1;
	for (const auto &r : cx.ev.ranks.all())
		if (host >= 0 && r.second.host == host)
			rank = rank < 0 ? r.first : -2;
	ended_a_hang(d, rank >= 0 ? rank : -1,
		     "its pod alone was still running while the job's other pods had completed",
		     "pod " + running + " was still running while every other pod of the job had completed" +
			     std::string(": the stop ended its wait"));
	d.first_host = host >= 0 ? host : cx.ev.intern_host(running);
	d.rank_singled_out = true;
	return true;
}

// A stop this soon after the others' last turn came to a running job.
constexpr int64_t still_running_us = 60LL * 1000000;

// The ranks printed a line in turn (a fetched sample, a step) until one
// stopped while every other printed it twice more, and then the job was
// stopped from outside (a cancel, its time limit): the others had gone on
// to the collective it never reached, and the stop ended their wait. By
// line order, so a stop with no time of its own counts too.
bool stopped_after_one_fell_behind(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d))
		return false;
	hang_view behind = rank_missing_from_rounds(cx.ev);
	if (behind.suspects.size() != 1)
		return false;
	// (The stop after it: a stop in the same file came later by line.)
	if (d.first)
		for (const auto &g : cx.ev.round_gaps)
			if (gap_counts(cx.ev, g) && d.first->file == g.file && d.first->line < g.line)
				return false;
	// (Nor where the others were still printing their turns within a minute
	// of the stop: the job was running when stopped, and the one behind
	// lost its last lines with its unflushed output, killed mid-buffer.)
	if (d.first && !d.first->inherited_time && d.first->ts.kind != ts_kind::none)
		for (const auto &g : cx.ev.round_gaps)
			if (gap_counts(cx.ev, g) && g.others_last_us != INT64_MIN &&
			    same_reckoning(d.first->ts, g.stamp_kind, g.stamp_year) &&
			    file_local_us(d.first->ts) - g.others_last_us < still_running_us)
				return false;
	ended_a_hang(d, behind.suspects[0], behind.why,
		     "rank " + std::to_string(behind.suspects[0]) +
			     " fell behind the others' lines before the job was stopped: the stop ended a hang");
	return true;
}

// The silence between a stop's line and the last progress in its file,
// where that file's steadiest writer had a pace the silence far exceeds
// and the file says nothing for minutes after the stop; -1 otherwise.
int64_t silence_past_pace(const evidence &ev, const event &stop_line, const source_file **file)
{
	if (stop_line.inherited_time || stop_line.ts.kind == ts_kind::none || stop_line.file >= ev.sources().size())
		return -1;
	const source_file &sf = ev.sources()[stop_line.file];
	if (sf.pace_intervals == 0 || sf.pace_longest_us <= 0)
		return -1;
	// The job's last progress, on a line stamped itself (an unstamped one
	// inherits a time that may be hours early; one a line or two after its
	// writer's last stamped step is dated by that step), in any file whose
	// stamps read like the stop's (of one kind, with a year or both without: a
	// glog "I0220" and a banner's "2026-02-20" are not on one reckoning): a
	// file that stepped on until the stop says the job did, whatever
	// another file's early lines say. The stop's own file must be among them.
	const ts_value &at = stop_line.ts;
	int64_t latest = INT64_MIN;
	bool own_file = false;
	for (const auto &m : ev.progress_marks) {
		// (A bar drawn right after the writer's last stamped step is dated
		// by that step.)
		const ts_value &t = m.stamped ? m.ts : m.stamped_ts;
		if (same_reckoning(t, at.kind, at.year != 0)) {
			latest = std::max(latest, file_local_us(t));
			own_file = own_file || m.file == stop_line.file;
		}
	}
	if (!own_file)
		return -1;
	const int64_t stop = file_local_us(at);
	if (latest == INT64_MIN || stop == INT64_MIN)
		return -1;
	const int64_t silence = stop - latest;
	if (silence < paced_silence_min_us || silence < paced_silence_factor * sf.pace_longest_us)
		return -1;
	// (The file itself fell silent then, not only its progress: one that
	// wrote on through the silence, in its first half and in its second
	// before the stop, was busy at something it counts no step of (a final
	// evaluation, a long save): a stray line or two is no such work.)
	if (sf.wrote_between(at, latest + std::max<int64_t>(sf.pace_longest_us, us_per_s * 60), latest + silence / 2) &&
	    sf.wrote_between(at, latest + silence / 2, stop - alive_after_stop_us))
		return -1;
	// (A job that went on writing well after the stop, finishing its phase
	// before it left, was alive: it was busy, not hung.)
	const int64_t last = file_local_us(sf.last_stamp);
	if (last != INT64_MIN && last - stop > alive_after_stop_us)
		return -1;
	*file = &sf;
	return silence;
}

// The one rank that alone reported skipping a step on a non-finite value
// (a line it survived: "non-finite loss, returning None to skip this
// batch"), stamped on the stop's reckoning within three paces before the
// job's last progress or one after; -1 where none or several ranks did.
int sole_rank_skipping_a_nan(const evidence &ev, const ts_value &at, int64_t last_progress, int64_t pace)
{
	int rank = -1;
	for (const auto &e : ev.events) {
		if (e.dropped || e.cls != failure_class::nan_inf || e.rank < 0 || !(e.handled || e.decoy) ||
		    e.inherited_time || !same_reckoning(e.ts, at.kind, at.year != 0))
			continue;
		const int64_t t = file_local_us(e.ts);
		if (t == INT64_MIN || t < last_progress - 3 * pace || t > last_progress + pace)
			continue;
		if (rank >= 0 && rank != e.rank)
			return -1;
		rank = e.rank;
	}
	return rank;
}

// The job's log went silent long before it was stopped from outside: its
// writers had stepped at a steady pace, and the silence before the stop
// was many times the longest interval between two of their steps (and ten
// minutes at least). The job stalled and the stop ended the wait; the rank
// behind in steps, where one is, stopped first. One process counts too: it
// may drive several devices and their collectives itself (JAX's pmap, a
// mirrored strategy), and its silence is the same stall. Any line of the
// stop (each file's own) may show it, whichever the decision names.
bool stopped_long_after_its_pace(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d))
		return false;
	int64_t silence = -1;
	const source_file *sf = nullptr;
	const event *stop = nullptr;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && e.role == event_role::initiating && e.cls == d.cls &&
		    (silence = silence_past_pace(cx.ev, e, &sf)) >= 0) {
			stop = &e;
			break;
		}
	if (silence < 0 || !sf)
		return false;
	hang_view behind = ranks_behind_in_steps(cx.ev);
	int rank = behind.suspects.size() == 1 ? behind.suspects[0] : -1;
	// Else the one rank that alone skipped a step on a non-finite value
	// (its loss NaN, the batch dropped) within a few steps of the last
	// progress: the others went on into a collective it never entered.
	if (rank < 0 && stop) {
		const int64_t last_progress = file_local_us(stop->ts) - silence;
		if (int skipper = sole_rank_skipping_a_nan(cx.ev, stop->ts, last_progress, sf->pace_longest_us);
		    skipper >= 0) {
			rank = skipper;
			behind.why = "it alone skipped a step on a non-finite value just before the others stopped making "
				     "progress";
		}
	}
	const long long minutes = silence / (60LL * 1000000);
	const long long pace_s = sf->pace_longest_us / 1000000;
	ended_a_hang(d, rank,
		     rank >= 0 ? behind.why
			       : "the job stopped making progress " + std::to_string(minutes) + " minutes before it was stopped",
		     "the job was stopped " + std::to_string(minutes) +
			     " minutes after its last progress, when it had stepped at least every " + std::to_string(pace_s) +
			     " s before: the stop ended a hang");
	return true;
}

// A silence this long after one rank went its own way, before a stop:
// longer than a rank-0-only evaluation or save the others wait out in a
// barrier on a healthy run.
constexpr int64_t alone_silence_us = 20LL * 60 * 1000000;

// Whether a stamped progress line on one reckoning (a kind of stamp, with
// a year or without) lies strictly between from and to (file-local µs).
bool stepped_between(const evidence &ev, ts_kind kind, bool has_year, int64_t from, int64_t to)
{
	for (const auto &m : ev.progress_marks) {
		if (!m.stamped || !same_reckoning(m.ts, kind, has_year))
			continue;
		const int64_t t = file_local_us(m.ts);
		if (t > from && t < to)
			return true;
	}
	return false;
}

// The job was stopped from outside long after one rank went its own way
// (its last lines a phase no other rank printed, an evaluation or a save,
// while each other rank's last line was one they all shared), nothing
// progressing since: the others waited in a collective it never joined.
bool stopped_long_after_one_went_alone(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || !d.first || d.first->inherited_time || d.first->ts.kind == ts_kind::none)
		return false;
	const lone_phase *lone = nullptr;
	for (const auto &p : cx.ev.lone_phases) {
		if ((p.is_task && !cx.ev.tasks_are_ranks) || p.us == INT64_MIN)
			continue;
		if (lone)
			return false; // one in each of two files: no one rank
		lone = &p;
	}
	if (!lone)
		return false;
	const ts_value &at = d.first->ts;
	if (!same_reckoning(at, lone->stamp_kind, lone->stamp_year))
		return false;
	const int64_t stop = file_local_us(at);
	const int64_t silence = stop == INT64_MIN ? -1 : stop - lone->us;
	if (silence < alone_silence_us)
		return false;
	// Beyond the file's pace too, where its writers had one.
	const source_file &sf = cx.ev.sources()[lone->file];
	if (sf.pace_intervals > 0 && silence < paced_silence_factor * sf.pace_longest_us)
		return false;
	// Nothing stepped on after it.
	if (stepped_between(cx.ev, lone->stamp_kind, lone->stamp_year, lone->us, stop))
		return false;
	const long long minutes = silence / (60LL * 1000000);
	ended_a_hang(d, lone->rank,
		     "its last lines (" + sf.path + ":" + std::to_string(lone->line) +
			     ") were a phase no other rank reached, while every other rank's last line was one they "
			     "all shared",
		     "rank " + std::to_string(lone->rank) + " went its own way " + std::to_string(minutes) +
			     " minutes before the job was stopped, the others left waiting: the stop ended a hang");
	return true;
}

// How far past the ranks' own spread a silence after one went a round
// ahead must go: the others, a minute apart at most each round before,
// had not followed in this many times that.
constexpr int64_t ahead_spread_factor = 20;
constexpr int64_t ahead_spread_floor_us = 60LL * 1000000;

// The job was stopped from outside long after one rank went a round
// ahead (printed a line every rank had printed in step each round before,
// once more, alone), nothing progressing since: its loop ended a step
// before the others' and it went on alone, while they waited in the step
// it never joined. The silence must dwarf the rounds' spread (a healthy
// job stopped mid-round has one rank ahead by seconds).
bool stopped_long_after_one_ran_ahead(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || !d.first || d.first->inherited_time || d.first->ts.kind == ts_kind::none)
		return false;
	const ahead_round *ahead = nullptr;
	for (const auto &a : cx.ev.ahead_rounds) {
		if (a.is_task && !cx.ev.tasks_are_ranks)
			continue;
		if (ahead)
			return false; // one in each of two files: no one rank
		ahead = &a;
	}
	if (!ahead || !same_reckoning(d.first->ts, ahead->stamp_kind, ahead->stamp_year))
		return false;
	const int64_t stop = file_local_us(d.first->ts);
	const int64_t silence = stop == INT64_MIN ? -1 : stop - ahead->us;
	if (silence < alone_silence_us ||
	    silence < ahead_spread_factor * std::max(ahead->spread_us, ahead_spread_floor_us))
		return false;
	// Nothing stepped on after it.
	if (stepped_between(cx.ev, ahead->stamp_kind, ahead->stamp_year, ahead->us, stop))
		return false;
	const long long minutes = silence / (60LL * 1000000);
	const std::string r = std::to_string(ahead->rank);
	ended_a_hang(d, ahead->rank,
		     "it alone printed \"" + ahead->sample + "\" once more, a round ahead of the others, which had printed it "
		     "in step " + std::to_string(ahead->rounds) + " times before",
		     "rank " + r + " went a round ahead of the others " + std::to_string(minutes) +
			     " minutes before the job was stopped, the others never following: the stop ended a hang");
	return true;
}

// The job was stopped from outside after a snapshot of its GPUs
// (nvidia-smi's table, pasted beside its logs) showed its processes still
// on them long after its logs had last written anything: the ranks were
// alive and stuck, and the stop ended a hang. Its logs' silence before the
// snapshot must be ten minutes at least and past their pace; the processes
// the job's (a pid its lines name), or several where its lines name none.
bool stopped_while_seen_on_the_gpus(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || cx.ev.gpu_snapshots.empty())
		return false;
	std::set<int> job_pids;
	for (const auto &e : cx.ev.events) {
		if (e.pid > 0)
			job_pids.insert(e.pid);
		long long pid = 0;
		if (parse_uint_str(e.capture("pid"), pid) && pid > 0 && pid < INT_MAX)
			job_pids.insert(static_cast<int>(pid));
	}
	for (const auto &r : cx.ev.ranks.all())
		if (r.second.pid > 0)
			job_pids.insert(r.second.pid);
	for (const auto &g : cx.ev.gpu_snapshots) {
		if (g.ts.kind == ts_kind::none || g.pids.empty())
			continue;
		size_t ours = 0;
		for (int pid : g.pids)
			ours += job_pids.count(pid);
		if (ours == 0 && (g.pids.size() < 2 || !job_pids.empty()))
			continue;
		// The job's own logs (not the snapshot's file, not a kernel's):
		// when they last wrote, on the snapshot's reckoning.
		const int64_t seen = file_local_us(g.ts);
		int64_t last = INT64_MIN, pace = 0;
		for (size_t f = 0; f < cx.ev.sources().size(); f++) {
			const source_file &sf = cx.ev.sources()[f];
			if (f == g.file || (sf.kind != source_kind::job_log && sf.kind != source_kind::stdin_log &&
					    sf.kind != source_kind::nccl_log))
				continue;
			if (!same_reckoning(sf.last_stamp, g.ts.kind, g.ts.year != 0))
				continue;
			// (When it last wrote before the snapshot, whatever it wrote
			// at the stop after it.)
			last = std::max(last, sf.last_written_before(g.ts, seen));
			if (sf.pace_intervals > 0)
				pace = std::max(pace, sf.pace_longest_us);
		}
		if (seen == INT64_MIN || last == INT64_MIN || seen - last < paced_silence_min_us ||
		    seen - last < paced_silence_factor * pace)
			continue;
		// The stop came after the snapshot, where both have a time.
		if (d.first && !d.first->inherited_time && same_reckoning(d.first->ts, g.ts.kind, g.ts.year != 0) &&
		    file_local_us(d.first->ts) < seen)
			continue;
		const long long minutes = (seen - last) / (60LL * 1000000);
		ended_a_hang(d, -1,
			     "its processes were still on the GPUs " + std::to_string(minutes) +
				     " minutes after its logs last wrote",
			     "a snapshot of the GPUs (" + cx.ev.sources()[g.file].path + ":" + std::to_string(g.line) +
				     ") found the job's processes still on them " + std::to_string(minutes) +
				     " minutes after its logs last wrote: the stop ended a hang");
		return true;
	}
	return false;
}

// How busy a GPU must read to be running a kernel, not idle: a collective
// spinning, waiting on a peer, reads 100%.
constexpr int busy_util_percent = 90;

// The job was stopped from outside while a monitor beside it (nvidia-smi's
// periodic query, in the job's own file) read its GPUs busy for ten
// minutes and more after the file's last progress, the file writing
// nothing of its own meanwhile: the ranks were spinning in a collective
// that never completed, and the stop ended a hang. (GPUs idle then are a
// job waiting on its input or its disk: no such thing.)
bool stopped_while_gpus_spun(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || cx.ev.gpu_samples.empty())
		return false;
	// Each file's last progress line, of any writer, and whether that
	// writer had stepped before it (once at most: nothing ran to stall).
	std::map<uint32_t, std::pair<uint64_t, bool>> last_steps;
	for (const auto &p : cx.ev.last_progress) {
		auto &last = last_steps[static_cast<uint32_t>(p.first >> 32)];
		if (p.second <= last.first)
			continue;
		auto first = cx.ev.first_progress.find(p.first);
		last = {p.second, first != cx.ev.first_progress.end() && first->second < p.second};
	}
	for (const auto &[file, last] : last_steps) {
		const uint64_t last_step = last.first;
		if (!last.second)
			continue;
		const gpu_sample *from = nullptr, *to = nullptr;
		bool busy = true;
		for (const auto &g : cx.ev.gpu_samples) {
			if (g.file != file || g.line <= last_step)
				continue;
			busy = busy && g.util >= busy_util_percent;
			if (!from)
				from = &g;
			to = &g;
		}
		if (!busy || !from || !same_reckoning(from->ts, to->ts.kind, to->ts.year != 0))
			continue;
		const int64_t begin = file_local_us(from->ts), end = file_local_us(to->ts);
		const source_file &sf = cx.ev.sources()[file];
		if (begin == INT64_MIN || end == INT64_MIN || end - begin < paced_silence_min_us ||
		    sf.wrote_between(to->ts, begin, end))
			continue;
		// (The stop came after the samples, where it has a time.)
		if (d.first && !d.first->inherited_time && same_reckoning(d.first->ts, to->ts.kind, to->ts.year != 0) &&
		    file_local_us(d.first->ts) < end)
			continue;
		const long long minutes = (end - begin) / (60LL * 1000000);
		ended_a_hang(d, -1,
			     "its GPUs read busy for " + std::to_string(minutes) + " minutes after its last step, with nothing written",
			     "nvidia-smi's samples (" + sf.path + ":" + std::to_string(from->line) + ") read the job's GPUs busy for " +
				     std::to_string(minutes) +
				     " minutes after its last progress while it wrote nothing: spinning in a collective, and the stop "
				     "ended a hang");
		return true;
	}
	return false;
}

// A cancel long after every rank's last progress, one rank behind the
// others in steps: the cancellation ended that rank's hang.
bool cancelled_long_after_one_fell_behind(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::user_cancel || !d.first || d.first->inherited_time || d.first->ts.kind == ts_kind::none)
		return false;
	hang_view behind = ranks_behind_in_steps(cx.ev);
	if (behind.suspects.size() != 1)
		return false;
	// Every rank's last progress in the stop's own file (times compare
	// within one file) came long before it.
	const int64_t stop = file_local_us(d.first->ts);
	int64_t latest = INT64_MIN;
	for (const auto &m : cx.ev.rank_progress)
		if (m.file == d.first->file && (!m.is_task || cx.ev.tasks_are_ranks))
			latest = std::max(latest, m.us);
	if (latest == INT64_MIN || stop - latest < hang_silence_us)
		return false;
	const long long minutes = (stop - latest) / (60LL * 1000000);
	ended_a_hang(d, behind.suspects[0], behind.why,
		     "the job was cancelled " + std::to_string(minutes) +
			     " minutes after the last progress of any rank: the cancellation ended a hang");
	return true;
}

// A job stopped from outside (a cancel, its time limit) half an hour or
// more after one rank's process crashed (a signal of its own: an abort, a
// segfault), nothing of any other rank or host going wrong before it: the
// others waited on the dead rank until the stop. The crash explains the
// end; the stop only ended the wait. (An abort is often a teardown, the
// watchdog's after a timeout: then the timeout came first, and this is
// not that.)
bool stopped_long_after_one_crashed(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!stopped_from_outside(d) || !d.first || d.first->time_us == no_time)
		return false;
	const event *crash = nullptr;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && !e.decoy && e.kind == rule_kind::task_exit && e.rank >= 0 && e.time_us != no_time &&
		    (crash_signal(e.signal) || e.signal == SIGABRT) && (!crash || e.time_us < crash->time_us))
			crash = &e;
	if (!crash || d.first->time_us - crash->time_us < hang_silence_us)
		return false;
	// Nothing of another rank or host went wrong before it.
	for (const auto &e : cx.ev.events) {
		if (&e == crash || e.dropped || e.decoy || e.handled || e.kind == rule_kind::job_end ||
		    e.role == event_role::context || e.time_us == no_time || e.time_us > crash->time_us)
			continue;
		const bool other = e.rank >= 0 ? e.rank != crash->rank : e.host >= 0 && e.host != crash->host;
		if (other)
			return false;
	}
	const long long minutes = (d.first->time_us - crash->time_us) / (60LL * 1000000);
	d.cls = failure_class::segfault;
	d.first = crash;
	d.first_rank = crash->rank;
	d.first_host = crash->host;
	d.rank_singled_out = true;
	d.confidence = "medium";
	d.notes.push_back("rank " + std::to_string(crash->rank) + " crashed " + std::to_string(minutes) +
			  " minutes before the job was stopped, nothing else having gone wrong before it: the others "
			  "waited on it until the stop");
	return true;
}

} // namespace

void pass_stopped_while_hung(diagnosis_context &cx)
{
	// (The first that finds the stop ended a hang decides.)
	stopped_long_after_one_crashed(cx) || ended_a_reported_stall(cx) || one_rank_left(cx) ||
		stopped_while_one_stack_differed(cx) || interrupted_where_one_differed(cx) || one_pod_still_running(cx) ||
		stopped_while_seen_waiting(cx) || stopped_while_recorded_waiting(cx) || one_worker_gone_before_the_stop(cx) ||
		stopped_after_timeouts(cx) || stopped_after_one_fell_behind(cx) || cancelled_long_after_one_fell_behind(cx) ||
		stopped_long_after_one_went_alone(cx) || stopped_long_after_one_ran_ahead(cx) ||
		stopped_long_after_its_pace(cx) || stopped_while_seen_on_the_gpus(cx) || stopped_while_gpus_spun(cx);
}

} // namespace diag
