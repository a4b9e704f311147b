// What the diagnosis decided, before it is put into words: the class, the
// event that went first and whose it was, what ties with it, what supports
// it, and the structure behind a hang. The rendering turns it into a verdict.
#pragma once

#include "model/event.hh"

#include <string>
#include <vector>

namespace diag {

struct candidate {
	event *e = nullptr;
	double unc = 0; // seconds the event's time may be off
};

struct suspect_rank {
	int rank = -1;
	int host = -1;
	std::string why;
};

struct refused_file {
	std::string file;
	std::string why;
};

struct decision {
	failure_class cls = failure_class::unknown;
	const event *first = nullptr;   // the initiating event (nullptr: structure only)
	int first_rank = -1;
	int first_host = -1;
	bool rank_singled_out = false;
	int borrowed_rank = -1;         // the first fault named no rank; structure did
	int common_mode = 0;            // ranks that hit the same fault at once
	int common_host = -1;
	bool common_many_hosts = false; // the common fault came from several known nodes
	std::vector<candidate> ties;    // other first faults the clocks cannot order
	std::vector<candidate> support; // corroborating the first (same fault, other words)
	std::string hang_why;           // why the hang's suspect is singled out
	int hang_reporting = 0;
	long long hang_seq = -1;
	std::vector<suspect_rank> suspects; // several singled out (the verdict's "suspects")
	std::vector<refused_file> refused;
	// Where a NaN appeared (nan_origin).
	bool nan_known = false;
	std::string nan_cause; // bad_sample | overflow | gpu | unknown
	long long nan_step = -1;
	bool from_initiator = false;     // decided from an initiating event (else structure only)
	std::string confidence = "low";
	std::vector<std::string> notes; // why confidence is lowered, ties, ...
};

} // namespace diag
