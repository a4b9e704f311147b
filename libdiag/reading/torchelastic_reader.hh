// torchelastic error files (TORCHELASTIC_ERROR_FILE, written by @record):
// {"message": {"message": "ValueError: ...", "extraInfo": {"py_callstack":
// ..., "timestamp": "<epoch s>"}, "errorCode": N}}.
#pragma once

#include "model/evidence.hh"
#include "matching/signature.hh"

#include <string_view>

namespace diag {

// Returns false when the JSON is not an error file.
bool read_torchelastic(std::string_view text, uint32_t file, rule_set &rules, evidence &ev);

} // namespace diag
