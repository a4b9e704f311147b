// Stage 1, the job's context: who, where and how it ended, from Slurm's
// environment and slurmctld's answer (bounded); whether it is diagnosed at
// all, and under which name its state and report go.
#pragma once

#include "run_state.hh"

#include <string>

namespace denpex::epilog {

// The environment slurmd or slurmctld gives the epilog; false (logged) when
// it is not an Epilog's.
bool read_job_env(run_state &s);

// The job's state from slurmctld (in a bounded child; the environment when
// slurmctld does not answer). True when the job is to be diagnosed; false
// with why otherwise. Sets s.key.
bool job_wanted(run_state &s, std::string &why);

// SLURMD_NODENAME as the plugin puts it into marker file names.
std::string node_file_name(const std::string &node);

} // namespace denpex::epilog
