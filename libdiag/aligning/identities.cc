// Who ran where: ranks, hosts and pids that one line did not name come from
// the others (before clock alignment, which works per host).
#include "aligning/identities.hh"

#include "aligning/rank_layout.hh"
#include "aligning/rank_map.hh"
#include "deciding/context.hh"
#include "deciding/exits.hh"
#include "reading/plugin_records.hh"
#include "reading/slurm_nodelist.hh"

#include <cctype>
#include <cstdlib>

#include <map>
#include <set>

namespace diag {

// A name every machine has for itself: it tells no node apart.
bool loopback_name(const std::string &h)
{
	return h == "localhost" || h == "localhost.localdomain" || h.rfind("127.", 0) == 0 || h == "::1";
}

bool one_machine(const evidence &ev)
{
	int named = 0;
	for (size_t h = 0; h < ev.host_count(); h++)
		named += !loopback_name(ev.host_name(static_cast<int>(h)));
	return named <= 1;
}

// The device a line's own words name ("GPU 2; ... total capacity" in
// torch's out-of-memory message), -1 for none.
int device_named(const event &e)
{
	const std::string v = e.capture("gpu");
	return v.empty() || v.size() > 3 ? -1 : std::atoi(v.c_str());
}

bool ip_literal(const std::string &h)
{
	if (h.empty())
		return false;
	bool v4 = true;
	for (char c : h)
		v4 = v4 && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
	return v4 || h.find(':') != std::string::npos;
}

// The machines the logs name by a name of their own ("localhost" and
// addresses aside).
std::vector<int> named_machines(const evidence &ev)
{
	std::vector<int> out;
	for (size_t h = 0; h < ev.host_count(); h++) {
		const std::string &n = ev.host_name(static_cast<int>(h));
		if (!loopback_name(n) && !ip_literal(n))
			out.push_back(static_cast<int>(h));
	}
	return out;
}

// The machines a cluster manager or a terminal's prompt says the job ran
// on (capture job_node).
std::vector<std::string> job_nodes(const evidence &ev)
{
	// A cluster manager's word on where the job ran outweighs a terminal's
	// prompt (a paste may show the login node's prompt too).
	std::set<std::string> said, prompts;
	for (const auto &e : ev.events)
		if (!e.dropped && !e.capture("job_node").empty())
			(e.r && e.r->family == "shell" ? prompts : said).insert(e.capture("job_node"));
	if (said.empty())
		said = prompts;
	return std::vector<std::string>(said.begin(), said.end());
}

// The node a Slurm task ran on: srun's "node: task N: ..." lines and the
// plugin's records; -1 when they say none or several.
int node_of_task(const evidence &ev, int task)
{
	std::set<int> nodes;
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::task_exit || e.host < 0 ||
		    ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		for (int t : parse_task_list(e.capture("task")))
			if (t == task)
				nodes.insert(e.host);
	}
	for (const auto &pt : ev.plugin_tasks)
		if (pt.task == task && pt.node >= 0 && pt.step != "batch" && pt.step != "extern")
			nodes.insert(pt.node);
	return nodes.size() == 1 ? *nodes.begin() : -1;
}

