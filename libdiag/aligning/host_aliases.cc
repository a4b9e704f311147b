// Only what the logs state, or what a name itself encodes (EC2's
// "ip-10-0-3-21" is 10.0.3.21): never a guess from similar-looking names.
#include "aligning/host_aliases.hh"

#include "aligning/identities.hh"

#include <algorithm>
#include <cctype>

namespace diag {

namespace {

// EC2's and GCP's internal DNS names carry the address: "ip-10-0-3-21" and
// "ip-10-0-3-21.ec2.internal" are 10.0.3.21.
std::string address_in_name(const std::string &name)
{
	if (name.compare(0, 3, "ip-") != 0)
		return {};
	std::string out;
	int parts = 0;
	size_t i = 3;
	while (parts < 4) {
		size_t j = i;
		while (j < name.size() && isdigit(static_cast<unsigned char>(name[j])))
			j++;
		int value = 0;
		for (size_t k = i; k < j && k - i < 4; k++)
			value = value * 10 + (name[k] - '0');
		if (j == i || j - i > 3 || value > 255)
			return {};
		out += (parts ? "." : "") + name.substr(i, j - i);
		parts++;
		if (parts < 4 && (j >= name.size() || name[j] != '-'))
			return {};
		if (parts == 4 && j < name.size() && name[j] != '.')
			return {};
		i = j + 1;
	}
	return out;
}

// A pod of a ReplicaSet or Job is named after its hostname plus "-" and
// five random characters ("workers-0-1" runs as pod "workers-0-1-9qd4m").
bool pod_of_hostname(const std::string &pod, const std::string &hostname)
{
	if (pod.size() != hostname.size() + 6 || pod.compare(0, hostname.size(), hostname) != 0 ||
	    pod[hostname.size()] != '-')
		return false;
	for (size_t i = hostname.size() + 1; i < pod.size(); i++)
		if (!islower(static_cast<unsigned char>(pod[i])) && !isdigit(static_cast<unsigned char>(pod[i])))
			return false;
	return true;
}

void add(std::vector<std::string> &out, const std::string &own, const std::string &name)
{
	if (!name.empty() && !same_machine(name, own) && std::find(out.begin(), out.end(), name) == out.end())
		out.push_back(name);
}

} // namespace

std::vector<std::string> host_aliases(const evidence &ev, int host)
{
	std::vector<std::string> out;
	if (host < 0 || static_cast<size_t>(host) >= ev.host_count())
		return out;
	const std::string &own = ev.host_name(host);
	// Its full name, as the logs wrote it (the verdict names the short one).
	if (const std::string &full = ev.full_host_name(host); !full.empty() && full != own)
		out.push_back(full);
	// kubectl get pods -o wide's row: a pod and its node, either way round.
	for (const auto &e : ev.events) {
		std::string pod = e.capture("pod"), node = e.capture("pod_node");
		if (pod.empty() || node.empty())
			continue;
		if (same_machine(pod, own))
			add(out, own, node);
		else if (same_machine(node, own)) {
			// (Only where one of the job's pods ran there.)
			bool other_pod = false;
			for (const auto &x : ev.events)
				other_pod = other_pod || (x.capture("pod_node") == node && !x.capture("pod").empty() &&
							  x.capture("pod") != pod);
			if (!other_pod)
				add(out, own, pod);
		}
	}
	// kubectl describe pod's Name and its Node: the pod's node.
	for (const auto &e : ev.events)
		if (!e.capture("described_pod").empty() && same_machine(e.capture("described_pod"), own))
			add(out, own, e.capture("job_node"));
	// A hostname and its pod's name, both in the logs: the host's own, or
	// its pod's (a node whose pod a kubectl row named, and the hostname
	// the pod's containers print).
	const size_t named = out.size();
	for (size_t h = 0; h < ev.host_count(); h++) {
		const std::string &other = ev.host_name(static_cast<int>(h));
		if (pod_of_hostname(other, own) || pod_of_hostname(own, other))
			add(out, own, other);
		for (size_t i = 0; i < named; i++)
			if (pod_of_hostname(out[i], other))
				add(out, own, other);
	}
	// The address a cloud name encodes (its own, or its node's), and the
	// name that encodes one.
	add(out, own, address_in_name(own));
	for (size_t i = 0, n = out.size(); i < n; i++)
		add(out, own, address_in_name(out[i]));
	for (size_t h = 0; h < ev.host_count(); h++) {
		const std::string &other = ev.host_name(static_cast<int>(h));
		if (address_in_name(other) == own)
			add(out, own, other);
	}
	// The address NCCL's bootstrap saw the host use (one address only).
	std::string address;
	bool several = false;
	for (const auto &e : ev.events) {
		std::string a = e.capture("host_ip");
		if (a.empty() || e.host != host || a == own)
			continue;
		several = several || (!address.empty() && a != address);
		address = a;
	}
	if (!several)
		add(out, own, address);
	// ...and the host whose address the first host's name is.
	if (int by_address = host_with_address(ev, own); by_address >= 0 && by_address != host)
		add(out, own, ev.host_name(by_address));
	return out;
}

bool same_machine_as(const evidence &ev, int host, int other)
{
	if (host == other)
		return true;
	if (host < 0 || other < 0)
		return false;
	const std::string &name = ev.host_name(other);
	const std::vector<std::string> aliases = host_aliases(ev, host);
	return std::find(aliases.begin(), aliases.end(), name) != aliases.end();
}

} // namespace diag
