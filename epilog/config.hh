// denpex-epilog configuration: conf/denpex.yaml, read by libdiag's YAML
// loader (denpex_conf_parse).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace denpex::epilog {

enum class comment_field { comment, admin_comment };
enum class kernel_source { kmsg, none };
enum class diagnose_site { node, slurmctld };

struct config {
	// Where the SPANK plugin keeps per-job dirs (<spool_dir>/<jobid>/), user-owned.
	std::string spool_dir = "/var/spool/denpex";
	// Root-owned staging where each node's share of evidence meets; must be
	// shared between the nodes for a diagnosis with all nodes' evidence.
	std::string state_dir = "/var/spool/denpex/.epilog";
	std::string report_dir = "/var/log/denpex";
	// Signature/knowledge dir handed to libdiag; empty: libdiag's default.
	std::string conf_dir;
	unsigned deadline_s = 60;
	unsigned node_wait_s = 10;
	unsigned read_timeout_s = 10;
	uint64_t max_bytes_per_file = 16ull << 20;
	uint64_t max_total_bytes = 256ull << 20;
	// All staging on this node (every job's, under state_dir) stays below this.
	uint64_t max_state_bytes = 1ull << 30;
	uint64_t kernel_max_bytes = 1ull << 20;
	unsigned kernel_slack_s = 60;
	enum comment_field comment_field = comment_field::comment;
	size_t comment_max_bytes = 250;
	std::vector<std::string> diagnose_states = {"FAILED",	  "TIMEOUT",   "CANCELLED",
						    "NODE_FAIL",   "OUT_OF_MEMORY", "PREEMPTED",
						    "BOOT_FAIL",   "DEADLINE",  "REQUEUED"};
	enum kernel_source kernel_log = kernel_source::kmsg;
	enum diagnose_site diagnose_in = diagnose_site::node;
	bool keep_state = false;
	// Keep <spool_dir>/<job>/ after its evidence is gathered (debugging only:
	// a kept dir is never adopted by a later job with the same id).
	bool keep_spool = false;
	// node_exporter textfile collector directory for denpex.prom; empty: off.
	std::string metrics_dir;
	// GPU health collected for corroboration: any of dcgmi, nvidia-smi
	// (run on every node) and prometheus (dcgm-exporter series, asked by
	// the diagnosing site); empty: none.
	std::vector<std::string> dcgm_sources;
	std::string dcgmi_path = "/usr/bin/dcgmi";
	std::string nvidia_smi_path = "/usr/bin/nvidia-smi";
	std::string prometheus_url;
	unsigned dcgm_timeout_s = 5; // per source, and never past the deadline
};

inline bool config_dcgm(const config &c, const char *source)
{
	for (const auto &s : c.dcgm_sources)
		if (s == source)
			return true;
	return false;
}

// Messages about the file, each a full sentence naming file and line.
struct config_result {
	config cfg;
	std::vector<std::string> errors;
	bool file_found = false;
};

// Never throws for bad input: a syntax error gives all defaults plus an
// error; a bad value gives that key's default plus an error.
config_result config_load(const std::string &path);
config_result config_parse_string(const std::string &text, const std::string &name);

bool config_state_wanted(const config &c, const std::string &state);

} // namespace denpex::epilog
