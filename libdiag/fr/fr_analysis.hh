// Cross-rank analysis of flight-recorder dumps (doc/formats.md, flight recorder): which
// collective each process group stopped at, who never joined it, who is
// stuck in it, who disagrees about it, and which completed collectives can
// anchor the per-rank clocks.
//
// Differences from torchfrtrace, on purpose: missing dump files are
// evidence, not a fatal error; a "completed on some, pending on others"
// state is not called a mismatch; and the suspect list reasons across
// process groups (a rank that never joined one PG because it waits in
// another is a victim, unless everyone waits on everyone: then the rank on
// the odd side of every stalled PG is the suspect).
#pragma once

#include "fr/fr_dump.hh"

#include <jansson.h>

#include <cstdint>
#include <string>
#include <vector>

namespace diag {

// A dump file that exists but could not be read (truncated, forbidden
// opcode, ...). Its rank (from the file name) counts as "no dump".
struct fr_unreadable {
	std::string path;
	int rank = -1;
	std::string error;
};

// What was found under the given paths.
struct fr_collection {
	std::vector<fr_dump> dumps;
	std::vector<fr_unreadable> unreadable;
};

// Loads dump files named directly, and the files of directories (not
// recursive) whose content sniffs as a dump. A named file that is not a
// readable dump lands in unreadable.
fr_collection fr_load_paths(const std::vector<std::string> &paths,
			    const fr_load_options &opt = {});

struct fr_analyze_options {
	std::vector<int> world;            // expected global ranks; empty: infer from pg_config
	bool record_id_alignment = false;  // torchfrtrace's global rule: drop entries below the
					   // largest first record_id; off by default because it drops
					   // whole PGs on ranks whose ids advanced more slowly
	size_t max_anchors_per_pg = 256;   // newest kept
	size_t mismatch_cap = 10;          // per PG, as torchfrtrace
};

enum class fr_mismatch_kind : uint8_t { op_type, sizes, dtypes };
std::string_view fr_mismatch_name(fr_mismatch_kind k);

struct fr_mismatch {
	int64_t seq = -1;
	fr_mismatch_kind kind = fr_mismatch_kind::op_type;
	int culprit = -1;        // a rank on the minority side
	std::string expected;    // the majority value ("nccl:all_reduce", "[[1024]]", "Float")
	std::string found;       // the culprit's value
	// More ranks hold the expected value than the culprit's: it is the odd
	// one out. A tie (two ranks, two values) says the ranks differ, not which.
	bool outvoted = true;
};

// One rank's progress in a process group.
struct fr_rank_progress {
	int rank = -1;
	int64_t last_enqueued = -1;   // from entries and pg_status, whichever is higher
	int64_t last_completed = -1;
	std::string state_at_stop;    // "completed", "started", "scheduled", "missing", "unknown", "no dump"
};

struct fr_pg_report {
	std::string name;
	std::string desc;
	std::vector<int> ranks;             // members (from pg_config; inferred when unknown)
	bool ranks_known = true;
	std::vector<int> ranks_without_dump; // members with no readable dump
	int64_t first_seq = -1;             // comparable window: every dumped member still holds it
	int64_t last_seq = -1;
	int64_t last_completed_all = -1;    // highest seq completed on every dumped member
	bool stalled = false;               // some collective in the window did not complete everywhere
	int64_t stop_seq = -1;              // the first such collective
	std::string stop_op;                // its profiling name (majority)
	std::vector<int> missing;           // dumped members that never enqueued stop_seq
	std::vector<int> stuck;             // enqueued it (scheduled/started), not completed
	std::vector<int> completed;         // completed it
	std::vector<int> unknown;           // enqueued per pg_status but evicted from the ring
	std::vector<int> p2p_pending;       // ranks with a send/recv not completed
	std::vector<fr_mismatch> mismatches;
	std::vector<fr_rank_progress> progress;
	std::string summary;                // one line for a person
};

enum class fr_suspect_reason : uint8_t {
	never_enqueued,  // the others wait in a collective this rank never joined
	odd_one_out,     // cross-PG deadlock: on the odd side of every stalled PG
	stuck,           // the only ranks that did not complete a collective others completed
	mismatch,        // called a different op, sizes or dtypes
	no_dump,         // no dump, and nothing else explains the hang
};
std::string_view fr_suspect_reason_name(fr_suspect_reason r);

struct fr_suspect {
	int rank = -1;
	fr_suspect_reason reason = fr_suspect_reason::never_enqueued;
	std::string pg;      // process group name where it shows
	int64_t seq = -1;    // the collective
	std::string detail;  // one line for a person
};

enum class fr_time_source : uint8_t { discovered_completed, created };

struct fr_anchor_point {
	int rank = -1;
	int64_t time_ns = 0;          // discovered_completed when set, else created
	fr_time_source source = fr_time_source::created;
	int64_t created_ns = 0;
	int64_t completed_ns = 0;     // 0: unset
};

// One collective completed on at least two ranks: its points happened at
// (nearly) the same true moment, up to the watchdog's polling delay.
struct fr_anchor {
	std::string pg;
	int64_t seq = -1;
	std::string op;
	std::vector<fr_anchor_point> points;
};

struct fr_report {
	std::vector<int> ranks_with_dump;
	std::vector<int> ranks_without_dump;  // expected (world or PG members) but no readable dump
	std::vector<fr_unreadable> unreadable;
	std::vector<std::string> versions;    // distinct, sorted
	std::vector<fr_pg_report> pgs;
	std::vector<fr_suspect> suspects;     // most telling first; a rank appears once
	std::vector<fr_anchor> anchors;
	std::vector<std::string> warnings;
	std::string summary;
};

fr_report fr_analyze(const std::vector<fr_dump> &dumps, const std::vector<fr_unreadable> &unreadable,
		     const fr_analyze_options &opt = {});
inline fr_report fr_analyze(const fr_collection &c, const fr_analyze_options &opt = {})
{
	return fr_analyze(c.dumps, c.unreadable, opt);
}

// "0-3,5,9-11"
std::string fr_rank_list(const std::vector<int> &ranks);

// The report for `denpex fr --json` (new reference; caller json_decref()s).
json_t *fr_report_to_json(const fr_report &r);
// The report for a person: summary, then one block per process group.
std::string fr_report_text(const fr_report &r);

} // namespace diag
