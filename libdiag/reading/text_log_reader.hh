// Reader for line-oriented logs: combined job output, NCCL debug files and
// kernel logs. Each line is cleaned, its writer identified from prefixes,
// matched against the signatures, and turned into an event with its time.
#pragma once

#include "model/evidence.hh"
#include "matching/signature.hh"
#include "reading/timestamp.hh"

namespace diag {

// Reads one text source into ev. kind picks which signatures apply
// (job log, NCCL file or kernel log). ahead: the lines chosen for this very
// file beforehand (on another thread), else null. Returns false only on a
// read error.
bool read_text_log(class line_reader &lr, uint32_t file, source_kind kind, rule_set &rules, evidence &ev,
		   struct chosen_lines *ahead = nullptr);

// Where the reading of text sources went, summed over the sources read so
// far in this process (DENPEX_TIMING prints it): the forward scan for fault
// lines, the backward reads of files' tails for each writer's last
// progress, the search for the lines around those that their reading
// depends on (context), the reading of the lines so chosen, and
// sources read line by line (those the scan does not serve).
struct text_read_times {
	double scan_s = 0, tail_s = 0, context_s = 0, chosen_s = 0, lines_s = 0;
	uint64_t fault_lines = 0, chosen_lines = 0, tail_bytes = 0;
};
text_read_times text_read_timing();

// Turns one matched line into event fields (shared with readers of
// structured sources that carry a message text).
void fill_event_from_match(event &e, const rule &r, const capture_list &caps, std::string_view body);

} // namespace diag
