// Who stopped, from the structure of a hang: the rank that enqueued less
// than everyone else, the one rank of a known (or named) world missing from
// a flood of timeouts, and what the flight recorder found.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"
#include "deciding/exits.hh"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

namespace diag {

namespace {

// The odd ones out of what the ranks' watchdogs report: a minority (at most
// a third) whose value differs from what a majority agrees on.
template <typename V>
std::vector<int> minority(const std::map<int, V> &by_rank, V &majority_value)
{
	std::map<V, int> count;
	for (const auto &x : by_rank)
		count[x.second]++;
	if (by_rank.size() < 3 || count.size() < 2)
		return {};
	auto top = std::max_element(count.begin(), count.end(), [](auto &a, auto &b) { return a.second < b.second; });
	if (top->second * 2 <= static_cast<int>(by_rank.size()))
		return {};
	std::vector<int> odd;
	for (const auto &x : by_rank)
		if (x.second != top->first)
			odd.push_back(x.first);
	if (odd.size() * 3 > by_rank.size())
		return {};
	majority_value = top->first;
	return odd;
}

// Desync: a rank whose watchdog names another collective (OpType and size)
// or another SeqNum than the one every other rank waits in.
bool desync(const evidence &ev, hang_view &hv)
{
	// The collective's type and its size compare apart: a watchdog line of
	// an older or shorter shape names no size, which differs from nothing.
	std::map<int, std::string> op_of, numel_of;
	std::map<int, long long> seq;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.kind != rule_kind::watchdog)
			continue;
		std::string op = e.capture("op");
		if (!op.empty()) {
			op_of[e.rank] = "OpType=" + op;
			std::string numel = e.capture("numel");
			if (!numel.empty())
				numel_of[e.rank] = "OpType=" + op + " NumelIn=" + numel;
		}
		if (e.seq >= 0 && !seq.count(e.rank))
			seq[e.rank] = e.seq;
	}
	// A rank whose watchdog waits in a later collective than the one most
	// wait in got past theirs (a broadcast's root, done once it sent): its
	// other collective is no desync of its own; among those still in the
	// others' collective, one that differs is.
	long long most_seq = -1;
	if (seq.size() >= 3)
		minority(seq, most_seq);
	if (most_seq >= 0)
		for (const auto &x : seq)
			if (x.second > most_seq) {
				op_of.erase(x.first);
				numel_of.erase(x.first);
			}
	for (const auto *what : {&op_of, &numel_of}) {
		std::string common_what;
		std::vector<int> odd = minority(*what, common_what);
		if (odd.empty())
			continue;
		hv.suspects = odd;
		for (int r : odd)
			hv.suspect_why.push_back("its watchdog names " + what->at(r) + " where the others wait in " +
						 common_what + " (desync)");
		hv.why = hv.suspect_why.front();
		return true;
	}
	long long common_seq = -1;
	std::vector<int> odd = minority(seq, common_seq);
	if (!odd.empty()) {
		hv.suspects = odd;
		for (int r : odd)
			hv.suspect_why.push_back("it timed out in SeqNum=" + std::to_string(seq[r]) + " where the others wait in SeqNum=" +
						 std::to_string(common_seq) + " (desync)");
		hv.why = hv.suspect_why.front();
		return true;
	}
	return false;
}

// Whether the ranks' watchdogs report timeouts in more than one process
// group (the default group, PG 0, where a line names none).
bool several_groups(const evidence &ev)
{
	std::map<int, std::string> pg_of;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.kind != rule_kind::watchdog)
			continue;
		std::string pg = e.capture("pg");
		if (!pg.empty())
			pg_of[e.rank] = pg;
	}
	std::set<std::string> groups;
	for (const auto &e : ev.events)
		if (!e.dropped && e.rank >= 0 && e.kind == rule_kind::watchdog)
			groups.insert(pg_of.count(e.rank) ? pg_of[e.rank] : "0");
	return groups.size() > 1;
}

