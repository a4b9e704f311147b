// Failure signatures as data: rules loaded from conf/signatures/*.yaml,
// checked against their own sample lines at load, and matched behind a
// literal prefilter. Rules come in layers (as lnav's formats do): the
// shipped ones, then the site's, which add rules or replace a shipped
// rule by id.
#pragma once

#include "model/failure_class.hh"
#include "matching/buffer_literals.hh"
#include "matching/literal_set.hh"
#include "matching/regex.hh"

#include <string>
#include <string_view>
#include <vector>

namespace diag {

enum class rule_kind {
	plain,
	traceback,
	exception,
	rank_map,
	job_end,
	task_exit,
	progress,
	xid,
	watchdog,
	boot_time,
	handled,
	rank_tag, // names the writer's rank inside the text (a logger format)
	startup,  // names code that runs only while the job starts (NCCL's init.cc)
	zone_name, // states the zone of the writer's local times (`date`: "... 06:47:17 JST 2026")
	init_trail, // a library's error return passing up through its set-up code (NCCL's `init.cc:N -> R`)
};

// Which readers a rule applies to.
enum source_bits : unsigned {
	src_log = 1,    // combined job output
	src_nccl = 2,   // NCCL debug files
	src_kernel = 4, // kernel logs
	src_all = 7,
};

struct rule {
	std::string id;
	std::string family;
	std::string file;
	int line = 0;
	std::string layer;      // "shipped" or "site": which layer the rule came from
	std::string overrides;  // file:line of the rule of a lower layer it replaced

	failure_class cls = failure_class::unknown;
	event_role role = event_role::context;
	rule_kind kind = rule_kind::plain;
	std::vector<std::string> literals;
	// The literals begin a line (literal_at: line_start): tested at the
	// line's first byte, not by the scan, so one as short as a terminal's
	// "^C" leaves the scan's trigram filter on for every other rule.
	bool literal_at_line_start = false;
	std::string pattern;
	regex rx;
	int priority = 0;
	int weight = 50;
	unsigned sources = src_all;
	std::string summary;
	std::vector<std::string> samples;
	uint32_t index = 0;
	// Whose fault a matching line reports: one rank's, a node's (torchrun's
	// per-node agent) or the whole job's. Only a rank's names a first rank.
	enum class fault_scope { rank, node, job } scope = fault_scope::rank;
	// A rank tag that names an inference engine's own rank (its tensor-
	// parallel rank): the job's rank where the engine is the job, not in a
	// Ray actor of a larger job (an RL trainer's rollout engine).
	bool engine_rank = false;
};

// Named captures of the last match, as views into the matched text.
struct capture_list {
	std::vector<std::pair<std::string_view, std::string_view>> items;
	std::string_view get(std::string_view name) const
	{
		for (const auto &it : items)
			if (it.first == name)
				return it.second;
		return {};
	}
};

// The literal hits of one raw line, found by one scan of it (see
// rule_set::scan_line); reused from line to line without allocating.
struct line_hits {
	std::vector<std::pair<uint32_t, uint32_t>> hits; // (literal id, start offset)
	bool rule_hit = false;  // a rule's literal occurs (or some rule has none)
	unsigned markers = 0;   // which reader markers occur (marker_* bits)
	// One past the latest start of a literal of a progress rule, and of
	// any other rule (0: none): what rule_set::hit_reach needs.
	uint32_t progress_end = 0, other_end = 0;
};

// Reader markers: texts that are no rule's business but make a reader look
// closer at a line. They ride along in the literal scan.
enum marker_bits : unsigned {
	marker_rate = 1, // "it/s", "s/it": a progress bar another line may be glued to
	marker_rank = 2, // "[rank", "[RANK": a rank prefix
};

class rule_set {
public:
	// Loads every *.yaml of a directory, in name order, as the shipped
	// layer. On error returns false with "file:line: reason" in err;
	// nothing is half-loaded.
	bool load_dir(const std::string &dir, std::string &err);
	// Loads a layer above those already loaded: a rule with the id of a
	// rule of a lower layer replaces it (in its place in the order), any
	// other is added; an id twice within one layer is an error. A layer
	// that is optional may be missing or empty.
	bool load_layer(const std::string &dir, const std::string &layer, bool optional, std::string &err);
	bool load_file(const std::string &path, std::string &err, const std::string &layer = "shipped");
	// load_file for YAML held in memory; name stands for the path in errors.
	bool load_string(std::string_view text, const std::string &name, std::string &err);
	// Builds the prefilter.
	void finalize();
	// A copy another thread may match with while this one is in use
	// (matching changes a rule set's scratch state: generations, PCRE2
	// match data, JIT counters).
	rule_set copy_for_thread() const;
	// Samples that another rule wins (a priority conflict), one line each.
	std::vector<std::string> sample_conflicts();

