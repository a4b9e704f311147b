// A writer's last progress line on the common clock. Progress lines are
// not events and carry their stamp unresolved; an event of the same file
// (the same writer's first) with the same kind of stamp was resolved, and
// the line is as far from that event's time as its stamp is from the
// event's.
#pragma once

#include "model/evidence.hh"

#include <cstdint>
#include <unordered_map>

namespace diag {

class progress_clock {
public:
	explicit progress_clock(const evidence &ev);
	// The mark's time in UTC µs (no_time where no event of its file
	// shares its kind of stamp). host_offset_us: the offset of the mark's
	// host's clock where the caller knows it better than the reference
	// event does (INT64_MIN: take the event's own).
	int64_t time_of(const progress_mark &m, int64_t host_offset_us = INT64_MIN) const;

private:
	std::unordered_map<uint64_t, const event *> by_file_;
	std::unordered_map<uint64_t, const event *> by_writer_;
};

} // namespace diag
