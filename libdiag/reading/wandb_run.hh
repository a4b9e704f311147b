// Weights & Biases run directories (wandb/run-<date>_<time>-<id>/ and
// wandb/offline-run-...): files/output.log is the console output (read as a
// job log), files/wandb-metadata.json names the machine, files/wandb-summary.json
// holds the last value of every metric (a NaN there is evidence), and
// logs/debug*.log and the console name the entity, project and run URL
// (signatures in conf/signatures/wandb.yaml).
#pragma once

#include "model/evidence.hh"

#include <string>
#include <string_view>

namespace diag {

// The run id and whether it is an offline run, from a path with a W&B run
// directory in it. False when there is none.
bool wandb_run_from_path(const std::string &path, std::string &run_dir, std::string &run_id, bool &offline);

// What a directory walk leaves alone in a run directory: everything but
// files/output.log, files/wandb-metadata.json, files/wandb-summary.json and
// logs/ (files/code/ holds copies of the program, media/ images, and
// run-<id>.wandb is binary).
bool wandb_walk_skips(const std::string &path);

// wandb-metadata.json or wandb-summary.json (jansson; the bare NaN and
// Infinity that Python's json writes are read too). False: neither.
bool read_wandb_json(std::string_view text, uint32_t file, evidence &ev);

// After all sources: the run's machine (wandb-metadata.json) for its events
// that name no host.
void settle_wandb(evidence &ev);

// After the diagnosis: the run link (entity, project, id, URL) of the run
// that holds the first fault (else the latest run), from what the sources said.
void link_wandb(evidence &ev, long first_event);

} // namespace diag
