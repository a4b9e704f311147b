// Grid Engine's accounting record (`qacct -j`, SGE, OGS, OCS, UGE) as the
// job's facts, the way sacct's columns are: which job, where, from when to
// when, and how it ended. The record's lines are read as events of the
// scheduler.qacct_field rule (one per field, see conf/signatures/SCHEMA.md),
// wherever they are: a qacct file, or a session pasted below the job's log.
#pragma once

#include "model/evidence.hh"

#include <cstdint>
#include <string_view>

namespace diag {

// Where no sacct source gave the job's end (ev.job.state empty), the first
// qacct record among the events fills ev.job: the job, its master host, its
// times, and a State as sacct would word it (TIMEOUT at its run-time limit,
// OUT_OF_MEMORY at its h_vmem, PREEMPTED at -notify's warning before a
// suspension, CANCELLED by whoever deleted it, else COMPLETED or FAILED).
// True when it did.
bool job_facts_from_qacct(evidence &ev);

// Grid Engine's durations: seconds ("21602s", "86342", "3335.647") or
// [[H:]M:]S ("06:00:00", "72:00:00"); -1 for INFINITY and what is no duration.
int64_t sge_duration_s(std::string_view v);

// Grid Engine's memory sizes in bytes: "6G", "4096M", "96.000G",
// "188.233GB", "512k", plain bytes (1024-based, as qacct and h_vmem use);
// -1 for what is no size.
double sge_bytes(std::string_view v);

} // namespace diag
