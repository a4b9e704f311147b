// The verdict (schema 1 of doc/verdict.md) and its three renderings: JSON for
// programs, text for a person, one line for the job's Comment.
#pragma once

#include "model/failure_class.hh"
#include "model/run_links.hh"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace diag {

struct evidence_line {
	int rank = -1;
	std::string host;
	std::string time;  // ISO UTC, empty when unknown
	event_role role = event_role::context;
	std::string rule;
	std::string source; // file:line
	std::string line;
};

struct clock_entry {
	double offset_s = 0;
	double uncertainty_s = 0;
	std::string basis; // measured | inferred | none (aligning/clock.hh); empty: left out
	clock_entry() = default;
	clock_entry(double offset, double uncertainty, std::string why = {})
		: offset_s(offset), uncertainty_s(uncertainty), basis(std::move(why)) {}
};

// A counter from DCGM or the driver that agrees or disagrees with a
// hardware verdict (DESIGN.md "corroboration"): evidence beside the log,
// never the cause.
struct corroboration_entry {
	std::string source; // dcgm | nvidia-smi
	bool agrees = true;
	std::string detail;
};

struct verdict_suspect {
	int rank = -1;
	std::string host;
	std::string why;
};

struct verdict_refused {
	std::string file;
	std::string why;
};

struct verdict {
	std::string job_id;           // empty: null
	wandb_link link_wandb;        // additive "links" (DESIGN.md), when present
	ray_link link_ray;
	failure_class cls = failure_class::unknown;
	std::string summary;
	std::string cause;            // the summary's "what" without "who" (for the comment)
	bool has_first = false;       // false: "first" has null rank and host
	int first_rank = -1;
	std::string first_host;
	std::vector<std::string> first_host_aliases; // its other names in the logs (pod, node, address)
	std::string first_time;
	std::string first_source;
	std::string first_line;
	std::vector<int> victims;
	action_kind action = action_kind::investigate;
	std::string action_text;
	std::string confidence = "low";
	std::vector<evidence_line> evidence;
	std::map<std::string, clock_entry> clock;
	std::vector<std::string> notes; // what was skipped, ties, ... (text only)
	// The GPU a hardware verdict blames (additive "gpu" field; empty: none).
	std::string gpu_host, gpu_bus;
	int gpu_xid = -1;
	std::vector<corroboration_entry> corroboration;
	// Additive fields (DESIGN.md), rendered only when there is something to say.
	std::vector<verdict_suspect> suspects;
	bool has_nan = false;
	std::string nan_cause; // bad_sample | overflow | gpu | unknown
	long long nan_step = -1;
	std::vector<verdict_refused> refused;
	// Not part of the JSON: which retained event is the first fault
	// (evidence::events index), for the timeline's highlighting.
	long first_event = -1;
};

std::string verdict_to_json(const verdict &v, bool pretty);
std::string verdict_to_text(const verdict &v);
// "denpex: <class> rank R on HOST: <cause> -> <action>", control characters
// removed, at most max_len bytes (cut on a UTF-8 boundary).
std::string verdict_to_comment(const verdict &v, size_t max_len = 250);

} // namespace diag
