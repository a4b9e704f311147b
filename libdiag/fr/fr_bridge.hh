// Where flight-recorder dumps meet the diagnosis: dumps are analysed together, the result becomes structure
// (who never joined the collective) and clock anchors.
#pragma once

#include "deciding/diagnose.hh"
#include "model/evidence.hh"

#include <string>
#include <string_view>
#include <vector>

namespace diag {

// A JSON dump carries the flight recorder's top-level keys.
bool looks_like_fr_json(std::string_view text);

// Loads and analyses every dump; a dump that fails to load is a warning.
hang_structure analyse_fr_paths(const std::vector<std::string> &paths, evidence &ev);

} // namespace diag
