// Who is missing from a round: ranks that print the same line in turn
// ("rank 3, fetch sample 8935", "[rank3]: step 120 ..."), once per step
// or batch, keep in lockstep while the job runs. A rank that stopped
// printing while every other rank printed its line twice more after its
// last one stopped taking part (issue 11's hangs: who is missing). Read
// by line order within one file, so it needs no timestamps.
#pragma once

#include "model/evidence.hh"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace diag {

class rank_rounds {
public:
	// A line of rank's whose text (its prefix taken off) is body.
	void note(std::string_view body, int rank, uint64_t line);
	// At the file's end: each kind of line that singles one rank out.
	void conclude(uint32_t file, std::vector<round_gap> &out) const;
	// The most ranks that printed one kind of line twice or more: ranks
	// seen taking part, where nothing else names them.
	int most_ranks() const;

private:
	struct rank_lines {
		int count = 0;
		uint64_t first = 0;
		uint64_t last[3] = {0, 0, 0}; // its newest lines, newest first
	};
	struct line_kind {
		std::string sample; // the first such line, for the verdict's words
		std::unordered_map<int, rank_lines> ranks;
	};
	std::unordered_map<uint64_t, line_kind> kinds;
};

} // namespace diag
