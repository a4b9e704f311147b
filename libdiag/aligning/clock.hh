// One clock for all hosts: every event's timestamp resolved to UTC with its
// host's context, then corrected by the host's estimated offset, estimated
// from moments that were simultaneous across hosts.
#pragma once

#include "model/evidence.hh"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace diag {

// Where a host's offset came from: measured by the plugin at the step's
// launch (its records), inferred from moments the logs show on several
// hosts, or none (nothing to align it on: 0, with the default uncertainty).
enum class clock_basis { none, inferred, measured };
const char *clock_basis_name(clock_basis b);

struct host_clock {
	double offset_s = 0;       // host clock minus common clock, at report_time_s
	double uncertainty_s = 0;  // how far off the offset may be
	int anchors = 0;           // how many simultaneous moments backed it
	double drift_ppm = 0;      // how fast the offset grows (0 unless the anchors span a while)
	double t0_s = 0;           // the offset is offset_at_t0 + drift * (t - t0)
	double offset_at_t0 = 0;
	clock_basis basis = clock_basis::none;
	double offset_at(double t_s) const { return offset_at_t0 + drift_ppm * 1e-6 * (t_s - t0_s); }
};

struct clock_result {
	std::map<int, host_clock> hosts; // by host id
	double default_uncertainty_s = 2.0; // for hosts with nothing to align on
	bool aligned = false;               // at least two hosts shared an anchor
	int64_t reference_us = no_time;     // the instant used for year inference
	int zone_offset_s = 0;              // zone used for local times without one
	bool zone_inferred = false;         // ... found by lining local times up with absolute ones
	std::string zone_name;              // ... or the abbreviation the job's output stated ("JST")
	bool zone_from_audit = false;       // ... or what the nodes' audit records give (their wall time beside the stamp)
	std::map<int, int> measured_zones;  // host -> UTC offset (s) its plugin records give
	double uncertainty(int host) const;
};

struct clock_options {
	int default_tz_offset_s = 0;
	bool tz_given = false; // the zone was configured: do not infer it
	// Zone abbreviations -> UTC offset (s) (conf/zones.yaml): a zone the
	// job's output states (a zone_name rule) is read with it.
	const std::map<std::string, int> *zone_names = nullptr;
};

// Resolves every event's ts to raw_us (host clock, UTC).
void resolve_times(evidence &ev, const clock_options &opts, clock_result &cr);

// Resolves times, estimates each host's offset and sets time_us on the
// common clock. A host the plugin's records measured (its clock when srun
// launched a step, against the other nodes' clocks then) takes that
// offset; the others are inferred from moments seen on several hosts
// (watchdog timeouts of one collective, NCCL communicator init, and
// rank_anchors: collectives the flight recorder saw complete, as (rank, µs)
// points), placed against the measured hosts when there are any. Local
// times are read in the zone the host's records give, when they give one
// and no zone was configured.
clock_result align_clocks(evidence &ev, const clock_options &opts,
			  const std::vector<std::vector<std::pair<int, int64_t>>> &rank_anchors = {});

} // namespace diag
