// Who ran where: ranks, hosts and pids that one line did not name come from
// the others (before clock alignment, which works per host), and the first
// rank's host from everything that maps ranks to hosts.
#include "deciding/context.hh"
#include "deciding/diagnose.hh"
#include "deciding/exits.hh"

#include "aligning/rank_layout.hh"
#include "aligning/rank_map.hh"
#include "reading/line_prefix.hh"
#include "reading/plugin_records.hh"
#include "reading/slurm_nodelist.hh"

#include <cctype>

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

namespace {

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

bool ip_literal(const std::string &h);


// Under a per-node launcher (torchrun under srun) a Slurm task is a node's
// agent: its workers' lines carry the agent's label and their local rank,
// and the agent's failure block ("rank : 2 (local_rank: 0)") ties a local
// rank under that agent to a global rank. The agent's node, from Slurm
// (srun's "node2: task 1: ..." or the plugin's records), is its workers'.
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
	for (const auto &e : ev.events)
		if (e.task >= 0 && e.local_rank >= 0)
			return; // srun's labels say which agent
	if (nodes_in_job(ev) != 1)
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

int node_of_task(const evidence &ev, int task);

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

} // namespace

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
}

namespace {

int host_by_layout(evidence &ev, int rank);

// The host a rank ran on: the rank map, else what the rank's own lines
// said, else where the job's nodes and the other ranks' hosts put it.
int host_of_rank(evidence &ev, int rank)
{
	if (rank < 0)
		return -1;
	if (const rank_info *ri = ev.ranks.by_rank(rank); ri && ri->host >= 0)
		return ri->host;
	for (const auto &e : ev.events)
		if (e.rank == rank && e.host >= 0 && !e.dropped && ev.sources()[e.file].kind != source_kind::kernel_log)
			return e.host;
	return host_by_layout(ev, rank);
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

// The one machine the logs name (an address or "localhost" aside), or -1.
int sole_named_machine(const evidence &ev)
{
	std::vector<int> named = named_machines(ev);
	return named.size() == 1 ? named[0] : -1;
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

bool ip_literal(const std::string &h)
{
	if (h.empty())
		return false;
	bool v4 = true;
	for (char c : h)
		v4 = v4 && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
	return v4 || h.find(':') != std::string::npos;
}

// A launcher that prefixes lines with the node's address (pdsh -w by IP)
// names the node itself inside them: torchrun's failure block under
// "10.84.0.2:" says "host : node042". The name, not the address, is what
// an admin drains. Without such a block, NCCL's Bootstrap line of the
// node that uses the address names it.
int named_host(const evidence &ev, int host)
{
	// "localhost" (a launcher's table on one machine) is every machine's
	// name for itself: the machine's own name, where the job shows one.
	if (host >= 0 && loopback_name(ev.host_name(host))) {
		int own = sole_named_machine(ev); // (several: which one is not known)
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
	// (The same node by its short name or its full one.)
	auto same_node = [&](const std::string &n) {
		return n == node || (n.size() > node.size() && n.compare(0, node.size(), node) == 0 && n[node.size()] == '.') ||
		       (node.size() > n.size() && node.compare(0, n.size(), n) == 0 && node[n.size()] == '.');
	};
	std::string pod;
	for (const auto &e : ev.events) {
		if (e.capture("pod_node").empty() || !same_node(e.capture("pod_node")))
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
	// lines name one machine only: that machine.
	if (d.first_host < 0 && d.first_rank >= 0 && cx.ev.job.nodelist.empty())
		d.first_host = sole_named_machine(cx.ev);
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
	// A stop typed at a terminal (qdel's answer under a login node's
	// prompt) names the terminal's machine: where the ranks ran is known,
	// and it is not there, so it is not where the job ended.
	if (job_end_here && d.first_host >= 0 && d.first_rank < 0 && !ranks_ran_on(cx.ev, d.first_host)) {
		bool ranks_placed = false;
		for (const auto &x : cx.ev.ranks.all())
			ranks_placed = ranks_placed || x.second.host >= 0;
		if (ranks_placed)
			d.first_host = -1;
	}
	// (Also where only victims spoke, of a known kind: the one node is where
	// it happened.)
	if (d.first_host < 0 && (d.first || d.cls != failure_class::unknown) &&
	    ((node_fault && (!job_report || d.cls == failure_class::node_failure)) || job_end_here)) {
		std::vector<std::string> nodes = expand_nodelist(cx.ev.job.nodelist);
		// (Where the ranks ran, when the rank map says: a terminal's prompt
		// may be the login node's.)
		if (nodes.empty() && job_end_here) {
			std::set<std::string> rank_hosts;
			for (const auto &x : cx.ev.ranks.all())
				if (x.second.host >= 0 && !loopback_name(cx.ev.host_name(x.second.host)))
					rank_hosts.insert(cx.ev.host_name(x.second.host));
			nodes.assign(rank_hosts.begin(), rank_hosts.end());
		}
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
	d.first_host = pod_on_node(cx.ev, named_host(cx.ev, machine_of_container(cx.ev, d.first_host, d.first_rank)));
	for (auto &s : d.suspects) {
		if (s.host < 0)
			s.host = host_of_rank(cx.ev, s.rank);
		s.host = named_host(cx.ev, machine_of_container(cx.ev, s.host, s.rank));
	}
}

} // namespace diag