	// The highest-priority rule that matches the line body, or nullptr.
	const rule *match(std::string_view body, unsigned source, capture_list &caps);
	// Whether a rule of kind handled ("will retry", "recovered") matches the
	// body too: a fault line that says it was dealt with.
	bool says_handled(std::string_view body);
	// The rank a rule of kind rank_tag reads in the body ("[rank 2] ...",
	// "rank 2: ..."), -1 if none does; with host, the host that rule reads
	// beside it (a logger format's hostname field), empty if none.
	int rank_in_text(std::string_view body, std::string *host = nullptr, bool under_actor = false);
	// Whether a rule of kind startup matches the body: the line names code
	// that runs only while the job starts (NCCL's init.cc, bootstrap.cc).
	bool says_startup(std::string_view body);
	// Whether a rule of kind exception matches the body too: a fault line
	// another rule read is shaped as a traceback's last ("OSError: ...").
	bool shaped_as_exception(std::string_view body);

	// One scan of a raw line for every literal and marker.
	void scan_line(std::string_view raw, line_hits &h) const;
	// match() for body = raw.substr(body_off), given scan_line(raw): the
	// same answer without scanning the line again.
	const rule *match_hits(std::string_view body, size_t body_off, const line_hits &h, unsigned source,
			       capture_list &caps);
	// What match_hits could find at best: 0 no rule at all, 1 only
	// progress rules (kind progress), 2 anything else.
	int hit_reach(size_t body_off, const line_hits &h) const;
	// Sets h's progress_end and other_end from h.hits (for hits that were
	// stored and handed back instead of found by scan_line).
	void hit_ends(line_hits &h) const;

	size_t size() const { return rs_rules.size(); }
	const rule &at(size_t i) const { return rs_rules[i]; }
	const rule *find(std::string_view id) const;
	// Every literal of every rule (for benchmarks against grep/rg).
	std::vector<std::string> all_literals() const;

	// The fault scan's prefilter: the literals of every rule that can make
	// an event or change a writer's state (all but progress and rank_tag
	// rules), for a scan over whole buffers; one scanner per thread (see
	// buffer_literals::scan: fn(start) for each occurrence, by its end).
	// It finds lines: a literal that holds another is left out (a line
	// with it has the other), so not every occurrence of every literal.
	buffer_literals::scanner fault_scanner() const { return rs_faults.make_scanner(); }
	// Whether a scan for fault literals can find every line a rule may
	// match: false when some rule has no literal (it runs on every line).
	// (Rules whose literal begins a line are left out of that scan: they
	// are context, a terminal's echo, read where a file is read whole.)
	bool fault_scan_complete() const { return rs_always.empty() && rs_faults.size() > 0; }
	const buffer_literals &fault_literal_set() const { return rs_faults; }
	// The fault scan's literals (for benchmarks): none holds another.
	std::vector<std::string> fault_literals() const;

private:
	bool add_rules(const struct ynode &doc, const std::string &path, const std::string &layer, std::string &err);

	std::vector<rule> rs_rules;
	literal_set rs_prefilter;
	buffer_literals rs_faults;
	const rule *confirm(std::string_view body, unsigned source, capture_list &caps);
	void candidate(uint32_t lit);

	std::vector<uint32_t> rs_literal_rule; // literal id -> rule index (no_rule: a marker)
	std::vector<uint8_t> rs_literal_mark;  // literal id -> marker bits
	std::vector<uint8_t> rs_literal_progress; // literal id -> its rule is a progress rule
	std::vector<uint32_t> rs_always;       // rules without a literal
	std::vector<std::pair<std::string, uint32_t>> rs_line_heads; // (literal_at: line_start literal, its literal id)
	std::vector<uint32_t> rs_seen;         // per rule: generation stamp
	uint32_t rs_generation = 0;
	std::vector<uint32_t> rs_candidates;
};

} // namespace diag
