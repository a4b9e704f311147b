// The verdict's additive "links" field: the W&B run and the Ray job the
// failure belongs to, as JSON and as report lines.
#pragma once

#include "model/run_links.hh"

#include <jansson.h>

#include <string>

namespace diag {

// {"wandb": {...}, "ray": {...}}, or nullptr when neither is known.
json_t *links_to_json(const wandb_link &w, const ray_link &r);
// "W&B run: ...\n" and "Ray: ...\n" lines, empty when neither is known.
std::string links_to_text(const wandb_link &w, const ray_link &r);

} // namespace diag
