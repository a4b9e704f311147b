// A hang's culprits as a stall report names them: Horovod's stall
// inspector lists the ranks that never submitted a collective the others
// wait in (horovod.yaml, capture missing_rank). Runs after the hang's own
// structure and fills in only where that singles out nobody.
#include "deciding/context.hh"
#include "deciding/exits.hh"
#include "reading/timestamp.hh"

#include <algorithm>
#include <climits>
#include <cctype>
#include <set>
#include <string>

namespace diag {

namespace {

// "0, 6" or "3" -> the ranks.
void add_ranks(const std::string &list, std::set<int> &out)
{
	long long n = -1;
	for (char c : list + ",") {
		if (std::isdigit(static_cast<unsigned char>(c))) {
			n = (n < 0 ? 0 : n * 10) + (c - '0');
			if (n > 1000000)
				return;
		} else if (n >= 0) {
			out.insert(static_cast<int>(n));
			n = -1;
		}
	}
}

// Whether the job went on making progress long after the report (its
// file's last progress line ten minutes or more later): the stall cleared
// (a rank evaluating alone, then the collective went on), something the
// job survived, not what stopped it. (A rank that finishes its own work
// just after the report, then leaves, is no such progress.)
bool progress_long_after(const evidence &ev, const event &report)
{
	constexpr int64_t cleared_us = 10LL * 60 * 1000000;
	if (report.ts.kind == ts_kind::none)
		return false;
	const int64_t at = file_local_us(report.ts);
	for (const auto &p : ev.last_progress) {
		if (static_cast<uint32_t>(p.first >> 32) != report.file || p.second <= report.line)
			continue;
		auto us = ev.last_progress_us.find(p.first);
		if (us != ev.last_progress_us.end() && us->second - at >= cleared_us)
			return true;
	}
	return false;
}

// torch's store-based barrier: where ranks waited with fewer arrived than
// the world (worker_count below world_size), the ranks that never added
// the barrier's key. Returns the number of waiting reports (0: none).
int barrier_missing(const evidence &ev, std::set<int> &missing)
{
	std::string key;
	int world = 0, reports = 0;
	for (const auto &e : ev.events) {
		if (e.dropped || e.capture("barrier_world").empty() || progress_long_after(ev, e))
			continue;
		long long w = 0, joined = 0;
		if (!parse_uint_str(e.capture("barrier_world"), w) || !parse_uint_str(e.capture("barrier_joined"), joined) ||
		    joined >= w || w > 1000000)
			continue;
		if (!key.empty() && key != e.capture("barrier_key"))
			return 0; // two barriers short at once: no one answer
		key = e.capture("barrier_key");
		world = static_cast<int>(w);
		reports++;
	}
	if (reports == 0)
		return 0;
	std::set<int> arrived;
	for (const auto &e : ev.events)
		if (!e.dropped && e.rank >= 0 && e.capture("barrier_key") == key)
			arrived.insert(e.rank); // it added the key, or waits having added it
	if (arrived.empty() || static_cast<int>(arrived.size()) >= world)
		return 0;
	for (int r = 0; r < world; r++)
		if (!arrived.count(r))
			missing.insert(r);
	return reports;
}

} // namespace

bool names_stalled_ranks(const event &e)
{
	return !e.capture("missing_rank").empty() || (e.has_capture("stall_list") && e.task >= 0);
}

bool stall_report_names(const event &e, int r)
{
	if (e.has_capture("stall_list") && e.capture("missing_rank").empty())
		return e.task == r;
	std::set<int> named;
	add_ranks(e.capture("missing_rank"), named);
	return named.count(r) > 0;
}

void pass_stall_report(diagnosis_context &cx)
{
	hang_view &hv = cx.hv;
	if (!hv.suspects.empty())
		return;
	std::set<int> missing;
	// Ranks the inspector marked stalled past its shutdown time ("3!: "):
	// the others listed miss only what those hold up.
	std::set<int> marked;
	std::set<int> reporters; // the ranks whose reports named the missing
	int reports = 0;
	bool other_reporter = false; // a report not Horovod's (JAX's coordination service)
	// A stall the inspector kept reporting narrows as ranks catch up
	// ("missing ranks: 0, 1, 3, 4", later "missing ranks: 4"): the latest
	// report (its second, every tensor listed then) names who is still
	// missing.
	// (With no times on the lines: the last run of report lines in the
	// file, one after another; the inspector's next report, a line or two
	// of its header apart, is another run.)
	int64_t latest = INT64_MIN;
	const event *last = nullptr;
	// The coordination service's start-up barrier lists the processes that
	// never connected. Several are the nodes never started (the scheduler's,
	// not one process's); one alone, among processes that all registered,
	// is the one that failed or came too late.
	const bool at_start = cx.best.e && cx.best.e->cls == failure_class::launch_failure;
	std::set<int> never_registered;
	if (at_start)
		for (const auto &e : cx.ev.events)
			if (!e.dropped && e.r && e.r->family != "horovod" && !e.capture("missing_rank").empty())
				add_ranks(e.capture("missing_rank"), never_registered);
	const bool start_report_ok = never_registered.size() == 1;
	auto report = [&](const event &e) {
		return !e.dropped && names_stalled_ranks(e) && !progress_long_after(cx.ev, e) &&
		       !(at_start && e.r && e.r->family != "horovod" && !start_report_ok);
	};
	for (const auto &e : cx.ev.events)
		if (report(e)) {
			if (e.time_us != no_time)
				latest = std::max(latest, e.time_us);
			if (!last || (e.file == last->file && e.line > last->line))
				last = &e;
		}
	uint64_t run_start = last ? last->line : 0;
	if (latest == INT64_MIN && last)
		for (bool grew = true; grew;) {
			grew = false;
			for (const auto &e : cx.ev.events)
				if (!e.dropped && e.file == last->file && names_stalled_ranks(e) && e.line < run_start &&
				    run_start - e.line <= 1) {
					run_start = e.line;
					grew = true;
				}
		}
	for (const auto &e : cx.ev.events) {
		if (e.dropped || progress_long_after(cx.ev, e))
			continue;
		if (names_stalled_ranks(e) && !report(e))
			continue;
		// (Only the latest report: an earlier stall the job stepped past
		// named others.)
		if (names_stalled_ranks(e) &&
		    (latest != INT64_MIN ? e.time_us != no_time && latest - e.time_us > 1000000
					 : last && (e.file != last->file || e.line < run_start)))
			continue;
		std::string m = e.capture("missing_rank");
		bool list = std::any_of(e.captures.begin(), e.captures.end(),
					[](const auto &c) { return c.first == "stall_list"; });
		if (m.empty() && list && e.task >= 0)
			m = std::to_string(e.task); // "3: [tensors]": the label is the rank
		// "[ready ranks: ...]" (before Horovod 0.15): the rest of a known
		// world never submitted.
		std::string ready = e.capture("ready_ranks");
		int world = cx.ev.ranks.world_size();
		if (m.empty() && !ready.empty() && world >= 2) {
			std::set<int> in;
			add_ranks(ready, in);
			if (in.empty())
				continue; // (a number too large to be a rank)
			if (in.size() < static_cast<size_t>(world) && *in.rbegin() < world)
				for (int r = 0; r < world; r++)
					if (!in.count(r))
						missing.insert(r);
			reports++;
			continue;
		}
		if (m.empty())
			continue;
		add_ranks(m, missing);
		if (!e.capture("stalled_mark").empty())
			add_ranks(m, marked);
		reports++;
		reporters.insert(e.rank);
		if (e.r && e.r->family != "horovod")
			other_reporter = true;
	}
	// One rank reporting every other rank of a world of three or more
	// missing at once: all the others did not fail together; the reporter
	// is the one apart from them (the coordinator cut off from its tasks,
	// the rank that alone entered a collective).
	const int world = std::max(cx.ev.ranks.world_size(), cx.ev.round_ranks);
	if (reporters.size() == 1 && *reporters.begin() >= 0 && world >= 3 && marked.empty() &&
	    missing.size() == static_cast<size_t>(world - 1) && !missing.count(*reporters.begin()) &&
	    *missing.rbegin() < world) {
		const int r = *reporters.begin();
		hv.suspects.push_back(r);
		hv.suspect_why.push_back("it reported every other rank missing at once: the one apart from the others");
		hv.why = hv.suspect_why.back();
		hv.stall_reports = reports;
		cx.d.hang_reporting = hv.reporting();
		return;
	}
	std::string why = other_reporter ? "the others' reports name it as never having reached the barrier or collective they waited in"
					 : "Horovod's stall inspector names it as missing from a collective the other ranks submitted";
	if (!marked.empty()) {
		missing = marked;
		why = "Horovod's stall inspector marks it stalled past its shutdown time, the other ranks waiting on it";
	}
	if (missing.empty() && (reports = barrier_missing(cx.ev, missing)) > 0)
		why = "it never reached the store-based barrier the other ranks waited in";
	if (missing.empty())
		return;
	for (int r : missing) {
		hv.suspects.push_back(r);
		hv.suspect_why.push_back(why);
	}
	hv.why = why;
	hv.stall_reports = reports;
	cx.d.hang_reporting = hv.reporting();
}

} // namespace diag
