// The first rank's host, from everything that maps ranks to hosts: a
// verdict names the machine an admin can find and drain.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"

#include "aligning/identities.hh"
#include "deciding/exits.hh"
#include "reading/launch_hosts.hh"
#include "reading/slurm_nodelist.hh"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace diag {

namespace {

int host_by_layout(evidence &ev, int rank);
int host_by_launch_slots(evidence &ev, int rank);

// The host a rank ran on: the rank map, else what the rank's own lines
// said, else where the job's nodes and the other ranks' hosts put it, else
// where the MPI launch line's host slots put it.
int host_of_rank(evidence &ev, int rank)
{
	if (rank < 0)
		return -1;
	if (const rank_info *ri = ev.ranks.by_rank(rank); ri && ri->host >= 0)
		return ri->host;
	for (const auto &e : ev.events)
		if (e.rank == rank && e.host >= 0 && !e.dropped && ev.sources()[e.file].kind != source_kind::kernel_log)
			return e.host;
	int host = host_by_layout(ev, rank);
	return host >= 0 ? host : host_by_launch_slots(ev, rank);
}

} // namespace

int rank_host(evidence &ev, int rank)
{
	return host_of_rank(ev, rank);
}

namespace {

// Where a rank no line placed ran, from the job's node list (Slurm's): a
// job of one node ran every rank there; on several nodes with the same
// number of ranks each, the one node with room left for it once every
// known rank is placed, or the node that Slurm's block order (ranks
// numbered through the nodes in list order) gives, when every known rank
// sits where that order says, on two nodes at least.
// Without Slurm's node list: the hosts the known ranks ran on, where each
// holds one block of consecutive ranks (world / hosts of them, in some
// order), every block has its host, and the local ranks known say so too
// (a host no rank of which is known would break them): the block a rank
// falls in is its.
int host_by_blocks(evidence &ev, int rank)
{
	int world = ev.ranks.world_size();
	std::set<int> hosts;
	for (const auto &x : ev.ranks.all())
		if (x.first >= 0 && x.first < world && x.second.host >= 0 && !loopback_name(ev.host_name(x.second.host)))
			hosts.insert(x.second.host);
	int n = static_cast<int>(hosts.size());
	if (n < 2 || world <= rank || world % n != 0)
		return -1;
	int per_node = world / n;
	std::map<int, int> block_host, host_block;
	int local_ranks = 0;
	for (const auto &x : ev.ranks.all()) {
		if (x.first < 0 || x.first >= world || !hosts.count(x.second.host))
			continue;
		if (x.second.local_rank >= 0) {
			if (x.first % per_node != x.second.local_rank)
				return -1;
			local_ranks++;
		}
		int block = x.first / per_node;
		auto b = block_host.emplace(block, x.second.host).first;
		auto h = host_block.emplace(x.second.host, block).first;
		if (b->second != x.second.host || h->second != block)
			return -1; // ranks of one block on two hosts, or one host in two blocks
	}
	// The lines that name a rank and its local rank (a torchrun failure block).
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.local_rank < 0)
			continue;
		if (e.rank % per_node != e.local_rank)
			return -1;
		local_ranks++;
	}
	if (static_cast<int>(block_host.size()) != n || local_ranks == 0)
		return -1;
	return block_host[rank / per_node];
}

// The rank's block of per_node consecutive ranks, where the known ranks
// in it all ran on one host and sit at their local rank (rank % per_node
// == local rank: a launcher laying ranks out node by node, as torchrun's
// failure block shows): that host's.
int host_of_block(const evidence &ev, int rank, int per_node)
{
	int lo = rank / per_node * per_node, host = -1;
	bool laid_out = false;
	auto in_block = [&](int r) { return r >= lo && r < lo + per_node && r != rank; };
	auto place = [&](int r, int h, int local) {
		if (!in_block(r) || h < 0)
			return true;
		if (host >= 0 && h != host)
			return false;
		host = h;
		if (local >= 0) {
			if (r % per_node != local)
				return false;
			laid_out = true;
		}
		return true;
	};
	for (const auto &x : ev.ranks.all())
		if (!place(x.first, x.second.host, x.second.local_rank))
			return -1;
	for (const auto &e : ev.events)
		if (!e.dropped && e.rank >= 0 && e.local_rank >= 0 && ev.sources()[e.file].kind != source_kind::kernel_log &&
		    !place(e.rank, e.host >= 0 ? e.host : host, e.local_rank))
			return -1;
	return laid_out && host >= 0 && !loopback_name(ev.host_name(host)) ? host : -1;
}