// Lowest last-enqueued: the rank that never reached the collective.
// Those behind must be a minority, or one of two ranks where the other
// went on enqueuing past the collective it waits in (no vote needed:
// it got further). Two ranks that each wait in their own last enqueued
// collective are a desync, and the logs do not say which one strayed.
bool behind_in_enqueued(const std::map<int, long long> &enq, const std::map<int, long long> &seq, hang_view &hv)
{
	if (enq.size() < 2)
		return false;
	long long lo = LLONG_MAX, hi = LLONG_MIN;
	for (const auto &x : enq) {
		lo = std::min(lo, x.second);
		hi = std::max(hi, x.second);
	}
	if (lo == hi)
		return false;
	std::vector<int> low;
	for (const auto &x : enq)
		if (x.second == lo)
			low.push_back(x.first);
	// Of two ranks (lo < hi: one is behind), the other is ahead.
	int ahead = enq.begin()->first == low[0] ? enq.rbegin()->first : enq.begin()->first;
	bool lone_of_two = enq.size() == 2 && seq.count(ahead) && hi > seq.at(ahead);
	// A minority behind must not have enqueued the collective the others
	// wait in: one that did reached it too.
	bool never_reached = hv.seq < 0 || lo < hv.seq;
	if (!lone_of_two && !(low.size() * 2 < enq.size() && never_reached))
		return false;
	hv.suspects = low;
	hv.why = "its last enqueued collective (" + std::to_string(lo) + ") is behind the others' (" + std::to_string(hi) + ")";
	return true;
}

hang_view analyse_watchdogs(const evidence &ev)
{
	hang_view hv;
	std::map<int, long long> enq;     // rank -> last enqueued (min over reports)
	std::map<int, long long> seq;     // rank -> timed-out seq
	std::set<int> reporting;
	std::map<long long, int> seq_count;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.kind != rule_kind::watchdog)
			continue;
		reporting.insert(e.rank);
		if (e.last_enqueued >= 0) {
			auto it = enq.find(e.rank);
			if (it == enq.end() || e.last_enqueued < it->second)
				enq[e.rank] = e.last_enqueued;
		}
		if (e.seq >= 0) {
			seq[e.rank] = e.seq;
			seq_count[e.seq]++;
		}
	}
	hv.reporting_ranks = reporting;
	if (!seq_count.empty())
		hv.seq = std::max_element(seq_count.begin(), seq_count.end(),
					  [](auto &a, auto &b) { return a.second < b.second; })->first;
	// Ranks that wait in different process groups (a pipeline's or a
	// pool's subgroup: "[PG ID 3 PG GUID 7(cross_ab) Rank 1]") count their
	// work apart: sequence numbers, collectives and enqueued work compare
	// within one group only. Who is missing still says something.
	if (!several_groups(ev) && (behind_in_enqueued(enq, seq, hv) || desync(ev, hv)))
		return hv;
	// Who is missing: every other rank of a known world was waiting in a
	// collective (its watchdog reported, or aborted it: SIGABRT). A rank
	// that logged a fault of its own before it aborted died of that fault.
	int world = ev.ranks.world_size();
	if (world >= 2 && hv.reporting() >= 1) {
		std::set<int> waiting = reporting, own_fault;
		for (const auto &e : ev.events)
			if (e.rank >= 0 && e.role == event_role::initiating && !e.dropped && !e.decoy)
				own_fault.insert(e.rank);
		for (const auto &x : rank_exit_signals(ev))
			if (x.second == 6 && (reporting.count(x.first) || !own_fault.count(x.first)))
				waiting.insert(x.first);
		hv.waiting = waiting;
		if (static_cast<int>(waiting.size()) == world - 1)
			for (int r = 0; r < world; r++)
				if (!waiting.count(r)) {
					hv.suspects.push_back(r);
					hv.why = "every other rank of " + std::to_string(world) + " was waiting in collective" +
						 (hv.seq >= 0 ? " SeqNum=" + std::to_string(hv.seq) : std::string()) + "; it was not";
				}
		// Every other rank's watchdog said so in words; this one's said
		// nothing, though its end (an abort) looks like theirs: a rank
		// stuck outside the collective, torn down with the rest.
		// In a small world, only where its own output is there to be
		// silent in (a launcher's line of its exit is not its own).
		auto visible = [&](int r) {
			for (const auto &e : ev.events)
				if (e.rank == r && e.kind != rule_kind::task_exit)
					return true;
			for (const auto &m : ev.rank_progress)
				if (m.id == r && (!m.is_task || ev.tasks_are_ranks))
					return true;
			return false;
		};
		if (hv.suspects.empty() && static_cast<int>(waiting.size()) == world &&
		    static_cast<int>(reporting.size()) == world - 1)
			for (int r = 0; r < world; r++)
				if (!reporting.count(r) && (world >= 4 || visible(r))) {
					hv.suspects.push_back(r);
					hv.why = "every other rank of " + std::to_string(world) +
						 " reported a watchdog timeout" +
						 (hv.seq >= 0 ? " in SeqNum=" + std::to_string(hv.seq) : std::string()) +
						 "; it reported none";
				}
	}
	return hv;
}

