// A YAML document as a small tree with line numbers, loaded with libyaml,
// so that configuration errors can say file:line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace diag {

struct ynode {
	enum kind_t { null, scalar, sequence, mapping } kind = null;
	std::string value;                                  // scalar
	std::vector<ynode> items;                           // sequence
	std::vector<std::pair<std::string, ynode>> entries; // mapping (keys are scalars)
	int line = 0;                                       // 1-based

	const ynode *get(std::string_view key) const;
	bool is_scalar() const { return kind == scalar; }
};

// Loads the first document of a file. On failure returns nullopt and sets
// err to "file:line: reason".
std::optional<ynode> load_yaml_file(const std::string &path, std::string &err);
std::optional<ynode> load_yaml_string(std::string_view text, const std::string &name, std::string &err);

// Scalar helpers: nullopt when the node is missing or not of that shape.
std::optional<long long> yaml_int(const ynode *n);
std::optional<bool> yaml_bool(const ynode *n);

} // namespace diag
