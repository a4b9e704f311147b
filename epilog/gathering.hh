// Stage 2, gathering: every node copies its share of the evidence into the
// root-owned staging dir <state_dir>/<key>/ (the job's files read as the job
// user, bounded in bytes, files and time; its kernel messages of the job
// window; GPU tools' output) and leaves a marker for the diagnosing node.
#pragma once

#include "run_state.hh"

#include <string>

namespace denpex::epilog {

// <state_dir>/<key>, created private (leftovers of old runs removed); -1
// (logged) when it cannot be had. Caps s.budget by what every job's staging
// on this node already holds (max_state_bytes).
int open_job_state_dir(run_state &s);
void cap_budget_by_state_dir(run_state &s);

// This node's share: the job's output (on the diagnosing node), its spool
// dir, kernel messages, local GPU tools; then notes/<node> and done/<node>.
void gather_node(run_state &s, int jfd);

// The job's stdout and stderr, as the user, with Slurm's patterns expanded
// (once), and slurmctld's word on the job.
void gather_job_output(run_state &s, int jfd);

// <spool>/<job> goes once its evidence is gathered, so that a later job with
// the same id never sees it; a spool shared with other nodes only when
// shared_ok (by the diagnosing site, after the diagnosis).
void remove_spool(run_state &s, bool shared_ok);

// Collected and skipped files as report lines.
std::string gather_summary(const run_state &s);

// A file below dirfd (its parent dirs made), 0600, never through a symlink.
bool write_file_at(int dirfd, const std::string &rel, const std::string &data);
// A user-chosen name as it may appear in the report: no line breaks or
// terminal escapes to forge report lines with.
std::string printable(const std::string &s);

} // namespace denpex::epilog
