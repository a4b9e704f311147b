// Slurm accounting: `sacct -P` (pipe-separated, with a header), sacct's
// default table (fixed columns under a ruler of dashes) and
// `sacct --json`. Gives the job's id, state, exit codes and time window.
#pragma once

#include "model/evidence.hh"

#include <string_view>

namespace diag {

// Parses `sacct -P` text held in memory (sacct output is small; the caller
// bounds it). Returns false when the text is not sacct output.
bool read_sacct_text(std::string_view text, evidence &ev);
// Whether two first lines are sacct's default table: a header naming JobID
// and State, then a ruler of dashes.
bool sacct_table_header(std::string_view first, std::string_view second);
// Whether the line is the shell command that printed a sacct table below
// it ("$ sacct -j ... -P"), pasted with its output.
bool sacct_command_line(std::string_view line);
// Parses `sacct --json` output.
bool read_sacct_json(std::string_view text, evidence &ev);

} // namespace diag
