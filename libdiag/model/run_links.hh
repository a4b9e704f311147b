// Where a failed run lives in the tools around it: the W&B run (so the loss
// curve and the cause link to each other) and the Ray job, actor and retries
// (so the first failure is not buried under the attempts that followed).
// Filled by the W&B and Ray readers, rendered as the verdict's additive
// "links" field.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace diag {

struct wandb_link {
	std::string entity, project, run_id, url;
	bool offline = false;  // an offline-run-* directory (not synced yet)
	bool present() const { return !run_id.empty(); }
};

struct ray_link {
	std::string job_id;      // Ray's job id (hex, e.g. 02000000) or a submission id
	std::string actor_id;    // the actor whose first failure is the verdict's
	int attempts = 0;        // failures of that actor/task/trial seen
	int retries = -1;        // attempts - 1; -1: unknown
	int same_failure = -1;   // later attempts failed with the first's class: 1, 0; -1 unknown
	bool present() const { return !job_id.empty() || !actor_id.empty() || retries >= 0; }
};

// A W&B run directory as its files describe it.
struct wandb_run_dir {
	std::string dir;      // .../wandb/run-20260301_101010-abc123 (no trailing slash)
	std::string host;     // wandb-metadata.json "host": the machine the run ran on
};

struct run_links {
	wandb_link wandb;
	ray_link ray;
	// Reading state: run directories seen, and per source a pid and job
	// that its file name gives (Ray's worker-<id>-<job>-<pid>.out).
	std::vector<wandb_run_dir> wandb_dirs;
	std::map<uint32_t, std::pair<int, std::string>> ray_file_pid;
};

} // namespace diag
