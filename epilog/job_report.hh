// Stage 4, the admin report: <report_dir>/<key>.txt (what was diagnosed,
// from what, what was skipped and why, every node's share), .json (the
// verdict) and .html (the verdict page with the timeline), root's, 0640,
// written atomically before the accounting record is touched.
#pragma once

#include "diagnosing.hh"
#include "run_state.hh"

#include <string>

namespace denpex::epilog {

// The verdict as cited in the report: staging paths replaced by the
// originals (cite_originals).
struct report_verdict {
	diagnosis d;
	std::string comment; // the Comment's words, capped
};

report_verdict cite(const run_state &s, const diagnosis &d);

std::string report_text(const run_state &s, const report_verdict &v, int jfd);

// Writes the reports; returns the text report's path, or "none" (logged).
std::string write_reports(const run_state &s, const report_verdict &v, const std::string &text);

// Rewrites the text report with the accounting outcome at its end.
void append_accounting(const run_state &s, const std::string &text, const std::string &comment_status);

} // namespace denpex::epilog
