#include "aligning/rank_map.hh"

#include <cctype>

namespace diag {

std::string normalise_busid(std::string_view raw)
{
	std::string s(raw);
	if (s.rfind("PCI:", 0) == 0)
		s = s.substr(4);
	for (auto &c : s)
		c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
	// NCCL prints "1b000" (bus 1b, device 00, function 0) or "0000:1b:00.0".
	std::string bus, dev;
	size_t c1 = s.find(':');
	if (c1 == std::string::npos) {
		// busId as a hex number: BBDDF with the domain dropped, and its
		// leading zeros too ("3000" is bus 03).
		if (s.size() >= 3 && s.size() < 5 && s.find_first_not_of("0123456789abcdef") == std::string::npos)
			s.insert(0, 5 - s.size(), '0');
		if (s.size() >= 5) {
			bus = s.substr(s.size() - 5, 2);
			dev = s.substr(s.size() - 3, 2);
		} else {
			return s;
		}
	} else {
		size_t c2 = s.find(':', c1 + 1);
		if (c2 == std::string::npos) {
			bus = s.substr(0, c1);
			dev = s.substr(c1 + 1, 2);
		} else {
			bus = s.substr(c1 + 1, c2 - c1 - 1);
			dev = s.substr(c2 + 1, 2);
		}
	}
	while (bus.size() > 2 && bus[0] == '0')
		bus.erase(0, 1);
	while (bus.size() < 2)
		bus.insert(0, "0");
	return bus + ":" + dev;
}

void rank_map::add(const rank_info &info)
{
	if (info.rank < 0)
		return;
	rank_info &r = rm_ranks[info.rank];
	r.rank = info.rank;
	// Slurm's node name (from the plugin) is not overwritten by a host
	// name a log printed: virtual nodes share one host name.
	if (info.host >= 0 && (info.host_authoritative || !r.host_authoritative)) {
		r.host = info.host;
		r.host_authoritative = r.host_authoritative || info.host_authoritative;
	}
	if (info.pid >= 0)
		r.pid = info.pid;
	if (info.cuda_dev >= 0)
		r.cuda_dev = info.cuda_dev;
	if (info.local_rank >= 0)
		r.local_rank = info.local_rank;
	if (info.task >= 0)
		r.task = info.task;
	if (!info.busid.empty())
		r.busid = info.busid;
	if (r.host >= 0 && r.pid >= 0)
		rm_pid[{r.host, r.pid}] = r.rank;
	if (r.pid >= 0) {
		auto it = rm_pid_any.find(r.pid);
		rm_pid_any[r.pid] = it != rm_pid_any.end() && it->second != r.rank ? -2 : r.rank;
	}
	if (r.host >= 0 && !r.busid.empty())
		rm_bus[{r.host, r.busid}] = r.rank;
	if (r.host >= 0 && r.local_rank >= 0)
		rm_local[{r.host, r.local_rank}] = r.rank;
	if (info.rank + 1 > rm_world)
		rm_world = info.rank + 1;
}

const rank_info *rank_map::by_rank(int rank) const
{
	auto it = rm_ranks.find(rank);
	return it == rm_ranks.end() ? nullptr : &it->second;
}

int rank_map::rank_of_pid(int host, int pid) const
{
	if (host >= 0) {
		auto it = rm_pid.find({host, pid});
		if (it != rm_pid.end())
			return it->second;
	}
	// Otherwise a pid is only trusted when one rank has it.
	auto it = rm_pid_any.find(pid);
	if (it == rm_pid_any.end() || it->second < 0)
		return -1;
	// The same pid number on another host is another process.
	const rank_info *ri = by_rank(it->second);
	if (host >= 0 && ri && ri->host >= 0 && ri->host != host)
		return -1;
	return it->second;
}

int rank_map::rank_of_busid(int host, const std::string &busid) const
{
	if (host >= 0) {
		auto it = rm_bus.find({host, busid});
		return it == rm_bus.end() ? -1 : it->second;
	}
	return -1;
}

int rank_map::rank_of_local(int host, int local_rank) const
{
	auto it = rm_local.find({host, local_rank});
	return it == rm_local.end() ? -1 : it->second;
}

int rank_map::sole_local_host() const
{
	int host = -1;
	for (const auto &l : rm_local) {
		if (host >= 0 && l.first.first != host)
			return -1;
		host = l.first.first;
	}
	return host;
}

} // namespace diag
