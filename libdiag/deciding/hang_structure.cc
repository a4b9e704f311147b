// Who stopped, from the structure of a hang: the rank that enqueued less
// than everyone else, the one rank of a known world missing from a flood
// of timeouts, and what the flight recorder found.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"
#include "deciding/exits.hh"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

namespace diag {

namespace {

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
	hv.reporting = static_cast<int>(reporting.size());
	if (!seq_count.empty())
		hv.seq = std::max_element(seq_count.begin(), seq_count.end(),
					  [](auto &a, auto &b) { return a.second < b.second; })->first;
	// Lowest last-enqueued: the rank that never reached the collective.
	if (enq.size() >= 2) {
		long long lo = LLONG_MAX, hi = LLONG_MIN;
		for (const auto &x : enq) {
			lo = std::min(lo, x.second);
			hi = std::max(hi, x.second);
		}
		if (lo < hi) {
			std::vector<int> low;
			for (const auto &x : enq)
				if (x.second == lo)
					low.push_back(x.first);
			if (low.size() * 2 < enq.size()) {
				hv.suspects = low;
				hv.why = "its last enqueued collective (" + std::to_string(lo) + ") is behind the others' (" +
					 std::to_string(hi) + ")";
				return hv;
			}
		}
	}
	// Who is missing: every other rank of a known world was waiting in a
	// collective (its watchdog reported, or aborted it: SIGABRT).
	int world = ev.ranks.world_size();
	if (world >= 2 && hv.reporting >= 1) {
		std::set<int> waiting = reporting;
		for (const auto &x : rank_exit_signals(ev))
			if (x.second == 6)
				waiting.insert(x.first);
		if (static_cast<int>(waiting.size()) == world - 1)
			for (int r = 0; r < world; r++)
				if (!waiting.count(r)) {
					hv.suspects.push_back(r);
					hv.why = "every other rank of " + std::to_string(world) +
						 " was waiting in collective" +
						 (hv.seq >= 0 ? " SeqNum=" + std::to_string(hv.seq) : std::string()) + "; it was not";
				}
	}
	return hv;
}

} // namespace

void pass_hang_structure(diagnosis_context &cx)
{
	cx.hv = analyse_watchdogs(cx.ev);
	hang_view &hv = cx.hv;
	if (cx.fr.present && !cx.fr.suspects.empty() && hv.suspects.empty()) {
		hv.suspects = cx.fr.suspects;
		hv.why = "the flight recorder shows it never joined the collective the others wait in";
	}
	cx.d.hang_reporting = hv.reporting;
	cx.d.hang_seq = hv.seq;
}

} // namespace diag