// The rank behind in training steps: every rank logs the step it is at,
// and the one that stopped logged an earlier step than all the others
// (stuck before the collective they wait in: its data loader, a branch of
// its own). Only steps of one kind of line compare.
void behind_in_steps(const evidence &ev, hang_view &hv)
{
	std::map<const rule *, std::map<int, long long>> by_rule;
	for (const auto &m : ev.rank_steps) {
		if (m.is_task && !ev.tasks_are_ranks)
			continue;
		long long &v = by_rule[m.r].emplace(m.id, m.step).first->second;
		v = std::max(v, m.step);
	}
	const std::map<int, long long> *most = nullptr;
	for (const auto &g : by_rule)
		if (!most || g.second.size() > most->size())
			most = &g.second;
	if (!most || most->size() < 3)
		return;
	long long common = -1;
	std::vector<int> odd = minority(*most, common);
	if (odd.empty())
		return;
	for (int r : odd)
		if (most->at(r) >= common)
			return; // ahead of the others: not a rank that stopped
	hv.suspects = odd;
	for (int r : odd)
		hv.suspect_why.push_back("its last logged step is " + std::to_string(most->at(r)) +
					 " where every other rank reached step " + std::to_string(common));
	hv.why = hv.suspect_why.front();
}

// The rank whose last progress is clearly the earliest: within one file,
// the others carried on well past it while it printed nothing more.
void earliest_progress(const evidence &ev, hang_view &hv)
{
	std::map<uint32_t, std::vector<std::pair<int64_t, int>>> by_file;
	for (const auto &m : ev.rank_progress) {
		if (m.is_task && !ev.tasks_are_ranks)
			continue;
		by_file[m.file].emplace_back(m.us, m.id);
	}
	for (auto &f : by_file) {
		auto &v = f.second;
		if (v.size() < 3)
			continue;
		std::sort(v.begin(), v.end());
		int64_t gap = v[1].first - v[0].first, spread = v.back().first - v[1].first;
		if (gap >= 10 * us_per_s && gap > 3 * spread) {
			hv.suspects = {v[0].second};
			hv.suspect_why = {"its last progress is " + std::to_string(gap / us_per_s) +
					  " s before every other rank's"};
			hv.why = hv.suspect_why.front();
			return;
		}
	}
}

// TORCH_DISTRIBUTED_DEBUG=DETAIL's mismatch reports each name two ranks,
// the reporter and the one it compared with: the rank in every pair, of
// three or more reporters, is the one whose collective differs.
void mismatch_pairs(const evidence &ev, hang_view &hv)
{
	std::map<int, int> named; // rank -> in how many reporters' pairs
	std::set<int> reporters;
	for (const auto &e : ev.events) {
		std::string peer = e.capture("mismatch_peer");
		if (e.dropped || e.rank < 0 || peer.empty() || !reporters.insert(e.rank).second)
			continue;
		int p = atoi(peer.c_str());
		named[e.rank]++;
		if (p != e.rank)
			named[p]++;
	}
	if (reporters.size() < 3)
		return;
	std::vector<int> in_all;
	for (const auto &x : named)
		if (x.second == static_cast<int>(reporters.size()))
			in_all.push_back(x.first);
	if (in_all.size() != 1)
		return;
	hv.suspects = in_all;
	hv.suspect_why = {"each of " + std::to_string(reporters.size()) +
			  " ranks' collective mismatch reports names it: its collective differs from theirs"};
	hv.why = hv.suspect_why.front();
}

// No world size in the logs: the ranks they name show at least one. A
// flood of timeouts (three or more) with a single gap below the highest
// rank named singles that gap out, unless the steps it logged put it
// ahead of the others (it went past the collective they wait in). The
// world may be larger, but a rank beyond the highest is then silent too.
void missing_from_named_world(const evidence &ev, hang_view &hv)
{
	if (ev.ranks.world_size() >= 2 || hv.reporting_ranks.size() < 3)
		return;
	int top = -1;
	for (const auto &e : ev.events)
		top = std::max(top, e.rank);
	for (const auto &m : ev.rank_progress)
		if (!m.is_task || ev.tasks_are_ranks)
			top = std::max(top, m.id);
	if (static_cast<int>(hv.reporting_ranks.size()) != top)
		return;
	int gap = -1;
	for (int r = 0; r <= top && gap < 0; r++)
		if (!hv.reporting_ranks.count(r))
			gap = r;
	if (gap < 0)
		return;
	long long gap_step = -1, others_step = -1;
	for (const auto &m : ev.rank_steps) {
		if (m.is_task && !ev.tasks_are_ranks)
			continue;
		if (m.id == gap)
			gap_step = std::max(gap_step, m.step);
		else
			others_step = std::max(others_step, m.step);
	}
	if (gap_step >= 0 && gap_step > others_step)
		return;
	hv.suspects = {gap};
	hv.suspect_why = {"every other rank of at least " + std::to_string(top + 1) + " was waiting in collective" +
			  (hv.seq >= 0 ? " SeqNum=" + std::to_string(hv.seq) : std::string()) + "; it was not"};
	hv.why = hv.suspect_why.front();
}

} // namespace

