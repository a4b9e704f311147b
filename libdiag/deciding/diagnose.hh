// The reasoning: which event started the failure, who suffered from it, and
// what to do next. Roles (initiating vs victim), structure (sequence
// numbers, who is missing, who was killed) and the corrected clock decide;
// the most frequent error is usually a victim and never wins by count.
#pragma once

#include "aligning/clock.hh"
#include "model/evidence.hh"
#include "deciding/exits.hh"
#include "deciding/knowledge.hh"
#include "rendering/verdict.hh"

#include <string>
#include <vector>

namespace diag {

// What the flight recorder analysis contributes (filled by the pipeline).
struct hang_structure {
	bool present = false;
	std::vector<int> suspects;   // ranks missing from / stuck before the collective others wait in
	std::vector<std::string> suspect_why; // one per suspect
	std::vector<std::string> lines; // human summary lines (evidence)
	std::string source;          // file that gave it
	std::vector<std::pair<std::string, std::string>> refused; // dump file, why it was not read
	// Collectives completed on several ranks: (rank, UTC µs on that rank's
	// host clock) points of one true moment, for clock alignment.
	std::vector<std::vector<std::pair<int, int64_t>>> anchors;
};

struct diagnosis_input {
	evidence *ev = nullptr;
	const knowledge *kn = nullptr;
	const clock_result *clock = nullptr;
	hang_structure fr;
};

// The host a rank ran on: the rank map, its own lines, else the job's layout.
int rank_host(evidence &ev, int rank);

// Runs the passes of context.hh in order and words the verdict.
verdict diagnose(diagnosis_input &in);


} // namespace diag
