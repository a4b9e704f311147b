// What the readers found, kept bounded: retained events (the first few of
// each rule per writer), the rank map, job facts and the sources read. Memory grows with ranks and rules, not with log size.
#pragma once

#include "model/event.hh"
#include "aligning/rank_map.hh"
#include "model/run_links.hh"

#include <climits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace diag {

enum class source_kind { job_log, nccl_log, kernel_log, sacct_text, sacct_json, torchelastic, fr_dump, rank_map_file, stdin_log };

// Beside a stamp's reckoning (ts_reckoning) in source_file::written: a
// rule read the line.
constexpr uint8_t written_read = 16;

struct source_file {
	std::string path;    // as given (for file:line)
	source_kind kind = source_kind::job_log;
	int host_hint = -1;  // host named by the path (kern.node17.log)
	uint64_t bytes_read = 0;
	uint64_t bytes_skipped = 0;
	bool labels_are_not_ranks = false; // srun labels seen next to a different [rankR]
	bool job_output = false; // written by the job itself: its hardware lines are claims
	// The file's first stamp with its year (absolute, or local with a date):
	// the year of another file's stamps that print none.
	ts_value first_dated;
	// Its last stamp and that line: how long the log went on after its
	// last progress (a job that stopped stepping long before its end).
	ts_value last_stamp;
	uint64_t last_stamp_line = 0;
	// When it wrote: its stamped lines' file-local times, one a minute at
	// most (a line a minute or more after the newest kept), each with its
	// reckoning and whether a rule read it (| written_read), in file order.
	std::vector<std::pair<int64_t, uint8_t>> written;
	// Whether it wrote a stamped line of t's reckoning that no rule reads
	// (its work's: a hang's own chatter, a watchdog's or a barrier's
	// waiting, is read) strictly between from and to (file-local µs); the
	// newest line of any kind at or before at.
	bool wrote_between(const ts_value &t, int64_t from, int64_t to) const;
	int64_t last_written_before(const ts_value &t, int64_t at) const;
	// Its steadiest writer's pace: the longest interval between two of
	// its progress lines (by their own times), and how many intervals
	// there were (none: no writer had a pace). A silence many times
	// longer is no pause of a healthy job.
	int64_t pace_longest_us = 0;
	uint32_t pace_intervals = 0;
};

struct job_facts {
	std::string job_id;
	std::string state;        // sacct State of the job (first word)
	std::string state_detail; // e.g. "CANCELLED by 0"
	std::string exit_code, derived_exit_code, reason;
	int64_t start_us = no_time, end_us = no_time;
	// sacct's Elapsed and Timelimit in seconds (-1: not given, unlimited).
	int64_t elapsed_s = -1, timelimit_s = -1;
	bool times_local = false; // sacct -P prints local times (read as UTC until the zone is known)
	std::string nodelist;
	std::vector<std::pair<std::string, std::string>> steps; // step id, state
	// Where the State came from, as a verdict's source names it: sacct, or
	// the file:line of an accounting record in a log (Grid Engine's qacct).
	std::string state_source = "sacct";
};

// A writer's last progress line (a training step, an iteration).
struct progress_mark {
	uint32_t file = 0;
	uint32_t key = 0;    // the writer key, as in last_progress
	uint64_t line = 0;
	ts_value ts;         // unresolved: on the writer's host clock
	bool stamped = false; // ts is the line's own stamp, not one it inherits
	// Where it is not: the writer's last stamped progress line's own time,
	// when that came a line or two before (kind none otherwise).
	ts_value stamped_ts;
	int rank = -1;       // the writer's rank, or its srun task id
	int task = -1;
};

// A task as the SPANK plugin recorded it, with what its node's clock said
// when the task started (doc/handoff.md).
struct plugin_task {
	int task = -1;       // Slurm global task id
	int node = -1;       // Slurm node name (interned host)
	int hostname = -1;   // the host name the task saw (what NCCL prints)
	int pid = -1;
	int local_task = -1;
	std::string step;    // "0", "1", "batch", ...
	int64_t start_us = no_time;  // the node's clock at task start (UTC µs)
	int64_t srun_us = no_time;   // srun's clock when it launched the step
	bool has_utc_offset = false; // the node's zone is known
	int utc_offset_s = 0;        // its local time minus UTC
};

// A rank's (or srun task's) last progress line in one file.
struct rank_progress_mark {
	uint32_t file = 0;
	int id = -1;         // the rank, or the task when is_task
	bool is_task = false;
	int64_t us = 0;      // file-local µs (file_local_us)
};

