// Verdicts as Prometheus metrics (node_exporter textfile collector format):
// counters kept across jobs in a small locked state file, and the
// exposition built from them. Labels are class, next action, node, GPU and
// Xid only: no rank or job labels (cardinality).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace diag {

struct metrics_state {
	// (class, next_action, initiating node) -> failures
	std::map<std::tuple<std::string, std::string, std::string>, uint64_t> failures;
	struct hw {
		uint64_t count = 0;
		int64_t last = 0; // Unix seconds of the last verdict
	};
	// (node, gpu bus id, xid) -> hardware verdicts
	std::map<std::tuple<std::string, std::string, std::string>, hw> hardware;
	// Epilog runs that diagnosed a job: duration histogram and errors.
	std::vector<uint64_t> duration_buckets; // per bound of metrics_duration_bounds(), cumulative
	double duration_sum = 0;
	uint64_t duration_count = 0;
	uint64_t epilog_errors = 0;
	bool has_epilog = false; // the exposition shows the epilog families
};

const std::vector<double> &metrics_duration_bounds();

// Adds one verdict (schema-1 JSON). False with err when it is not a verdict.
bool metrics_add_verdict(metrics_state &s, const std::string &verdict_json, int64_t when, std::string &err);
void metrics_add_epilog_run(metrics_state &s, double seconds, bool error);

std::string metrics_state_to_json(const metrics_state &s);
bool metrics_state_from_json(const std::string &text, metrics_state &s, std::string &err);

// The text exposition format, HELP and TYPE lines first.
std::string metrics_exposition(const metrics_state &s);

// The file the textfile collector reads, and the state and lock beside it.
constexpr const char *metrics_file_name = "denpex.prom";

// Under an exclusive lock on <dir>/.denpex-metrics.lock (waiting at most
// lock_timeout_s): reads <dir>/.denpex-metrics.state, adds the verdict (may
// be empty: an epilog run without one) and the run, writes the state and
// <dir>/denpex.prom through temp files and rename(). Never follows a
// symlink in dir. False with err on any failure (nothing half-written).
bool metrics_record(const std::string &dir, const std::string &verdict_json, double epilog_seconds,
		    bool epilog_error, double lock_timeout_s, std::string &err);

// Writes text to dir/name atomically (temp file in dir, fsync, rename).
bool metrics_write_atomic(const std::string &dir, const std::string &name, const std::string &text,
			  std::string &err);

} // namespace diag
