// An MPI launch's host list with slots ("mpirun -H a:4,b:4", horovodrun
// -H), as the launch rule captures it (launch_hosts).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace diag {

// The hosts in order, each with its slots; empty when an item is not
// "host:slots" (a number of slots, 0 included, that the caller judges).
std::vector<std::pair<std::string, long long>> launch_host_slots(const std::string &list);

} // namespace diag