// A writer's last training step number (a progress line's `step`
// capture), per rank or srun task: a hang's rank that is behind.
struct rank_step_mark {
	uint32_t file = 0;
	int id = -1;         // the rank, or the task when is_task
	bool is_task = false;
	long long step = -1;
	uint64_t line = 0;   // the line that said it
	const rule *r = nullptr; // its rule: steps of one kind of line compare
};

// A kind of line every rank printed in turn, which one rank stopped
// printing while each other rank printed it at least twice more
// (reading/rank_rounds.hh): that rank stopped taking part.
struct round_gap {
	uint32_t file = 0;
	int rank = -1;      // or srun's task, when is_task
	bool is_task = false;
	uint64_t line = 0;  // its last such line
	int ranks = 0;      // how many ranks printed the kind
	std::string sample; // one such line
	// The latest of the other ranks' last such lines' own times (file-local
	// µs, INT64_MIN: none) and their reckoning.
	int64_t others_last_us = INT64_MIN;
	ts_kind stamp_kind = ts_kind::none;
	bool stamp_year = false;
};

// Who went its own way at the end: in one file, the one rank whose last
// lines (a few) were of kinds no other rank printed, after the last line
// it shared with them, while every other rank's last line was one they
// shared (its validation alone, its checkpoint alone, while the others
// went on to the next collective).
struct lone_phase {
	uint32_t file = 0;
	int rank = -1;       // or srun's task, when is_task
	bool is_task = false;
	uint64_t line = 0;   // its last line
	int64_t us = INT64_MIN; // that line's own time, file-local (INT64_MIN: none)
	ts_kind stamp_kind = ts_kind::none;
	bool stamp_year = false;
};

// Who went one round ahead at the end: in one file, the one rank that
// printed a kind of line once more than every other rank, after their
// last one, where each earlier round all printed it within a short spread
// of time (its loop ended a step early and it went on into its
// evaluation, while the others waited in the step's collective).
struct ahead_round {
	uint32_t file = 0;
	int rank = -1;          // or srun's task, when is_task
	bool is_task = false;
	uint64_t line = 0;      // its extra line
	int64_t us = INT64_MIN; // that line's own time, file-local
	ts_kind stamp_kind = ts_kind::none;
	bool stamp_year = false;
	int64_t spread_us = 0;  // the widest spread of an earlier round's times
	int rounds = 0;         // the rounds every rank printed before it
	std::string sample;     // one such line
};

// A snapshot of the GPUs taken beside the job (nvidia-smi's table): when,
// where, and the processes that were on them then.
struct gpu_snapshot {
	uint32_t file = 0;
	uint64_t line = 0;  // its banner
	ts_value ts;        // its date (none: it had none near its banner)
	int host = -1;
	std::vector<int> pids;
};

// A row of nvidia-smi's periodic query (a monitor a batch script runs
// beside its job): when, and how busy the GPU was.
struct gpu_sample {
	uint32_t file = 0;
	uint64_t line = 0;
	ts_value ts; // the row's own stamp
	int util = -1; // percent
};

// One process in a stack dump of live processes (reading/stack_dumps.hh).
struct stack_dump {
	uint32_t file = 0;
	uint64_t line = 0;      // its "Process N:" line
	int pid = -1;
	int local_rank = -1;    // its command line's --local_rank=N, if any
	std::string host;       // the host its prefix names, if any
	std::string header;     // the line that introduced its dump, which may name the host
	uint64_t main_stack = 0; // its main thread's frames, hashed (0: none seen)
	int main_frames = 0;
	std::string main_top;   // the main thread's innermost frame
	bool worker = false;    // a DataLoader worker (not a rank)
	bool launcher = false;  // a launcher's own process (torchrun's agent): not a rank
	int rank = -1;          // the rank its own header names ("== pid N RANK=3"), if any
};

// A traceback that ended in KeyboardInterrupt: where one process was when
// the job was stopped (reading/stop_tracebacks.hh).
struct stop_traceback {
	uint32_t file = 0;
	uint64_t line = 0;      // its "Traceback" line
	int rank = -1;          // its writer's rank, if known
	int frames = 0;
	bool in_collective = false; // a frame in torch.distributed's collectives
	bool launcher = false;  // a launcher's own process (torchrun's agent, mp.spawn's parent)
	std::string where;      // its innermost frame of the job's own code, for the verdict's words
};

class evidence {
public:
	int intern_host(std::string_view name);
	// The id intern_host gives name, without adding it: -1 when unknown.
	int find_host(std::string_view name) const;
	const std::string &host_name(int id) const { return ev_hosts[static_cast<size_t>(id)]; }
	size_t host_count() const { return ev_hosts.size(); }
	// The host's full name as a log first wrote it ("gpu07.cluster.local"
	// for gpu07), where one did; else empty.
	const std::string &full_host_name(int id) const { return ev_full_hosts[static_cast<size_t>(id)]; }

