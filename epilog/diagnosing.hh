// Stage 3, the diagnosing node's work (the allocation's first node, or
// slurmctld): wait a bounded time for every node's share, claim the job (one
// diagnosis per job), add accounting and Prometheus, and run libdiag once,
// in a bounded child (a crash or a hang costs only the verdict).
#pragma once

#include "run_state.hh"

#include <string>
#include <vector>

namespace denpex::epilog {

// What the diagnosis worker reads: every staged source with its trust, and
// the options libdiag gets.
struct diagnosis_inputs {
	struct source {
		std::string path;
		bool job_output = false; // written by the job: its claims, not evidence
	};
	std::vector<source> sources;
	std::string conf_dir; // empty: libdiag's default
	uint64_t max_bytes_per_file = 0;
	std::string job_id;
	size_t comment_max_bytes = 0; // 0: libdiag's default
};

// What it hands back.
struct diagnosis {
	bool ok = false;
	std::string error; // when not ok
	std::string json, text, comment_line, warnings, html;
};

// Waits for the other nodes' done markers (noted when some are missing) and
// claims the job; false when another run already diagnoses it.
bool wait_and_claim(run_state &s, int jfd);

// Slurm's accounting (bounded) as job/sacct.txt, the job's output, and the
// dcgm-exporter series: everything besides the nodes' shares.
void gather_diagnosing_extras(run_state &s, int jfd);

diagnosis_inputs diagnosis_inputs_of(const run_state &s, int jfd);
diagnosis run_diagnosis(const diagnosis_inputs &in, double timeout_s);

// Evidence cited where it came from, not by the staging copies (deleted
// after the diagnosis), with the original's line numbers.
std::string cite_originals(const run_state &s, std::string text, bool json);

} // namespace denpex::epilog