// A launch line that started every rank on one node (torchrun
// --standalone, --nnodes 1).
bool launched_on_one_node(const evidence &ev)
{
	for (const auto &e : ev.events)
		if (!e.dropped && !e.capture("one_node").empty())
			return true;
	return false;
}

// Whether a rank of the job is known to have run on host.
bool ranks_ran_on(const evidence &ev, int host)
{
	for (const auto &x : ev.ranks.all())
		if (x.second.host == host)
			return true;
	return false;
}

// The machine of the last terminal prompt above e in its file (a paste of
// a session: "user@login$ srun --pty bash", then "root@node:/w# python ..."),
// or -1.
int prompt_machine_above(evidence &ev, const event &e)
{
	const event *last = nullptr;
	for (const auto &x : ev.events)
		if (!x.dropped && x.file == e.file && x.line < e.line && x.r && x.r->family == "shell" &&
		    !x.capture("job_node").empty() && (!last || x.line > last->line))
			last = &x;
	return last ? ev.intern_host(last->capture("job_node")) : -1;
}

// The one machine the logs name (an address or "localhost" aside), or -1.
int sole_named_machine(const evidence &ev)
{
	std::vector<int> named = named_machines(ev);
	return named.size() == 1 ? named[0] : -1;
}

// An MPI launch's hosts with their slots ("mpirun -H a:4,b:4", horovodrun
// -H): by default Open MPI and Horovod fill each host's slots with
// consecutive ranks, in the order given (the launch rule leaves the list
// out where --map-by node, a rankfile or a hostfile changes that). The
// rank's slot is its host, where every rank whose host is known sits where
// the slots say, and the job had one such launch.
int host_by_launch_slots(evidence &ev, int rank)
{
	std::string list;
	for (const auto &e : ev.events) {
		const std::string &l = e.capture("launch_hosts");
		if (e.dropped || l.empty())
			continue;
		if (!list.empty() && l != list)
			return -1; // launches of different layouts
		list = l;
	}
	if (list.empty())
		return -1;
	const std::vector<std::pair<std::string, long long>> hosts = launch_host_slots(list); // in order
	if (hosts.empty())
		return -1;
	long long slots_in_all = 0;
	for (const auto &h : hosts) {
		if (h.second == 0 || h.second > 4096)
			return -1;
		slots_in_all += h.second;
	}
	// The host whose slots hold rank r.
	auto slot_host = [&](long long r) -> const std::string * {
		for (const auto &h : hosts)
			if ((r -= h.second) < 0)
				return &h.first;
		return nullptr;
	};
	const std::string *host = slot_host(rank);
	if (!host || loopback_name(*host) || ev.ranks.world_size() > slots_in_all)
		return -1; // beyond the slots, or oversubscribed: ranks wrap around the hosts
	for (const auto &x : ev.ranks.all()) {
		if (x.second.host < 0 || x.first < 0)
			continue;
		const std::string *h = slot_host(x.first);
		if (!h || ev.find_host(*h) != x.second.host)
			return -1;
	}
	return ev.intern_host(*host);
}