	uint32_t add_source(source_file f);
	source_file &source(uint32_t i) { return ev_sources[i]; }
	const std::vector<source_file> &sources() const { return ev_sources; }
	// "path:line" of the event's line, as evidence cites it ("" for an
	// event of no file read).
	std::string where(const event &e) const;

	// Keeps the event if it is one of the first few of its rule for its
	// writer. Returns its index in events, or -1.
	long add(event &&e);

	std::vector<event> events;
	rank_map ranks;
	job_facts job;
	// The other jobs a sacct listing named (a resubmission's earlier run,
	// an array's siblings): the logs may be one of theirs (pipeline).
	std::vector<job_facts> other_jobs;
	std::vector<std::string> warnings;
	// Last line number of a progress line per (file, writer key).
	std::unordered_map<uint64_t, uint64_t> last_progress;
	// And its first (the two apart: the writer stepped more than once).
	std::unordered_map<uint64_t, uint64_t> first_progress;
	// Its time as the line said it, in µs comparable within one file only
	// (no zone or year applied); absent when the line had none.
	std::unordered_map<uint64_t, int64_t> last_progress_us;
	// Per rank-labelled writer: its last progress (hangs: who stopped first).
	std::vector<rank_progress_mark> rank_progress;
	// The same with its time as the line said it (or the writer's last
	// before it) and who wrote it, for the timeline picture.
	std::vector<progress_mark> progress_marks;
	// Per rank (or task) and file: the step its last progress line named.
	std::vector<rank_step_mark> rank_steps;
	std::vector<plugin_task> plugin_tasks;
	std::vector<round_gap> round_gaps;
	std::vector<lone_phase> lone_phases;
	std::vector<ahead_round> ahead_rounds;
	std::vector<gpu_snapshot> gpu_snapshots;
	std::vector<gpu_sample> gpu_samples; // in file order, bounded
	// The most ranks seen printing one kind of line in turn in one file
	// (by their prefix or their text): ranks taking part.
	int round_ranks = 0;
	std::vector<stack_dump> stack_dumps;
	std::vector<stop_traceback> stop_tracebacks;
	// Per process that names its own rank in its text (a rank tag under a
	// prefix with its pid: a Ray actor's "(Name pid=N) ... [Rank 3] ..."),
	// keyed by (host, pid): the rank, how many lines said it, and whether
	// one said another (host_resolution: a process is one rank).
	struct tagged_process {
		int rank = -1;
		int lines = 0;
		bool mixed = false;
	};
	std::map<std::pair<int, int>, tagged_process> tagged_pids;
	// Whether srun's task ids are global ranks (srun started every rank).
	bool tasks_are_ranks = true;
	// Per host: boot time (UTC µs) when a source said so.
	std::map<int, int64_t> boot_time;
	// The W&B run and Ray job the sources belong to (additive verdict links).
	run_links links;

private:
	std::vector<std::string> ev_hosts;
	std::vector<std::string> ev_full_hosts;
	std::unordered_map<std::string, int> ev_host_ids;
	std::vector<source_file> ev_sources;
	// rule|writer -> how many of its events are kept, and the own time of
	// its last one kept (INT64_MIN: none had a time)
	struct kept_count {
		uint32_t kept = 0;
		int64_t last_us = INT64_MIN;
	};
	std::unordered_map<std::string, kept_count> ev_kept;
	std::unordered_map<std::string, size_t> ev_last_reading; // rule|writer -> its newest reading's index
	struct reading_runs {
		uint32_t file = 0;
		uint64_t line = 0;
		int runs = 0;
	};
	std::unordered_map<std::string, reading_runs> ev_reading_runs; // rule|writer -> its runs so far
	uint64_t ev_order = 0;
};

inline uint64_t writer_key(uint32_t file, uint32_t key) { return (static_cast<uint64_t>(file) << 32) | key; }

// Whether a writer of the file had stepped before the line: two progress
// lines of its own or more, all above it (one bar alone is as often a
// dataset's preparation as training).
inline bool stepped_before(const evidence &ev, uint32_t file, uint64_t line)
{
	for (const auto &p : ev.last_progress) {
		auto first = ev.first_progress.find(p.first);
		if (static_cast<uint32_t>(p.first >> 32) == file && p.second < line && first != ev.first_progress.end() &&
		    first->second < p.second)
			return true;
	}
	return false;
}

} // namespace diag
