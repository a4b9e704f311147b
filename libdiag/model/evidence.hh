// What the readers found, kept bounded: retained events (the first few of
// each rule per rank, with counts for the rest), the rank map, job facts and
// the sources read. Memory grows with ranks and rules, not with log size.
#pragma once

#include "model/event.hh"
#include "aligning/rank_map.hh"
#include "model/run_links.hh"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace diag {

enum class source_kind { job_log, nccl_log, kernel_log, sacct_text, sacct_json, torchelastic, fr_dump, rank_map_file, stdin_log };

struct source_file {
	std::string path;    // as given (for file:line)
	source_kind kind = source_kind::job_log;
	int host_hint = -1;  // host named by the path (kern.node17.log)
	uint64_t bytes_read = 0;
	uint64_t bytes_skipped = 0;
	bool labels_are_not_ranks = false; // srun labels seen next to a different [rankR]
};

struct job_facts {
	std::string job_id;
	std::string state;        // sacct State of the job (first word)
	std::string state_detail; // e.g. "CANCELLED by 0"
	std::string exit_code, derived_exit_code, reason;
	int64_t start_us = no_time, end_us = no_time;
	bool times_local = false; // sacct -P prints local times (read as UTC until the zone is known)
	std::string nodelist;
	std::vector<std::pair<std::string, std::string>> steps; // step id, state
};

// A task as the SPANK plugin recorded it.
struct plugin_task {
	int task = -1;       // Slurm global task id
	int node = -1;       // Slurm node name (interned host)
	int hostname = -1;   // the host name the task saw (what NCCL prints)
	int pid = -1;
	int local_task = -1;
};

// A rank's (or srun task's) last progress line in one file.
struct rank_progress_mark {
	uint32_t file = 0;
	int id = -1;         // the rank, or the task when is_task
	bool is_task = false;
	int64_t us = 0;      // file-local µs (file_local_us)
};

class evidence {
public:
	int intern_host(std::string_view name);
	const std::string &host_name(int id) const { return ev_hosts[static_cast<size_t>(id)]; }
	size_t host_count() const { return ev_hosts.size(); }

	uint32_t add_source(source_file f);
	source_file &source(uint32_t i) { return ev_sources[i]; }
	const std::vector<source_file> &sources() const { return ev_sources; }

	// Keeps the event if it is one of the first few of its rule for its
	// writer; always counts it. Returns its index in events, or -1.
	long add(event &&e);
	// Occurrences of a rule (by id) across all writers, retained or not.
	uint64_t count(const std::string &rule_id) const;

	std::vector<event> events;
	rank_map ranks;
	job_facts job;
	std::vector<std::string> warnings;
	// Last line number of a progress line per (file, writer key).
	std::unordered_map<uint64_t, uint64_t> last_progress;
	// Its time as the line said it, in µs comparable within one file only
	// (no zone or year applied); absent when the line had none.
	std::unordered_map<uint64_t, int64_t> last_progress_us;
	// Per rank-labelled writer: its last progress (hangs: who stopped first).
	std::vector<rank_progress_mark> rank_progress;
	std::vector<plugin_task> plugin_tasks;
	// Whether srun's task ids are global ranks (srun started every rank).
	bool tasks_are_ranks = true;
	// Per host: boot time (UTC µs) when a source said so.
	std::map<int, int64_t> boot_time;
	// The W&B run and Ray job the sources belong to (additive verdict links).
	run_links links;

private:
	std::vector<std::string> ev_hosts;
	std::unordered_map<std::string, int> ev_host_ids;
	std::vector<source_file> ev_sources;
	std::unordered_map<std::string, uint64_t> ev_rule_counts;
	std::unordered_map<std::string, uint32_t> ev_kept; // rule|writer -> kept
	uint64_t ev_order = 0;
};

inline uint64_t writer_key(uint32_t file, uint32_t key) { return (static_cast<uint64_t>(file) << 32) | key; }

} // namespace diag
