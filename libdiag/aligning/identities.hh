// Who ran where: the ranks, hosts and pids that one line did not name come
// from the others, and the machines and nodes the job's lines name.
#pragma once

#include "model/evidence.hh"

#include <string>
#include <vector>

namespace diag {

// Fills in ranks, hosts and pids that a line did not name from the rank
// map and the other lines (run before clock alignment, which works per host).
void resolve_identities(evidence &ev);

// An address, not a name: digits and dots (IPv4), or a colon (IPv6).
bool ip_literal(const std::string &h);
// The machines the logs name by a name of their own ("localhost" and
// addresses aside).
std::vector<int> named_machines(const evidence &ev);
// The machines a cluster manager or a terminal's prompt says the job ran
// on (capture job_node).
std::vector<std::string> job_nodes(const evidence &ev);
// The node a Slurm task ran on: srun's "node: task N: ..." lines and the
// plugin's records; -1 when they say none or several.
int node_of_task(const evidence &ev, int task);
// The host that uses address (NCCL's Bootstrap/OOB lines); -1 when none
// or several do.
int host_with_address(const evidence &ev, const std::string &address);
// The same machine by its short name or its full one (gpu07,
// gpu07.cluster.example.org).
bool same_machine(const std::string &a, const std::string &b);

} // namespace diag
