// Who is missing from a round: ranks that print the same line in turn
// ("rank 3, fetch sample 8935", "[rank3]: step 120 ..."), once per step
// or batch, keep in lockstep while the job runs. A rank that stopped
// printing while every other rank printed its line twice more after its
// last one stopped taking part (issue 11's hangs: who is missing). Read
// by line order within one file, so it needs no timestamps.
#pragma once

#include "model/evidence.hh"
#include "reading/timestamp.hh"

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace diag {

class rank_rounds {
public:
	// A line of rank's whose text (its prefix taken off) is body; ts, the
	// line's own stamp where it has one.
	void note(std::string_view body, int rank, uint64_t line, const ts_value *ts = nullptr);
	// At the file's end: each kind of line that singles one rank out.
	void conclude(uint32_t file, std::vector<round_gap> &out) const;
	// At the file's end: the one rank, if any, whose last lines were a
	// phase of its own (lone_phase).
	void conclude_lone_phase(uint32_t file, bool is_task, std::vector<lone_phase> &out) const;
	// At the file's end: the one rank, if any, that printed a kind of
	// line once more than every other, in step until then (ahead_round).
	void conclude_ahead(uint32_t file, bool is_task, std::vector<ahead_round> &out) const;
	// The most ranks that printed one kind of line twice or more: ranks
	// seen taking part, where nothing else names them.
	int most_ranks() const;

private:
	struct rank_lines {
		int count = 0;
		uint64_t first = 0;
		uint64_t last[3] = {0, 0, 0}; // its newest lines, newest first
		// Their own times (file-local µs, INT64_MIN: none), and the
		// newest one's reckoning.
		int64_t last_us[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
		ts_kind stamp_kind = ts_kind::none;
		bool stamp_year = false;
	};
	struct line_kind {
		std::string sample; // the first such line, for the verdict's words
		std::unordered_map<int, rank_lines> ranks;
	};
	std::unordered_map<uint64_t, line_kind> kinds;
	// Per rank, its newest lines (newest first): their kind, line and own
	// time (file-local µs, INT64_MIN: none).
	static constexpr size_t recent_lines = 4;
	struct recent_line {
		uint64_t kind = 0;
		uint64_t line = 0;
		int64_t us = INT64_MIN;
		ts_kind stamp_kind = ts_kind::none;
		bool stamp_year = false;
	};
	struct rank_recent {
		recent_line lines[recent_lines];
		size_t n = 0;
	};
	std::unordered_map<int, rank_recent> recent;
	bool kinds_full = false; // a kind was not kept: newest lines missed
};

} // namespace diag
