// Failure signatures as data: rules loaded from conf/signatures/*.yaml,
// checked against their own sample lines at load, and matched behind a
// literal prefilter.
#pragma once

#include "failure_class.hh"
#include "literal_set.hh"
#include "regex.hh"

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
	failure_class cls = failure_class::unknown;
	event_role role = event_role::context;
	rule_kind kind = rule_kind::plain;
	std::vector<std::string> literals;
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

class rule_set {
public:
	// Loads every *.yaml of a directory, in name order. On error returns
	// false with "file:line: reason" in err; nothing is half-loaded.
	bool load_dir(const std::string &dir, std::string &err);
	bool load_file(const std::string &path, std::string &err);
	// Builds the prefilter.
	void finalize();
	// Samples that another rule wins (a priority conflict), one line each.
	std::vector<std::string> sample_conflicts();

	// The highest-priority rule that matches the line body, or nullptr.
	const rule *match(std::string_view body, unsigned source, capture_list &caps);

	size_t size() const { return rs_rules.size(); }
	const rule &at(size_t i) const { return rs_rules[i]; }
	const rule *find(std::string_view id) const;
	// Every literal of every rule (for benchmarks against grep/rg).
	std::vector<std::string> all_literals() const;

private:
	bool add_rules(const struct ynode &doc, const std::string &path, std::string &err);

	std::vector<rule> rs_rules;
	literal_set rs_prefilter;
	std::vector<uint32_t> rs_literal_rule; // literal id -> rule index
	std::vector<uint32_t> rs_always;       // rules without a literal
	std::vector<uint32_t> rs_seen;         // per rule: generation stamp
	uint32_t rs_generation = 0;
	std::vector<uint32_t> rs_candidates;
};

} // namespace diag
