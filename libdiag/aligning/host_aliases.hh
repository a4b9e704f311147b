// The other names the logs give one machine: a Kubernetes pod and the node
// it ran on, a pod's hostname and its name with the ReplicaSet/Job suffix,
// a cloud VM's DNS name and the address it encodes, a host and the address
// NCCL saw it use. A verdict names the machine by one; these are the rest,
// so that whoever reads it finds the name they know.
#pragma once

#include "model/evidence.hh"

#include <string>
#include <vector>

namespace diag {

// host's other names, without host's own; empty when none is known.
std::vector<std::string> host_aliases(const evidence &ev, int host);

// Whether other is host itself or one of its other names.
bool same_machine_as(const evidence &ev, int host, int other);

} // namespace diag
