// The merged timeline: every retained event on the common clock, merged
// from per-source streams that are each already in order.
#pragma once

#include "model/evidence.hh"

#include <vector>

namespace diag {

// Indexes into ev.events in corrected-time order. Each (source, host)
// stream keeps its own order; streams are merged k-way with ties broken by
// (time, source, line), so the result does not depend on input order.
// Events without a time come last, in source order.
std::vector<size_t> merge_timeline(const evidence &ev);

} // namespace diag
