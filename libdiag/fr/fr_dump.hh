// PyTorch flight-recorder dumps (doc/formats.md: file format, schema) as typed structs.
//
// One dump per global rank, written as pickle (the on-disk default) or JSON
// (dump_json). Schema versions 2.x are read; unknown keys are ignored and
// optional keys may be absent. What a field does not say stays at its
// "unset" value (-1 for ids, 0 for times).
#pragma once

#include "fr/fr_pickle.hh"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

enum class fr_state : uint8_t { unknown, scheduled, started, completed };
std::string_view fr_state_name(fr_state s);

// A process group as one rank's pg_config describes it.
struct fr_pg_config {
	std::string key;         // the pg_config dict key (normally equal to name)
	std::string name;        // e.g. "0", "group_name_0"
	std::string desc;        // e.g. "default_pg", "undefined"
	std::vector<int> ranks;  // global ranks, sorted; parsed from the string "[0, 1, 2]"
	bool ranks_known = false; // false when the ranks string was absent, empty or unparsable
};

// pg_status: the progress counters that survive ring eviction.
struct fr_pg_status {
	std::string pg_id;            // key: the local pg_id as a string
	int64_t last_enqueued = -1;   // last_enqueued_collective
	int64_t last_started = -1;    // last_started_collective (-1 without timing)
	int64_t last_completed = -1;  // last_completed_collective
};

struct fr_frame {
	std::string name;
	std::string filename;
	int64_t line = 0;
};

struct fr_entry {
	int64_t record_id = -1;
	int64_t pg_id = -1;
	std::string pg_name;  // process_group[0]
	std::string pg_desc;  // process_group[1]
	int64_t collective_seq_id = -1;
	int64_t p2p_seq_id = -1;
	int64_t op_id = -1;
	std::string profiling_name;  // "nccl:all_reduce", "nccl:send 3->2", ...
	int64_t time_created_ns = 0;
	std::vector<std::vector<int64_t>> input_sizes, output_sizes;
	std::vector<std::string> input_dtypes, output_dtypes;
	fr_state state = fr_state::unknown;
	int64_t time_discovered_started_ns = 0;   // 0: unset (None in pickle)
	int64_t time_discovered_completed_ns = 0; // 0: unset
	bool retired = false;
	int64_t timeout_ms = 0;
	bool is_p2p = false;  // from the key, or from a send/recv profiling name
	std::optional<double> duration_ms;
	int64_t thread_id = -1;
	std::string thread_name;
	std::vector<fr_frame> frames;
};

struct fr_dump {
	std::string path;           // where it was read from ("" for in-memory)
	std::string format;         // "pickle" or "json"
	int rank = -1;              // global rank; -1 when neither name nor content says
	std::string rank_source;    // "content", "file name" or ""
	std::string version;        // "2.4" ... "2.10"
	std::string comm_lib_version; // comm_lib_version or nccl_version
	std::vector<fr_pg_config> pg_config;
	std::vector<fr_pg_status> pg_status;
	std::vector<fr_entry> entries;  // oldest first
	std::vector<std::string> warnings; // tolerated oddities (bad entry skipped, ...)

	const fr_pg_config *find_pg(std::string_view name) const;
	const fr_pg_status *find_status(int64_t pg_id) const;
};

struct fr_dump_result {
	std::optional<fr_dump> dump;
	std::string error; // set when dump is empty
};

struct fr_load_options {
	bool no_follow = true;              // open with O_NOFOLLOW (never follow a user's symlink)
	size_t max_bytes = 256u << 20;      // bigger files are refused, not truncated
	size_t max_entries = 1u << 20;      // entries kept per dump
	pickle_limits limits;
};

// The rank a dump file name carries: the trailing digits of its base name,
// after dropping a ".json", ".pkl" or ".pickle" extension ("rank_12" -> 12).
std::optional<int> fr_rank_from_name(std::string_view path);

// Whether the head of a file looks like a flight-recorder dump: a pickle of
// protocol 2-5 starting with a dict, or a JSON object naming the FR keys.
bool fr_sniff(std::string_view head);

// Reads a dump held in memory; name (may be a path) supplies the rank when
// the content does not.
fr_dump_result fr_parse_dump(std::string_view data, std::string_view name,
			     const fr_load_options &opt = {});

// Reads a dump from a file (regular files only, bounded read).
fr_dump_result fr_load_dump(const std::string &path, const fr_load_options &opt = {});

// Decodes an already-parsed value tree (pickle, or JSON mapped to it).
fr_dump_result fr_dump_from_value(const pickle_value &v, std::string_view name,
				  const fr_load_options &opt = {});

} // namespace diag
