// Where a NaN appeared first (placeholder filled in below).
#include "deciding/context.hh"

namespace diag {

void pass_nan_origin(diagnosis_context &) {}

} // namespace diag
