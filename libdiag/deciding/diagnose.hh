// The reasoning: which event started the failure, who suffered from it, and
// what to do next. Roles (initiating vs victim), structure (sequence
// numbers, who is missing, who was killed) and the corrected clock decide;
// the most frequent error is usually a victim and never wins by count.
#pragma once

#include "aligning/clock.hh"
#include "model/evidence.hh"
#include "deciding/knowledge.hh"
#include "rendering/verdict.hh"

#include <string>
#include <vector>

namespace diag {

// What the flight recorder analysis contributes (filled by the pipeline).
struct hang_structure {
	bool present = false;
	std::vector<int> suspects;   // ranks missing from / stuck before the collective others wait in
	std::vector<std::string> lines; // human summary lines (evidence)
	std::string source;          // file that gave it
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

// Fills in ranks, hosts and pids that a line did not name from the rank
// map and the other lines (run before clock alignment, which works per host).
void resolve_identities(evidence &ev);

verdict diagnose(diagnosis_input &in);

bool parse_uint_str(const std::string &s, long long &out);
// srun's task lists: "0,2-7" -> 0 2 3 4 5 6 7.
std::vector<int> parse_task_list(const std::string &s);

} // namespace diag
