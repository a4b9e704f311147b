// One clock for all hosts: every event's timestamp resolved to UTC with its
// host's context, then corrected by the host's estimated offset, estimated
// from moments that were simultaneous across hosts.
#pragma once

#include "evidence.hh"

#include <map>

namespace diag {

struct host_clock {
	double offset_s = 0;       // host clock minus common clock
	double uncertainty_s = 0;  // how far off the offset may be
	int anchors = 0;           // how many simultaneous moments backed it
};

struct clock_result {
	std::map<int, host_clock> hosts; // by host id
	double default_uncertainty_s = 2.0; // for hosts with nothing to align on
	bool aligned = false;               // at least two hosts shared an anchor
	int64_t reference_us = no_time;     // the instant used for year inference
	double uncertainty(int host) const;
};

struct clock_options {
	int default_tz_offset_s = 0;
};

// Resolves every event's ts to raw_us (host clock, UTC), estimates offsets
// and sets time_us.
clock_result align_clocks(evidence &ev, const clock_options &opts);

} // namespace diag
