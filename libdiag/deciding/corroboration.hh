// After the diagnosis: what DCGM and nvidia-smi said about the GPU a
// hardware verdict blames. The log decides the class; these counters only
// agree or disagree, and move the confidence by one step.
#pragma once

#include "model/evidence.hh"
#include "model/gpu_health.hh"
#include "rendering/verdict.hh"

namespace diag {

// Fills v.gpu_* from the first fault (an Xid line's bus id) and
// v.corroboration from health; adjusts v.confidence.
void corroborate(verdict &v, const evidence &ev, const gpu_health &health);

} // namespace diag
