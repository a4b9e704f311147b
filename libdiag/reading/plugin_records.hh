// Records the SPANK plugin writes per task into the job's spool dir:
// ranks/<step>.<task>.json (where a task ran: Slurm node, the host name NCCL
// prints, pid, and the node's clock facts: boot time, zone, its clock
// against srun's at launch) and exits/<step>.<task>.json (how and when it
// ended, to the nanosecond). The contract is doc/handoff.md.
#pragma once

#include "model/evidence.hh"

#include <string_view>

namespace diag {

// The record schema's major versions this reader knows. Within a major,
// fields are only added; a reader ignores fields it does not know.
constexpr long long plugin_schema_known[] = {1};

enum class records_read {
	not_records, // not JSON records of the plugin (read the file as something else)
	read,        // at least one record read
	refused,     // plugin records of a major schema this reader does not know
};

// Reads one record (or a list of them). refused_schema: the unknown major
// version, when the answer is refused.
records_read read_plugin_records(std::string_view text, uint32_t file, evidence &ev, long long &refused_schema);

// Applies what the records say once everything is read: the Slurm node name
// replaces the host name NCCL printed (virtual nodes share one), tasks are
// ranks when srun started every rank, boot times anchor raw kernel stamps.
// (The clock facts go to aligning/clock.cc.)
void apply_plugin_records(evidence &ev);

} // namespace diag