int host_by_layout(evidence &ev, int rank)
{
	std::vector<std::string> nodes = expand_nodelist(ev.job.nodelist);
	if (nodes.empty() && ev.job.nodelist.empty())
		return launched_on_one_node(ev) ? sole_named_machine(ev) : host_by_blocks(ev, rank);
	if (nodes.size() == 1)
		return ev.intern_host(nodes[0]);
	int world = ev.ranks.world_size();
	if (nodes.size() < 2 || world <= rank)
		return -1;
	// The highest ranks may never have spoken: the world rounds up to a
	// whole number of ranks per node, which only the local ranks known
	// can confirm.
	if (world % static_cast<int>(nodes.size()) != 0)
		return host_of_block(ev, rank, (world + static_cast<int>(nodes.size()) - 1) / static_cast<int>(nodes.size()));
	int per_node = world / static_cast<int>(nodes.size());
	std::map<std::string, size_t> index;
	for (size_t i = 0; i < nodes.size(); i++)
		index.emplace(nodes[i], i);
	std::vector<int> placed(nodes.size(), 0);
	std::set<size_t> seen;
	bool block = true;
	for (const auto &x : ev.ranks.all()) {
		if (x.second.host < 0 || x.first < 0 || x.first >= world)
			continue;
		auto it = index.find(ev.host_name(x.second.host));
		if (it == index.end())
			return -1; // a host not among the job's nodes: the list is not this job's
		placed[it->second]++;
		seen.insert(it->second);
		if (static_cast<size_t>(x.first / per_node) != it->second)
			block = false;
	}
	int room = -1;
	for (size_t i = 0; i < nodes.size(); i++)
		if (placed[i] < per_node) {
			if (room >= 0) {
				room = -2;
				break;
			}
			room = static_cast<int>(i);
		}
	if (room >= 0)
		return ev.intern_host(nodes[static_cast<size_t>(room)]);
	if (block && seen.size() >= 2)
		return ev.intern_host(nodes[static_cast<size_t>(rank / per_node)]);
	return host_of_block(ev, rank, per_node);
}

// The one node of the job that is not among reporters; -1 when none
// reported or several are silent. The job's nodes are its node list (at
// least min_nodes of them), or, with no list and hosts_seen, the hosts the
// ranks and sources show.
int the_silent_node(evidence &ev, const std::set<std::string> &reporters, size_t min_nodes, bool hosts_seen)
{
	std::set<std::string> nodes;
	for (const auto &n : expand_nodelist(ev.job.nodelist))
		nodes.insert(n);
	if (nodes.empty() && hosts_seen) {
		for (const auto &r : ev.ranks.all())
			if (r.second.host >= 0)
				nodes.insert(ev.host_name(r.second.host));
		for (const auto &src : ev.sources())
			if (src.host_hint >= 0)
				nodes.insert(ev.host_name(src.host_hint));
	}
	if (reporters.empty() || nodes.size() < min_nodes)
		return -1;
	std::vector<std::string> silent;
	for (const auto &n : nodes)
		if (!reporters.count(n))
			silent.push_back(n);
	return silent.size() == 1 ? ev.intern_host(silent[0]) : -1;
}

// A node failure whose only word comes from survivors (their slurmstepd's
// "CANCELLED ... DUE TO NODE FAILURE"): the one node of the job that did
// not report is the one lost.
int lost_node(const diagnosis_context &cx)
{
	std::set<std::string> reporters;
	for (const auto &e : cx.ev.events)
		if (!e.dropped && e.cls == failure_class::node_failure && !e.capture("reporter").empty())
			reporters.insert(e.capture("reporter"));
	return the_silent_node(cx.ev, reporters, 1, true);
}

// A launch that timed out waiting for its nodes (rendezvous, the store's
// clients): the one node of the job from which no rank reported the wait
// is the one that never joined. A report that names no host comes from
// the node its Slurm task (a node's launcher, by its srun label) ran on.
int node_never_joined(const diagnosis_context &cx)
{
	std::set<std::string> waiting, failed;
	bool unplaced = false;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || cx.ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		// A node whose task then ended in error (srun's "task 2: Exited
		// with exit code 1") was up and waiting too.
		if (e.kind == rule_kind::task_exit && e.exitcode > 0 && e.host >= 0)
			failed.insert(cx.ev.host_name(e.host));
		if (e.cls != failure_class::launch_failure)
			continue;
		int host = e.host >= 0 ? e.host : e.task >= 0 ? node_of_task(cx.ev, e.task) : -1;
		if (host >= 0)
			waiting.insert(cx.ev.host_name(host));
		else
			unplaced = true;
	}
	// Waits whose lines name no node (unprefixed output): the nodes whose
	// tasks failed after them are where they were.
	if (unplaced)
		waiting.insert(failed.begin(), failed.end());
	return the_silent_node(cx.ev, waiting, 2, false);
}

