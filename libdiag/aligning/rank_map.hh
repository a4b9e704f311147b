// Which global rank ran where: host, pid, CUDA device and PCI bus id, from
// NCCL "Init COMPLETE" lines and the plugin's rank records. It is how an
// Xid's PCI address or an OOM-killed pid becomes a rank.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace diag {

struct rank_info {
	int rank = -1;
	int host = -1;
	int pid = -1;
	int cuda_dev = -1;
	int local_rank = -1;
	int task = -1;
	std::string busid; // normalised: lower-case hex "0000:1b:00" form without function
	bool host_authoritative = false; // the host is Slurm's node name (plugin record)
};

// "PCI:0000:1b:00", "0000:1B:00.0", "1b000", "00000000:1B:00.0" -> "1b:00" style key
std::string normalise_busid(std::string_view raw);

class rank_map {
public:
	void add(const rank_info &info); // merges with what is known
	const rank_info *by_rank(int rank) const;
	int rank_of_pid(int host, int pid) const;
	int rank_of_busid(int host, const std::string &busid) const;
	int rank_of_local(int host, int local_rank) const;
	// The one host the local ranks are known on (-1: none, or several).
	int sole_local_host() const;
	int world_size() const { return rm_world; }
	void note_world_size(int n) { if (n > rm_world) rm_world = n; }
	const std::map<int, rank_info> &all() const { return rm_ranks; }
	// Hosts whose bus ids are known, for an Xid on a node without a rank.
	bool empty() const { return rm_ranks.empty(); }

private:
	std::map<int, rank_info> rm_ranks;
	std::map<std::pair<int, int>, int> rm_pid;
	std::map<int, int> rm_pid_any; // pid -> rank, -2 when two ranks share it
	std::map<std::pair<int, std::string>, int> rm_bus;
	std::map<std::pair<int, int>, int> rm_local;
	int rm_world = 0;
};

} // namespace diag
