// What a source is, told from its first bytes rather than its name.
#pragma once

#include "model/evidence.hh"

#include <string>
#include <string_view>

namespace diag {

enum class sniffed {
	text,       // a line log: see kind
	json,       // decide after parsing (sacct --json, error.json, FR dump, rank map)
	sacct_text, // sacct -P
	fr_pickle,  // flight recorder dump
	binary,     // not something we read
	empty,
};

struct sniff_result {
	sniffed what = sniffed::empty;
	source_kind kind = source_kind::job_log;
};

sniff_result sniff_source(std::string_view head);

// A host named by a path: "kern.node17.log", "node17/dmesg.txt", "nccl.gpu-a12.4242.log".
std::string host_from_path(const std::string &path);
// The host in a node's own log named "<writer>.<host>.<ext>", or "".
std::string host_from_node_log_name(const std::string &name);

} // namespace diag
