// A launcher's table of which global ranks each host runs, in local-rank
// order (DeepSpeed's "global_rank_mapping={'h1': [0, 1], 'h2': [2, 3]}"):
// how a line that names only a host and a local rank becomes a rank.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace diag {

using rank_layout = std::vector<std::pair<std::string, std::vector<int>>>;

// Reads "{'h1': [0, 1, 2], 'h2': [3, 4]}" (quotes ' or "). False, and
// nothing kept, when the text is not of that shape.
bool parse_rank_layout(std::string_view text, rank_layout &out);

} // namespace diag