namespace {

// srun's task ids are global ranks only when srun starts every rank itself;
// under torchrun (or any per-node launcher) a task is a node's launcher.
bool srun_tasks_are_ranks(const evidence &ev)
{
	for (const auto &src : ev.sources())
		if (src.labels_are_not_ranks)
			return false;
	for (const auto &e : ev.events) {
		if (e.task >= 0 && e.local_rank >= 0)
			return false;
		if (e.r && e.r->family == "torchrun")
			return false;
		// A frame of a node's launcher on a labelled line: that task is it.
		if (e.task >= 0 && !e.capture("launcher_frame").empty())
			return false;
	}
	return true;
}

// A launcher's table of the ranks on each host (DeepSpeed's
// global_rank_mapping): rank, host and local rank for every rank listed.
// Its table of the GPU slots of each host instead (DeepSpeed's "WORLD INFO
// DICT", in node order): global ranks are numbered through the hosts in
// that order.
bool apply_rank_layouts(evidence &ev)
{
	bool applied = false;
	for (size_t i = 0; i < ev.events.size(); i++) {
		std::string text = ev.events[i].capture("rank_layout");
		bool slots = text.empty();
		if (slots)
			text = ev.events[i].capture("slot_layout");
		rank_layout layout;
		if (text.empty() || !parse_rank_layout(text, layout))
			continue;
		if (slots) {
			int next = 0;
			for (auto &h : layout)
				for (auto &r : h.second)
					r = next++;
		}
		for (const auto &h : layout) {
			int host = ev.intern_host(h.first);
			for (size_t local = 0; local < h.second.size(); local++) {
				rank_info ri;
				ri.rank = h.second[local];
				ri.local_rank = static_cast<int>(local);
				if (const rank_info *known = ev.ranks.by_rank(ri.rank); !known || known->host < 0)
					ri.host = host;
				ev.ranks.add(ri);
				applied = true;
			}
		}
	}
	return applied;
}

// The node each srun task ran on, as srun's own lines say ("node2: task 1:
// Exited ..."), the first that names it.
std::map<int, int> srun_task_nodes(const evidence &ev)
{
	std::map<int, int> nodes;
	for (const auto &e : ev.events) {
		if (e.dropped || e.kind != rule_kind::task_exit || e.host < 0 || ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		for (int t : parse_task_list(e.capture("task")))
			nodes.emplace(t, e.host);
	}
	return nodes;
}

// The job's nodes: Slurm's node list, else every node the logs name, else
// the machines a cluster manager or a terminal's prompt says the job ran on.
size_t nodes_in_job(const evidence &ev)
{
	if (!ev.job.nodelist.empty())
		return expand_nodelist(ev.job.nodelist).size();
	if (size_t named = named_machines(ev).size())
		return named;
	return job_nodes(ev).size();
}

// Under a per-node launcher (torchrun under srun) a Slurm task is a node's
// agent: its workers' lines carry the agent's label and their local rank,
// and the agent's failure block ("rank : 2 (local_rank: 0)") ties a local
// rank under that agent to a global rank. The agent's node, from Slurm
// (srun's "node2: task 1: ..." or the plugin's records), is its workers'.
void resolve_agent_workers(evidence &ev)
{
	if (ev.tasks_are_ranks)
		return;
	std::map<int, int> agent_node = srun_task_nodes(ev);
	std::map<int, std::set<int>> plugin_nodes;
	for (const auto &pt : ev.plugin_tasks)
		if (pt.task >= 0 && pt.node >= 0 && pt.step != "batch" && pt.step != "extern")
			plugin_nodes[pt.task].insert(pt.node);
	for (const auto &x : plugin_nodes)
		if (x.second.size() == 1)
			agent_node[x.first] = *x.second.begin();
	std::map<std::pair<int, int>, int> worker; // (agent task, local rank) -> rank
	std::set<std::pair<int, int>> ambiguous;
	for (const auto &e : ev.events) {
		if (e.rank < 0 || e.task < 0 || e.local_rank < 0)
			continue;
		auto k = std::make_pair(e.task, e.local_rank);
		auto it = worker.find(k);
		if (it == worker.end())
			worker.emplace(k, e.rank);
		else if (it->second != e.rank)
			ambiguous.insert(k);
	}
	for (const auto &k : ambiguous)
		worker.erase(k);
	// One agent on a job of one node: torchrun's global ranks are its
	// local ranks (nnodes 1), whether or not a failure block says so.
	std::set<int> agents;
	for (const auto &e : ev.events)
		if (e.task >= 0 && e.local_rank >= 0)
			agents.insert(e.task);
	if (agents.size() == 1 && nodes_in_job(ev) == 1)
		for (const auto &e : ev.events)
			if (e.task >= 0 && e.local_rank >= 0) {
				auto k = std::make_pair(e.task, e.local_rank);
				if (!worker.count(k) && !ambiguous.count(k))
					worker.emplace(k, e.local_rank);
			}
	for (auto &e : ev.events) {
		if (e.rank >= 0 || e.task < 0 || e.local_rank < 0)
			continue;
		auto it = worker.find({e.task, e.local_rank});
		if (it != worker.end())
			e.rank = it->second;
	}
	for (const auto &w : worker) {
		auto node = agent_node.find(w.first.first);
		if (node == agent_node.end())
			continue;
		const rank_info *known = ev.ranks.by_rank(w.second);
		if (known && known->host >= 0 && !loopback_name(ev.host_name(known->host)))
			continue;
		rank_info ri;
		ri.rank = w.second;
		ri.host = node->second;
		ri.local_rank = w.first.second;
		ev.ranks.add(ri);
	}
}

// The same without srun: the one machine's unlabelled output (torchrun's
// "[default3]:" before each worker's lines) is one agent's, whose local
// ranks are the global ones.
void resolve_unlabelled_agent(evidence &ev)
{
	bool one_node_launch = false; // torchrun --standalone, --nnodes 1
	for (const auto &e : ev.events) {
		if (e.task >= 0 && e.local_rank >= 0)
			return; // srun's labels say which agent
		one_node_launch = one_node_launch || (!e.dropped && !e.capture("one_node").empty());
	}
	if (nodes_in_job(ev) != 1 && !one_node_launch)
		return;
	for (auto &e : ev.events)
		if (e.rank < 0 && e.task < 0 && e.local_rank >= 0 && ev.sources()[e.file].kind != source_kind::kernel_log)
			e.rank = e.local_rank;
}

// A torchrun agent's failure block names its node ("host : gpu-c07"), and
// the agent's stream (its srun label, or the whole file where nothing
// labels lines) carries the lines of the workers it supervises: a rank
// seen there whose host nothing else says runs on that node. An unlabelled
// file is one agent's only where the job shows no second node.
void resolve_agent_stream_hosts(evidence &ev)
{
	std::map<std::pair<uint32_t, int>, std::set<int>> block_hosts; // (file, task) -> hosts
	for (const auto &e : ev.events) {
		std::string bh = e.capture("block_host");
		if (bh.empty() || loopback_name(bh) || ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		block_hosts[{e.file, e.task}].insert(ev.intern_host(bh));
	}
	std::set<int> rank_hosts;
	for (const auto &r : ev.ranks.all())
		if (r.second.host >= 0 && !loopback_name(ev.host_name(r.second.host)))
			rank_hosts.insert(r.second.host);
	for (const auto &s : block_hosts) {
		if (s.second.size() != 1)
			continue;
		int host = *s.second.begin();
		if (s.first.second < 0) {
			std::vector<std::string> nodes = expand_nodelist(ev.job.nodelist);
			if (nodes.size() > 1 || (nodes.size() == 1 && ev.host_name(host) != nodes[0]))
				continue;
			if (rank_hosts.size() > 1 || (rank_hosts.size() == 1 && *rank_hosts.begin() != host))
				continue;
		}
		for (const auto &e : ev.events) {
			if (e.file != s.first.first || e.task != s.first.second || e.rank < 0)
				continue;
			if (const rank_info *known = ev.ranks.by_rank(e.rank);
			    known && known->host >= 0 && !loopback_name(ev.host_name(known->host)))
				continue;
			rank_info ri;
			ri.rank = e.rank;
			ri.host = host;
			ev.ranks.add(ri);
		}
	}
}

// torchrun's rendezvous result names the global ranks its node's agent
// started, in local-rank order ("global_ranks=[4, 5, 6, 7]"); the stream
// it came on names the node (pdsh's host, or srun's node of its label):
// where those ranks ran, where nothing better says.
void apply_agent_ranks(evidence &ev)
{
	for (const auto &e : ev.events) {
		std::string list = e.capture("agent_ranks");
		if (list.empty() || ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		int host = e.host >= 0 ? e.host : e.task >= 0 ? node_of_task(ev, e.task) : -1;
		if (host < 0 || loopback_name(ev.host_name(host)))
			continue;
		int local = 0;
		for (size_t i = 0; i < list.size(); local++) {
			size_t j = i;
			while (j < list.size() && std::isdigit(static_cast<unsigned char>(list[j])))
				j++;
			long long v;
			if (j == i || !parse_uint_str(list.substr(i, j - i), v))
				break;
			if (const rank_info *known = ev.ranks.by_rank(static_cast<int>(v)); !known || known->host < 0) {
				rank_info ri;
				ri.rank = static_cast<int>(v);
				ri.host = host;
				ri.local_rank = local;
				ev.ranks.add(ri);
			}
			i = j;
			while (i < list.size() && (list[i] == ',' || list[i] == ' '))
				i++;
		}
	}
}

// torch.multiprocessing.spawn numbers its processes on their machine
// ("-- Process 1 terminated"): the reader took that index for the global
// rank, which holds on a job of one node. Where the line's srun task ran on
// another node than the rank of that number (srun's "gpu-d22: task 1: ..."
// against NCCL's rank map), it is a local rank there: the rank on that node
// with that local rank (or that CUDA device, one process a GPU), else none.
void place_spawned_processes(evidence &ev)
{
	std::map<int, int> task_node = srun_task_nodes(ev);
	for (auto &e : ev.events) {
		if (e.capture("spawn_local").empty() || e.task < 0 || e.local_rank < 0)
			continue;
		auto tn = task_node.find(e.task);
		const rank_info *ri = ev.ranks.by_rank(e.rank);
		if (tn == task_node.end() || !ri || ri->host < 0 || ri->host == tn->second)
			continue;
		int found = -1, n = 0;
		for (const auto &r : ev.ranks.all())
			if (r.second.host == tn->second &&
			    (r.second.local_rank == e.local_rank || (r.second.local_rank < 0 && r.second.cuda_dev == e.local_rank))) {
				found = r.first;
				n++;
			}
		e.rank = n == 1 ? found : -1;
		e.host = tn->second;
	}
}

// torchrun's launch line with a fixed --nnodes=N and --nproc-per-node=P
// (or an MPI launch's -np N) states the job's world, N*P ranks, however
// few of them logged: a rank that printed nothing is still one of them.
// Launch lines that disagree (steps of several sizes) state none.
void apply_launch_world(evidence &ev)
{
	std::set<long long> worlds;
	for (const auto &e : ev.events) {
		long long n, p;
		if (e.dropped)
			continue;
		// An MPI launch's "-np N" states its world as it is.
		if (parse_uint_str(e.capture("launch_world"), n) && n >= 1 && n <= 1000000)
			worlds.insert(n);
		if (!parse_uint_str(e.capture("agent_nnodes"), n) || !parse_uint_str(e.capture("agent_nproc"), p))
			continue;
		if (n >= 1 && p >= 1 && n <= 100000 && p <= 1024)
			worlds.insert(n * p);
	}
	if (worlds.size() == 1 && *worlds.begin() <= 1000000)
		ev.ranks.note_world_size(static_cast<int>(*worlds.begin()));
}

// A file of a numbered series (one task's output, apply_numbered_files)
// whose NCCL Init line names the one rank it holds, and where nothing names
// another rank or process: its lines that name no rank are that rank's (an
// anomaly-mode traceback has no prefix). A job log of its own with one
// rank's Init line is not one process's: rank 0 alone may print it.
void apply_file_owners(evidence &ev, const std::vector<bool> &one_task)
{
	struct owner {
		int rank = -1, host = -1, pid = 0;
		bool mixed = false, init = false;
	};
	std::map<uint32_t, owner> by_file;
	for (const auto &e : ev.events) {
		if (ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		owner &o = by_file[e.file];
		if (o.mixed)
			continue;
		if (e.rank >= 0) {
			if (o.rank >= 0 && o.rank != e.rank)
				o.mixed = true;
			o.rank = e.rank;
			o.init = o.init || e.kind == rule_kind::rank_map;
		}
		if (e.pid > 0) {
			if ((o.pid > 0 && o.pid != e.pid) || (o.host >= 0 && e.host >= 0 && o.host != e.host))
				o.mixed = true;
			o.pid = e.pid;
			if (e.host >= 0)
				o.host = e.host;
		}
	}
	if (ev.ranks.world_size() < 2)
		return;
	for (auto &e : ev.events) {
		if (e.rank >= 0 || e.pid > 0 || e.local_rank >= 0)
			continue;
		auto it = by_file.find(e.file);
		if (it == by_file.end() || it->second.mixed || !it->second.init || e.file >= one_task.size() ||
		    !one_task[e.file])
			continue;
		if (e.host >= 0 && it->second.host >= 0 && e.host != it->second.host)
			continue;
		e.rank = it->second.rank;
	}
}

// Files named alike but for a number from 0 over N >= 2 of them, below 4N
// (srun -o train-%j-%t.out, rank0.log ... rank7.log) are one srun task's
// (or rank's) output each: the number is the task of the lines in it that
// name no writer. Per-node files (node0.out) are nodes', not tasks'.
std::vector<bool> apply_numbered_files(evidence &ev)
{
	struct numbered {
		std::string stem, tail;
		long long n = -1;
	};
	std::vector<numbered> of(ev.sources().size());
	std::map<std::pair<std::string, std::string>, std::set<long long>> series;
	std::map<std::pair<std::string, std::string>, size_t> files_in;
	for (size_t i = 0; i < ev.sources().size(); i++) {
		const source_file &sf = ev.sources()[i];
		if (sf.kind == source_kind::kernel_log)
			continue;
		std::string name = sf.path.substr(sf.path.rfind('/') + 1);
		size_t dot = name.find('.');
		std::string base = name.substr(0, dot), tail = dot == std::string::npos ? "" : name.substr(dot);
		size_t d = base.size();
		while (d > 0 && isdigit(static_cast<unsigned char>(base[d - 1])))
			d--;
		if (d == base.size() || d == 0 || base.size() - d > 6)
			continue;
		std::string stem = sf.path.substr(0, sf.path.size() - name.size()) + base.substr(0, d);
		std::string word = base.substr(0, d);
		for (char &c : word)
			c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
		if (word.size() >= 4 && (word.compare(word.size() - 4, 4, "node") == 0 ||
					 word.compare(word.size() - 4, 4, "host") == 0))
			continue;
		long long n = std::stoll(base.substr(d));
		of[i] = numbered{stem, tail, n};
		series[{stem, tail}].insert(n);
		files_in[{stem, tail}]++;
	}
	std::vector<bool> one_task(of.size(), false);
	for (size_t i = 0; i < of.size(); i++) {
		if (of[i].n < 0)
			continue;
		const std::set<long long> &ns = series[{of[i].stem, of[i].tail}];
		// From 0, each once, with few gaps (a dead task's file may be
		// missing): a task numbering, not a rotation or a date.
		one_task[i] = ns.size() >= 2 && files_in[{of[i].stem, of[i].tail}] == ns.size() && *ns.begin() == 0 &&
			      *ns.rbegin() < 4 * static_cast<long long>(ns.size());
	}
	// A file whose own Init line names another rank than its number: the
	// number is a task's that is no rank (apply_file_owners places it).
	std::vector<bool> other_rank(of.size(), false);
	for (const auto &e : ev.events)
		if (e.kind == rule_kind::rank_map && e.rank >= 0 && e.file < of.size() && one_task[e.file] &&
		    e.rank != of[e.file].n)
			other_rank[e.file] = true;
	for (auto &e : ev.events)
		if (e.rank < 0 && e.task < 0 && e.pid <= 0 && e.local_rank < 0 && e.file < of.size() && one_task[e.file] &&
		    !other_rank[e.file])
			e.task = static_cast<int>(of[e.file].n);
	return one_task;
}

// Ranks, hosts and pids that one line did not name come from the others.
// A launcher's line naming a worker's pid once its rank is known
// (DeepSpeed's "process P spawned with command: [... --local_rank=L]"):
// that pid is the rank's, and a line naming only the pid (the kernel's
// "Killed process P") is that rank's. On one machine the kernel's host
// name and the launcher's "localhost" are the same.
void apply_spawned_pids(evidence &ev, bool single_machine)
{
	bool added = false;
	for (const auto &e : ev.events)
		if (!e.dropped && e.rank >= 0 && e.pid > 0 && !e.capture("spawned").empty()) {
			rank_info ri;
			ri.rank = e.rank;
			ri.pid = e.pid;
			ev.ranks.add(ri);
			added = true;
		}
	if (!added)
		return;
	for (auto &e : ev.events) {
		if (e.rank >= 0 || e.pid <= 0)
			continue;
		e.rank = ev.ranks.rank_of_pid(e.host, e.pid);
		if (e.rank < 0 && single_machine)
			e.rank = ev.ranks.rank_of_pid(-1, e.pid);
	}
}

// DeepSpeed's launcher reports a failed worker with the command line of the
// last worker it spawned (--local_rank=N, capture last_spawned). Where N
// is the node's last local rank, that says nothing of which worker failed;
// where the node ran one worker, or N is below its last (a launcher that
// printed the failed worker's own line), it is that worker's local rank.
void apply_last_spawned(evidence &ev)
{
	for (auto &e : ev.events) {
		long long n;
		if (e.local_rank >= 0 || e.capture("last_spawned").empty() || !parse_uint_str(e.capture("last_spawned"), n))
			continue;
		int host = e.host >= 0 ? e.host : ev.ranks.sole_local_host();
		size_t local = 0;
		for (const auto &r : ev.ranks.all())
			local += host >= 0 && r.second.host == host;
		if (local <= 1 || static_cast<size_t>(n) + 1 < local)
			e.local_rank = static_cast<int>(n);
	}
}

} // namespace

// A cloud's record names the instance, which a cluster manager may name
// after the cluster and the node ("gpucluster-compute002" runs Slurm's
// "compute002"): a record naming no host of the job, whose name ends in
// "-" and one node's name (of the job's node list, or a host the job's
// own lines name) and no other's, is that node's.
void place_cloud_records(evidence &ev)
{
	std::set<std::string> nodes;
	for (const std::string &n : expand_nodelist(ev.job.nodelist))
		nodes.insert(n);
	for (const auto &r : ev.ranks.all())
		if (r.second.host >= 0)
			nodes.insert(ev.host_name(r.second.host));
	for (const auto &e : ev.events)
		if (e.host >= 0 && e.r && e.r->family != "orchestrator")
			nodes.insert(ev.host_name(e.host));
	if (nodes.empty())
		return;
	std::map<int, int> placed; // instance host -> node host (-2: several)
	for (auto &e : ev.events) {
		if (e.host < 0 || !e.r || e.r->family != "orchestrator")
			continue;
		const std::string &name = ev.host_name(e.host);
		if (nodes.count(name))
			continue;
		auto it = placed.find(e.host);
		if (it == placed.end()) {
			int node = -1;
			for (const std::string &n : nodes) {
				// (A name of a few letters says too little to match on.)
				if (n.size() < 4 || name.size() <= n.size() + 1 ||
				    name.compare(name.size() - n.size(), n.size(), n) != 0 || name[name.size() - n.size() - 1] != '-')
					continue;
				node = node == -1 ? ev.intern_host(n) : -2;
			}
			it = placed.emplace(e.host, node).first;
		}
		if (it->second >= 0)
			e.host = it->second;
	}
}

void resolve_identities(evidence &ev)
{
	const std::vector<bool> one_task = apply_numbered_files(ev);
	bool tasks_are_ranks = srun_tasks_are_ranks(ev);
	ev.tasks_are_ranks = tasks_are_ranks;
	apply_plugin_records(ev);
	bool launcher_layout = apply_rank_layouts(ev);
	// srun's "node: tasks 16-23: Aborted" says where those tasks ran; with
	// srun starting every rank, where those ranks ran (gaps only).
	if (tasks_are_ranks)
		for (const auto &e : ev.events) {
			if (e.kind != rule_kind::task_exit || e.host < 0 || ev.sources()[e.file].kind == source_kind::kernel_log)
				continue;
			for (int t : parse_task_list(e.capture("task")))
				if (const rank_info *known = ev.ranks.by_rank(t); !known || known->host < 0) {
					rank_info ri;
					ri.rank = t;
					ri.host = e.host;
					ev.ranks.add(ri);
				}
		}
	for (auto &e : ev.events) {
		if (e.rank < 0 && e.task >= 0 && tasks_are_ranks)
			e.rank = e.task;
		// What a line says about where a rank ran fills gaps only: the
		// NCCL rank map knows better than a host prefix.
		if (e.rank >= 0 && (e.host >= 0 || e.pid > 0)) {
			const rank_info *known = ev.ranks.by_rank(e.rank);
			if (e.kind == rule_kind::rank_map || !known || known->host < 0) {
				rank_info ri;
				ri.rank = e.rank;
				ri.host = e.host;
				if (e.kind == rule_kind::rank_map)
					ri.pid = e.pid;
				ev.ranks.add(ri);
			}
		}
	}
	resolve_agent_workers(ev);
	resolve_unlabelled_agent(ev);
	resolve_agent_stream_hosts(ev);
	apply_agent_ranks(ev);
	apply_launch_world(ev);
	place_spawned_processes(ev);
	// A process that named one rank as its own on two lines or more (and
	// never another) is that rank, where the rank map knows its pid as no
	// other rank's (a driver quoting one rank's error once stays itself).
	for (const auto &tp : ev.tagged_pids) {
		const auto &t = tp.second;
		if (t.mixed || t.lines < 2 || ev.ranks.rank_of_pid(tp.first.first, tp.first.second) >= 0)
			continue;
		const rank_info *known = ev.ranks.by_rank(t.rank);
		if (known && known->pid > 0 && known->pid != tp.first.second)
			continue;
		rank_info ri;
		ri.rank = t.rank;
		ri.pid = tp.first.second;
		if (!known || known->host < 0)
			ri.host = tp.first.first;
		ev.ranks.add(ri);
	}
	apply_file_owners(ev, one_task);
	apply_last_spawned(ev);
	const bool single_machine = one_machine(ev);
	for (auto &e : ev.events) {
		if (e.rank < 0 && e.pid > 0)
			e.rank = ev.ranks.rank_of_pid(e.host, e.pid);
		if (e.rank < 0 && e.host >= 0 && e.local_rank >= 0)
			e.rank = ev.ranks.rank_of_local(e.host, e.local_rank);
		// A launcher that lays ranks out over the GPU slots of each host
		// (DeepSpeed's tables) gives every worker all of them and device
		// local_rank: the device an NCCL line names is its local rank.
		if (e.rank < 0 && e.host >= 0 && e.cuda_dev >= 0 && launcher_layout)
			e.rank = ev.ranks.rank_of_local(e.host, e.cuda_dev);
		// So is the device a CUDA error names ("GPU 2; 39.41 GiB total
		// capacity"), on the one machine such a launcher laid out.
		if (e.rank < 0 && e.host < 0 && launcher_layout && single_machine)
			if (int dev = device_named(e); dev >= 0)
				if (int h = ev.ranks.sole_local_host(); h >= 0)
					e.rank = ev.ranks.rank_of_local(h, dev);
		// A line without a host, in a job that shows one host only (the
		// launcher's mapping lists one, or only "localhost" beside the
		// machine's own name): the local rank is on that host.
		if (e.rank < 0 && e.host < 0 && e.local_rank >= 0 && single_machine)
			if (int h = ev.ranks.sole_local_host(); h >= 0)
				e.rank = ev.ranks.rank_of_local(h, e.local_rank);
		if (e.rank < 0 && e.host >= 0) {
			std::string pci = e.capture("pci");
			if (pci.empty())
				pci = e.capture("busid");
			if (!pci.empty())
				e.rank = ev.ranks.rank_of_busid(e.host, normalise_busid(pci));
		}
		if (e.rank < 0 && e.kind == rule_kind::task_exit && tasks_are_ranks) {
			std::string t = e.capture("task");
			long long v;
			if (!t.empty() && parse_uint_str(t, v))
				e.rank = static_cast<int>(v);
		}
		if (e.rank >= 0)
			if (const rank_info *ri = ev.ranks.by_rank(e.rank); ri && ri->host >= 0 &&
			    (e.host < 0 || (ri->host_authoritative && ev.sources()[e.file].kind != source_kind::kernel_log)))
				e.host = ri->host;
		if (e.rank >= 0)
			ev.ranks.note_world_size(e.rank + 1);
	}
	apply_spawned_pids(ev, single_machine);
	place_cloud_records(ev);
}

// The host that uses address (NCCL's Bootstrap/OOB lines, a pod row's address); -1 when none
// or several do.
int host_with_address(const evidence &ev, const std::string &address)
{
	if (address.empty())
		return -1;
	int host = -1;
	for (const auto &e : ev.events) {
		// A line whose host is named by the address itself (pdsh's
		// "10.1.2.4: " prefix) says nothing about whose it is.
		if (e.host < 0 || e.capture("host_ip") != address || ev.host_name(e.host) == address)
			continue;
		if (host >= 0 && host != e.host)
			return -1;
		host = e.host;
	}
	if (host >= 0)
		return host;
	// A pod's address in kubectl's listing: the pod, where the job's lines
	// name it.
	for (const auto &e : ev.events) {
		if (e.capture("pod_ip") != address)
			continue;
		const int pod = ev.find_host(e.capture("pod"));
		if (pod < 0 || (host >= 0 && host != pod))
			return -1;
		host = pod;
	}
	return host;
}

bool same_machine(const std::string &a, const std::string &b)
{
	if (a == b)
		return true;
	const std::string &s = a.size() < b.size() ? a : b, &l = a.size() < b.size() ? b : a;
	return l.compare(0, s.size(), s) == 0 && l[s.size()] == '.';
}

} // namespace diag