hang_view ranks_behind_in_steps(const evidence &ev)
{
	hang_view hv;
	behind_in_steps(ev, hv);
	return hv;
}

bool gap_counts(const evidence &ev, const round_gap &g)
{
	return !g.is_task || ev.tasks_are_ranks;
}

hang_view rank_missing_from_rounds(const evidence &ev)
{
	hang_view hv;
	const round_gap *gap = nullptr;
	for (const auto &g : ev.round_gaps) {
		if (!gap_counts(ev, g))
			continue;
		if (gap && gap->rank != g.rank)
			return hv; // kinds of line that disagree single no one out
		if (!gap || g.ranks > gap->ranks)
			gap = &g;
	}
	if (!gap)
		return hv;
	hv.suspects = {gap->rank};
	hv.suspect_why = {"it stopped printing \"" + gap->sample + "\" while each of the other " +
			  std::to_string(gap->ranks - 1) + " ranks printed it at least twice more"};
	hv.why = hv.suspect_why.front();
	return hv;
}

// Whether the logs hold nothing but the hang: no fault of any rank, no
// process of a rank other than the reporter that ended by an exit code or
// a signal of its own.
static bool only_a_hang(const evidence &ev, int reporter)
{
	for (const auto &e : ev.events) {
		if (e.dropped || e.decoy || e.handled)
			continue;
		if (e.role == event_role::initiating)
			return false;
		if (e.kind == rule_kind::task_exit && e.rank >= 0 && e.rank != reporter && (e.exitcode > 0 || e.signal > 0))
			return false;
	}
	return true;
}

void pass_hang_structure(diagnosis_context &cx)
{
	cx.hv = analyse_watchdogs(cx.ev);
	hang_view &hv = cx.hv;
	if (hv.suspects.empty())
		mismatch_pairs(cx.ev, hv);
	if (hv.suspects.empty() && hv.reporting() > 0)
		behind_in_steps(cx.ev, hv);
	if (hv.suspects.empty() && hv.reporting() > 0)
		earliest_progress(cx.ev, hv);
	if (hv.suspects.empty())
		missing_from_named_world(cx.ev, hv);
	if (hv.suspects.empty() && hv.reporting() > 0) {
		hang_view rounds = rank_missing_from_rounds(cx.ev);
		if (!rounds.suspects.empty()) {
			hv.suspects = rounds.suspects;
			hv.suspect_why = rounds.suspect_why;
			hv.why = rounds.why;
		}
	}
	// One rank of three or more waited in a collective, and none of the
	// others ever did: they had finished or moved on, and the one that
	// entered a collective alone (an extra barrier, a save only it ran)
	// is the rank that differs.
	// (Only a hang and nothing else: no fault, no process of another rank
	// that ended on its own.)
	if (hv.suspects.empty() && hv.reporting_ranks.size() == 1 && hv.stall_reports == 0 &&
	    hv.waiting.size() <= 1 && cx.ev.ranks.world_size() >= 3 && only_a_hang(cx.ev, *hv.reporting_ranks.begin())) {
		hv.suspects.push_back(*hv.reporting_ranks.begin());
		hv.suspect_why.push_back("the only rank that waited in a collective; the others never entered it");
		hv.why = hv.suspect_why.back();
	}
	if (cx.fr.present && !cx.fr.suspects.empty() && hv.suspects.empty()) {
		hv.suspects = cx.fr.suspects;
		hv.suspect_why = cx.fr.suspect_why;
		hv.why = hv.suspect_why.empty() ? "the flight recorder singles it out" : hv.suspect_why.front();
	}
	cx.d.hang_reporting = hv.reporting();
	cx.d.hang_seq = hv.seq;
	for (const auto &r : cx.fr.refused)
		cx.d.refused.push_back(refused_file{r.first, r.second});
}

} // namespace diag
