// One epilog run, stage by stage: the job's context, this node's gathering,
// and on the diagnosing site the diagnosis, the report and the comment.
#pragma once

#include "config.hh"

namespace denpex::epilog {

// Never throws for bad input; returns when done (the caller exits 0).
void run_epilog(const config &cfg, double t0);

} // namespace denpex::epilog
