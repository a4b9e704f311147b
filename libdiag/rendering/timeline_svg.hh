// The timeline picture: ranks (or nodes, or bands of nodes when there are
// many) down, the common clock across; each row's last progress, first
// error, watchdog timeout and its node's kernel events, the initiating
// event marked, victims shaded, the per-host clock corrections listed.
// One SVG for the console, the admin report and `denpex diagnose --svg`.
#pragma once

#include "model/evidence.hh"
#include "rendering/verdict.hh"

#include <string>

namespace diag {

struct timeline_svg_options {
	size_t max_rank_rows = 64; // more ranks than this: one row per node
	size_t max_node_rows = 40; // more nodes than this: bands of nodes
	int width = 1100;          // pixels; the height follows the rows
};

// A standalone SVG document (presentation attributes only, no styles or
// scripts, so that it is the same inline in a page under a strict
// Content-Security-Policy and as a file). Marks carry <title> tooltips;
// the initiating mark is <g class="initiating" data-rank=R data-host=H>.
std::string timeline_svg(const evidence &ev, const verdict &v, const timeline_svg_options &opts = {});

} // namespace diag
