// Stage 5, the comment: the verdict appended to the job's Comment or
// AdminComment in the accounting record (bounded: slurmdbd may hang), and
// queued in <state_dir>/.queue when it cannot be written now; later runs and
// `denpex-epilog --flush` write the queue.
#pragma once

#include "run_state.hh"

#include <cstddef>
#include <string>

namespace denpex::epilog {

// Writes verdict (already capped) for the job; returns what happened, for
// the report's "Accounting:" line. A write is confirmed afterwards in a
// detached child (the job-completion record may overwrite it), which
// writes it again or queues it and notes that in the report.
std::string post_verdict(run_state &s, const std::string &verdict, const std::string &report_where);

// Verdicts queued while slurmdbd was away: written now, at most max of them
// within budget_s; each job's report notes the outcome. Each one written is
// confirmed (see post_verdict) in the background, or here where
// confirm_inline (by hand: no job waits).
void flush_comment_queue(const config &cfg, size_t max, double budget_s, bool confirm_inline);

} // namespace denpex::epilog