// Whether the fault's rule fired on two or more nodes (by host, or by the
// node of the srun task its line came on).
bool shared_by_nodes(const diagnosis_context &cx, const event &first)
{
	std::set<int> nodes;
	for (const auto &e : cx.ev.events) {
		if (e.dropped || (e.r ? e.r != first.r : e.rule_id != first.rule_id))
			continue;
		int host = e.host >= 0 ? e.host : e.task >= 0 ? node_of_task(cx.ev, e.task) : -1;
		if (host >= 0)
			nodes.insert(host);
	}
	return nodes.size() >= 2;
}

// A launch whose only reports come from clients of the rendezvous/store
// server: those that could not reach it ("... trying to connect to
// (gpu-r01, 29500)") or waited in vain on a key it should have had (a
// DistStoreError's "wait timeout ..., keys: ..."). When
// they all name one host, and every launch failure reported came from a
// node that was such a client (none failed for a reason of its own), the
// store's host is the one to look at (its launcher never served: not
// started, crashed, unreachable or a wrong address). With nothing but
// waits on keys, the store is the one the job named (MASTER_ADDR=...);
// the server's own wait for clients that never came blames no store.
int unreached_store_host(const diagnosis_context &cx)
{
	std::set<std::string> stores, masters;
	std::set<int> clients, reporters;
	bool waited = false;
	auto node_of = [&](const event &e) { return e.host >= 0 ? e.host : e.task >= 0 ? node_of_task(cx.ev, e.task) : -1; };
	for (const auto &e : cx.ev.events) {
		if (e.dropped || cx.ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		if (std::string m = e.capture("master_addr"); !m.empty())
			masters.insert(m);
		// The server waited for clients itself: it was up and served.
		if (!e.capture("store_served").empty())
			return -1;
		if (std::string h = e.capture("store_host"); !h.empty()) {
			stores.insert(h);
			clients.insert(node_of(e));
		} else if (e.cls == failure_class::launch_failure && e.role == event_role::initiating) {
			reporters.insert(node_of(e));
		} else if (e.cls == failure_class::launch_failure && e.role == event_role::victim) {
			waited = waited || !e.capture("store_key").empty();
			clients.insert(node_of(e));
		}
	}
	if (stores.empty() && reporters.empty() && waited)
		stores = masters;
	if (stores.size() != 1 || loopback_name(*stores.begin()) || (!reporters.empty() && clients.count(-1)))
		return -1;
	for (int r : reporters)
		if (!clients.count(r))
			return -1;
	int store = cx.ev.intern_host(*stores.begin());
	if (clients.count(store))
		return -1;
	return store;
}

// A launcher that prefixes lines with the node's address (pdsh -w by IP)
// names the node itself inside them: torchrun's failure block under
// "10.84.0.2:" says "host : node042". The name, not the address, is what
// an admin drains. Without such a block, NCCL's Bootstrap line of the
// node that uses the address names it.
int named_host(evidence &ev, int host)
{
	// "localhost" (a launcher's table on one machine) is every machine's
	// name for itself: the machine's own name, where the job shows one.
	if (host >= 0 && loopback_name(ev.host_name(host))) {
		int own = sole_named_machine(ev); // (several: which one is not known)
		// (Else the one node Slurm gave the job, where no line names one.)
		if (own < 0 && named_machines(ev).empty())
			if (std::vector<std::string> nodes = expand_nodelist(ev.job.nodelist); nodes.size() == 1)
				own = ev.intern_host(nodes[0]);
		return own >= 0 ? own : host;
	}
	if (host < 0 || !ip_literal(ev.host_name(host)))
		return host;
	std::string name;
	for (const auto &e : ev.events) {
		if (e.host != host)
			continue;
		std::string bh = e.capture("block_host");
		if (bh.empty() || ip_literal(bh) || loopback_name(bh))
			continue;
		if (!name.empty() && name != bh)
			return host; // two names for one address: keep the address
		name = bh;
	}
	if (name.empty()) {
		// Else the host that NCCL says uses this address.
		for (const auto &e : ev.events)
			if (e.host >= 0 && e.host != host && e.capture("host_ip") == ev.host_name(host) &&
			    !ip_literal(ev.host_name(e.host)) && !loopback_name(ev.host_name(e.host)))
				return host_with_address(ev, ev.host_name(host)) == e.host ? e.host : host;
		return host;
	}
	for (size_t i = 0; i < ev.host_count(); i++)
		if (ev.host_name(static_cast<int>(i)) == name)
			return static_cast<int>(i);
	return host;
}

// Docker names a container's host after the container's id: twelve hex
// digits ("5f0c2a9d71e4"). That is no machine an admin can drain.
bool container_id_name(const std::string &h)
{
	if (h.size() != 12)
		return false;
	bool digit = false, letter = false;
	for (char c : h) {
		if (c >= '0' && c <= '9')
			digit = true;
		else if (c >= 'a' && c <= 'f')
			letter = true;
		else
			return false;
	}
	return digit && letter;
}

// The machine behind a rank's container: the host another line gives the
// same rank (mpirun's "process rank 3 with PID 1203 on node 10.66.8.12"),
// where that is one other name.
int machine_of_container(const evidence &ev, int host, int rank)
{
	if (host < 0 || rank < 0 || !container_id_name(ev.host_name(host)))
		return host;
	int other = -1;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank != rank || e.host < 0 || e.host == host || container_id_name(ev.host_name(e.host)) ||
		    loopback_name(ev.host_name(e.host)))
			continue;
		if (other >= 0 && other != e.host)
			return host; // two other names: which is not known
		other = e.host;
	}
	return other >= 0 ? other : host;
}

} // namespace

