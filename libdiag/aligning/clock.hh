// One clock for all hosts: every event's timestamp resolved to UTC with its
// host's context, then corrected by the host's estimated offset, estimated
// from moments that were simultaneous across hosts.
#pragma once

#include "model/evidence.hh"

#include <map>
#include <utility>
#include <vector>

namespace diag {

struct host_clock {
	double offset_s = 0;       // host clock minus common clock, at report_time_s
	double uncertainty_s = 0;  // how far off the offset may be
	int anchors = 0;           // how many simultaneous moments backed it
	double drift_ppm = 0;      // how fast the offset grows (0 unless the anchors span a while)
	double t0_s = 0;           // the offset is offset_at_t0 + drift * (t - t0)
	double offset_at_t0 = 0;
	double offset_at(double t_s) const { return offset_at_t0 + drift_ppm * 1e-6 * (t_s - t0_s); }
};

struct clock_result {
	std::map<int, host_clock> hosts; // by host id
	double default_uncertainty_s = 2.0; // for hosts with nothing to align on
	bool aligned = false;               // at least two hosts shared an anchor
	int64_t reference_us = no_time;     // the instant used for year inference
	int zone_offset_s = 0;              // zone used for local times without one
	bool zone_inferred = false;         // ... found by lining local times up with absolute ones
	double uncertainty(int host) const;
};

struct clock_options {
	int default_tz_offset_s = 0;
	bool tz_given = false; // the zone was configured: do not infer it
};

// Resolves every event's ts to raw_us (host clock, UTC).
void resolve_times(evidence &ev, const clock_options &opts, clock_result &cr);

// Resolves times, estimates each host's offset from moments seen on several
// hosts (watchdog timeouts of one collective, NCCL communicator init, and
// rank_anchors: collectives the flight recorder saw complete, as (rank, µs)
// points), and sets time_us on the common clock.
clock_result align_clocks(evidence &ev, const clock_options &opts,
			  const std::vector<std::vector<std::pair<int, int64_t>>> &rank_anchors = {});

} // namespace diag
