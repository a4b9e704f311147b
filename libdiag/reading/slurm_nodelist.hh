// Slurm's compact node list ("gpu[01-03,07],login1", as sacct's NodeList
// and SLURM_JOB_NODELIST print it) as one name per node.
#pragma once

#include <string>
#include <vector>

namespace diag {

// The names in list order; empty when the list is not of that shape or
// names too many (a range over 4096, or more than 65536 names in all).
std::vector<std::string> expand_nodelist(const std::string &list);

} // namespace diag