// A Kubernetes node, in the name the job's own lines use for it: the pod
// that ran there (kubectl get pods -o wide's row: pod, its node), where
// exactly one of the job's pods did and the job's lines are written under
// pod names ("[pod/<name>/...]", NCCL's host:pid). A cloud's notice names
// the VM; the job knows the machine as its pod.
int pod_on_node(const evidence &ev, int host)
{
	if (host < 0)
		return host;
	const std::string &node = ev.host_name(host);
	std::string pod;
	for (const auto &e : ev.events) {
		if (e.capture("pod_node").empty() || !same_machine(e.capture("pod_node"), node))
			continue;
		std::string p = e.capture("pod");
		if (p.empty() || (!pod.empty() && p != pod))
			return host; // two pods on that node: no one name
		pod = p;
	}
	if (pod.empty())
		return host;
	for (const auto &e : ev.events)
		if (e.host >= 0 && e.capture("pod_node").empty() && ev.host_name(e.host) == pod)
			return e.host;
	return host;
}

void pass_host_resolution(diagnosis_context &cx)
{
	decision &d = cx.d;
	// The node lost is the one to drain: the verdict names it, rank or none.
	if (d.cls == failure_class::node_failure && d.first && !names_failed_node(cx.ev, *d.first)) {
		d.first_host = lost_node(cx);
		d.rank_singled_out = d.rank_singled_out || d.first_host >= 0;
	}
	if (d.first_host < 0 && d.first_rank >= 0)
		d.first_host = host_of_rank(cx.ev, d.first_rank);
	// A rank whose host nothing says, in a job without a node list whose
	// lines name one machine only: that machine. Where no line names a
	// machine, the one of the terminal's prompt above the fault: the
	// command that failed was typed there.
	if (d.first_host < 0 && d.first_rank >= 0 && cx.ev.job.nodelist.empty()) {
		const std::vector<int> named = named_machines(cx.ev);
		if (named.size() == 1)
			d.first_host = named[0];
		else if (named.empty() && d.first)
			d.first_host = prompt_machine_above(cx.ev, *d.first);
	}
	// A stop from outside that reached one node of several (one pod
	// deleted, one node's launcher signalled) before anything went wrong:
	// the others only lost it. That node is where the job was stopped.
	if (d.first_host < 0 && d.cls == failure_class::user_cancel && d.first && d.first->host >= 0 &&
	    d.first->signal > 0 && cx.ev.host_count() >= 2) {
		bool elsewhere = false;
		for (const auto &e : cx.ev.events)
			if (!e.dropped && e.cls == failure_class::user_cancel && e.host != d.first->host)
				elsewhere = true;
		if (!elsewhere) {
			d.first_host = d.first->host;
			d.rank_singled_out = true;
		}
	}
	// The initiating line's own node: that of the srun task it came on
	// (a node's launcher, whose label is no rank).
	if (d.first_host < 0 && d.first && d.first->task >= 0 && !job_level(d.cls) && !d.common_many_hosts &&
	    !(d.first->r && d.first->r->scope == rule::fault_scope::job)) {
		d.first_host = node_of_task(cx.ev, d.first->task);
		d.rank_singled_out = d.rank_singled_out || d.first_host >= 0;
	}
	// A node's error that srun passed on without its node's name (the rule
	// captures the relay: "slurmstepd: error: pyxis: ..."): srun then reports
	// that node's task ("srun: error: gpu-p03: task 2: Exited ..."), within a
	// few lines.
	if (d.first_host < 0 && d.first && d.first->r && d.first->r->scope == rule::fault_scope::node &&
	    !d.first->capture("relayed_by").empty()) {
		const event *next = nullptr;
		for (const auto &e : cx.ev.events)
			if (e.file == d.first->file && e.line > d.first->line && e.line - d.first->line <= 12 &&
			    e.kind == rule_kind::task_exit && e.host >= 0 && !e.dropped && (!next || e.line < next->line))
				next = &e;
		if (next) {
			d.first_host = next->host;
			d.rank_singled_out = true;
		}
	}
	// (Asked before the one machine the job names: a prompt's machine is
	// where the job was started, not where each of its nodes failed.)
	// The first line names no node, but the same fault in other words does,
	// one node only (Ray's raylet naming the node whose workers it killed
	// for memory, beside the driver's bare OutOfMemoryError). (A time limit
	// or a cancel is the job's, as is the end of the job (Slurm's banner
	// "JOB N ON <batch host> ... DUE TO PREEMPTION") and what a rule reports
	// for the whole job: the node whose log printed it is no culprit.)
	if (d.first_host < 0 && d.first && d.common_mode == 0 && d.first_rank < 0 && d.cls != failure_class::time_limit &&
	    d.cls != failure_class::user_cancel && d.first->kind != rule_kind::job_end &&
	    !(d.first->r && d.first->r->scope == rule::fault_scope::job)) {
		// (A reclaim that names no node: the node lost is the one taken.)
		// (A node's own warning of the same fault, a rule of node scope in
		// context, names it too: Ray's file system monitor before ENOSPC.)
		std::set<int> said;
		for (const auto &e : cx.ev.events)
			if (!e.dropped && e.host >= 0 &&
			    (e.role == event_role::initiating ||
			     (e.role == event_role::context && e.r && e.r->scope == rule::fault_scope::node)) &&
			    (e.cls == d.cls || (d.cls == failure_class::preemption && e.cls == failure_class::node_failure)))
				said.insert(e.host);
		if (said.size() == 1) {
			d.first_host = *said.begin();
			d.rank_singled_out = true;
		}
	}
	// A job of one node ran everything there, its launcher too: Slurm's
	// node list, or the one node a cluster manager says the job ran on
	// (kubectl describe pod's "Node:", PBS's "Exec host:": capture
	// job_node). A node failure of such a job is that node's.
	// (a node's own event, as a spot VM reclaimed, is that node's whatever
	// its class)
	const bool node_fault = !job_level(d.cls) || d.cls == failure_class::node_failure ||
				(d.first && d.first->r && d.first->r->scope == rule::fault_scope::node);
	const bool job_report = d.first && d.first->r && d.first->r->scope == rule::fault_scope::job;
	// (A time limit, a cancel or a reclaim of a job of one node is no fault
	// of that node, but that node is still where the job ended: the
	// verdict names it; the class says it is not to be drained.)
	const bool job_end_here = job_level(d.cls) && !node_fault;
	// Where the rank map places the ranks ("localhost" aside).
	std::set<std::string> rank_hosts;
	bool ranks_placed = false;
	for (const auto &x : cx.ev.ranks.all())
		if (x.second.host >= 0) {
			ranks_placed = true;
			if (!loopback_name(cx.ev.host_name(x.second.host)))
				rank_hosts.insert(cx.ev.host_name(x.second.host));
		}
	// A stop typed at a terminal (qdel's answer under a login node's
	// prompt) names the terminal's machine: where the ranks ran is known,
	// and it is not there, so it is not where the job ended.
	if (job_end_here && d.first_host >= 0 && d.first_rank < 0 && ranks_placed && !ranks_ran_on(cx.ev, d.first_host))
		d.first_host = -1;
	// (Also where only victims spoke, of a known kind: the one node is where
	// it happened.)
	if (d.first_host < 0 && (d.first || d.cls != failure_class::unknown) &&
	    ((node_fault && (!job_report || d.cls == failure_class::node_failure)) || job_end_here)) {
		std::vector<std::string> nodes = expand_nodelist(cx.ev.job.nodelist);
		// (Where the ranks ran, when the rank map says: a terminal's prompt
		// may be the login node's.)
		if (nodes.empty() && job_end_here)
			nodes.assign(rank_hosts.begin(), rank_hosts.end());
		if (nodes.empty())
			nodes = job_nodes(cx.ev);
		// Else the one machine every line that names one names (for the
		// job's own end, one its ranks ran on: Slurm's banner names the
		// batch host of a job of any size).
		if (nodes.empty())
			if (int own = sole_named_machine(cx.ev); own >= 0 && (!job_end_here || ranks_ran_on(cx.ev, own)))
				nodes.push_back(cx.ev.host_name(own));
		if (nodes.size() == 1) {
			d.first_host = cx.ev.intern_host(nodes[0]);
			d.rank_singled_out = true;
		}
	}
	bool store_named = false;
	if (d.cls == failure_class::launch_failure && d.first_rank < 0 && d.common_mode == 0)
		if (int store = unreached_store_host(cx); store >= 0 && store != d.first_host &&
		    (store = named_host(cx.ev, store)) >= 0 && !ip_literal(cx.ev.host_name(store))) {
			d.first_host = store;
			d.rank_singled_out = true;
			store_named = true;
			d.notes.push_back("the launch failed waiting for the rendezvous/store server on " +
					  cx.ev.host_name(store) + ", which reported nothing itself");
		}
	// Every node that came up waiting alike (common mode) still leaves the
	// one that never did; so does a wait that the node of its first line
	// shares with other nodes (that node is one of those who waited).
	if (d.cls == failure_class::launch_failure && d.first_rank < 0 &&
	    (d.first_host < 0 || (!store_named && d.first && shared_by_nodes(cx, *d.first)))) {
		if (int silent = node_never_joined(cx); silent >= 0) {
			d.first_host = silent;
			// No rank, but the node to look at: the waits everywhere else
			// were its doing, not the environment's.
			d.common_mode = 0;
			d.common_many_hosts = false;
			d.common_host = -1;
			d.rank_singled_out = true;
			d.notes.push_back("every other node of the job reported waiting at launch; " +
					  cx.ev.host_name(d.first_host) + " did not");
		}
	}
	// A GPU fault that names its device by PCI address on a line of no
	// host (nvidia-smi's, pasted below the job): once its node is known,
	// the rank whose NCCL init line on that node names the same bus. So on
	// a Kubernetes node's kernel line: the job's lines name the node as the
	// pod that ran there.
	int bus_host = d.first_host;
	if (d.first && d.first->host >= 0) {
		// (A line with a host was looked up on that host as it was read.)
		const int pod = pod_on_node(cx.ev, d.first_host);
		bus_host = pod != d.first_host ? pod : -1;
	}
	if (d.first_rank < 0 && bus_host >= 0 && d.first && d.common_mode == 0 && !job_level(d.cls)) {
		std::string pci = d.first->capture("pci");
		if (!pci.empty())
			if (int r = cx.ev.ranks.rank_of_busid(bus_host, normalise_busid(pci)); r >= 0) {
				d.first_rank = r;
				d.borrowed_rank = r;
				d.rank_singled_out = true;
				d.notes.push_back("the fault names GPU " + pci + ", rank " + std::to_string(r) + "'s on " +
						  cx.ev.host_name(bus_host));
			}
	}
	d.first_host = pod_on_node(cx.ev, named_host(cx.ev, machine_of_container(cx.ev, d.first_host, d.first_rank)));
	for (auto &s : d.suspects) {
		if (s.host < 0)
			s.host = host_of_rank(cx.ev, s.rank);
		s.host = named_host(cx.ev, machine_of_container(cx.ev, s.host, s.rank));
	}
}

} // namespace diag
