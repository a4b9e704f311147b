// One thing a log said that matters to the diagnosis, on its way from a
// reader to the timeline.
#pragma once

#include "model/failure_class.hh"
#include "matching/signature.hh"
#include "reading/timestamp.hh"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace diag {

constexpr int64_t no_time = INT64_MIN;

struct event {
	const rule *r = nullptr;       // the signature (nullptr: synthetic)
	std::string rule_id;           // for synthetic events (sacct, error.json, ...)
	failure_class cls = failure_class::unknown;
	event_role role = event_role::context;
	rule_kind kind = rule_kind::plain;
	int weight = 50;

	int rank = -1;        // global rank when known
	int task = -1;        // srun label (resolved to a rank later when labels are ranks)
	int local_rank = -1;
	int pid = -1;
	int cuda_dev = -1;    // the CUDA device an NCCL prefix names ("[3]")
	int host = -1;        // interned host id
	uint32_t file = 0;    // source index
	uint64_t line = 0;    // 1-based line number
	uint64_t chained_until = 0; // a chained exception's last link (0: none): one failure up to that line
	uint64_t order = 0;   // arrival order, for deterministic ties
	uint32_t key = 0;     // per-file writer key (rank/label), for traceback state
	bool writer_known = false; // the line named its writer (a prefix); else key is shared

	ts_value ts;              // what the line said, or (inherited) the last time before it
	ts_value ts_hi;           // inherited: the first time after it in the same file
	int64_t raw_us = no_time; // on the host's own clock, UTC
	bool inherited_time = false; // the line had no time: it lies between ts and ts_hi
	double time_unc_s = 0;       // half the width of that interval
	int64_t time_us = no_time;   // corrected to the common clock
	int64_t not_before_raw_us = no_time; // untimed, but after this (its last stamped line; host clock, UTC)

	// Facts captured by the signature.
	long long seq = -1, last_enqueued = -1, last_completed = -1;
	int xid = -1, recovery_action = -1, exitcode = INT32_MIN, signal = -1;
	std::vector<std::pair<std::string, std::string>> captures;
	std::string text;    // the cleaned line, capped
	std::string why_not; // why relevance set it aside (survived, before the job), for the notes
	bool decoy = false;  // caught and carried on: not a root
	bool handled = false; // the line, or the next on its writer, says it was dealt with (retry, skip, recover)
	bool at_startup = false; // the line names code that runs only while the job starts (a startup rule), or ends a traceback through it
	bool dropped = false;
	// A reading repeated (a wait still reported): how many separate runs of
	// it its writer printed up to this one (runs: more than one other line apart).
	int reading_runs = 1;

	// Whether the rule's group of that name took part in the match (an
	// empty marker group, "(?<link_down>)", says a fact by its presence).
	bool has_capture(const std::string &name) const
	{
		for (const auto &c : captures)
			if (c.first == name)
				return true;
		return false;
	}

	std::string capture(const std::string &name) const
	{
		for (const auto &c : captures)
			if (c.first == name)
				return c.second;
		return {};
	}

	// How far either side of time_us a line with no time of its own may
	// lie (half the gap between its neighbours' stamps; 0 for a stamped one).
	int64_t time_spread_us() const { return static_cast<int64_t>(time_unc_s * 1e6); }
};

} // namespace diag
