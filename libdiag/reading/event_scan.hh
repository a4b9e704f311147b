// Event-first reading: which lines of a large text file are worth reading
// at all. Most of a training log is progress, and only each writer's last
// progress line matters; the rest that matters are the faults. So instead of
// reading every line:
//  - a forward scan over whole buffers for the fault literals only (see
//    rule_set::scan_fault_literals), line boundaries found only around hits
//    and line numbers by counting newlines (ripgrep's approach);
//  - a backward read of the file's tail for each writer's last progress,
//    stopping once every writer known so far has been seen and what the
//    faults need is covered (bounded by a byte budget);
//  - around each of those lines, the few lines its reading depends on: the
//    three before it (a rank named just before a traceback), the nearest
//    timed line before it, its writer's, and the first timed line after it
//    (the times an untimed line inherits). The forward scan notes each
//    block's first and last timed line, so these walks jump over blocks
//    without a time instead of reading them again.
// The caller reads the chosen lines in order as it would read every line.
#pragma once

#include "matching/signature.hh"
#include "model/evidence.hh"

#include <cstdint>
#include <vector>

namespace diag {

struct chosen_line {
	uint64_t off;     // byte offset of the line in the file
	uint32_t len;     // without its '\n'
	uint64_t line_no; // 1-based, as line_reader counts
};

struct event_scan_stats {
	double scan_s = 0, tail_s = 0, context_s = 0; // forward scan, backward tail read, lines around
	uint64_t hits = 0, tail_bytes = 0;
};

// Fills out (ascending line numbers, each line once) for the regular file
// fd of size bytes (from 1 MiB on, in two halves on two threads where the
// CPUs allow and may_split; the choice is the same either way). False when
// the file is not one this serves (then it must be read line by line): a
// rule without literals, a line longer than max_line, far too many fault
// lines, a read error.
bool choose_lines(int fd, uint64_t size, source_kind kind, rule_set &rules, size_t max_line,
		  std::vector<chosen_line> &out, event_scan_stats &stats, bool may_split = true);

// What choose_lines gave for one file, when it was run ahead of the
// reading (reading/file_prefetch.hh).
struct chosen_lines {
	bool served = false; // choose_lines' answer
	std::vector<chosen_line> lines;
	event_scan_stats stats;
};

// Whether a file of this size is read event-first (small ones are cheap to
// read line by line; DENPEX_EVENT_SCAN_MIN overrides the threshold, for
// tests that compare the two ways on small files).
bool event_scan_pays(uint64_t size);

} // namespace diag
