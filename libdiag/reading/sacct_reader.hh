// Slurm accounting: `sacct -P` (pipe-separated, with a header) and
// `sacct --json`. Gives the job's id, state, exit codes and time window.
#pragma once

#include "model/evidence.hh"

#include <string_view>

namespace diag {

// Parses `sacct -P` text held in memory (sacct output is small; the caller
// bounds it). Returns false when the text is not sacct output.
bool read_sacct_text(std::string_view text, evidence &ev);
// Parses `sacct --json` output.
bool read_sacct_json(std::string_view text, evidence &ev);

} // namespace diag
