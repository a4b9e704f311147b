// Records the SPANK plugin writes per task into the job's spool dir:
// ranks/<step>.<task>.json (where a task ran: Slurm node, the host name NCCL
// prints, pid, the node's boot time and zone) and exits/<step>.<task>.json
// (how and when it ended, to the nanosecond).
#pragma once

#include "model/evidence.hh"

#include <string_view>

namespace diag {

// Reads one record (or a list of them). False when the JSON is not one.
bool read_plugin_records(std::string_view text, uint32_t file, evidence &ev);

// Applies what the records say once everything is read: the Slurm node name
// replaces the host name NCCL printed (virtual nodes share one), tasks are
// ranks when srun started every rank, boot times anchor raw kernel stamps.
void apply_plugin_records(evidence &ev);

} // namespace diag
