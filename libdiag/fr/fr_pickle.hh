// A restricted, data-only unpickler for flight-recorder dumps.
//
// Flight-recorder dumps are pickles (protocol 2), and pickle is a small
// program for a stack machine that can import and call anything. This
// reader runs only the opcodes that build plain data (dicts, lists, tuples,
// strings, bytes, ints, floats, booleans, None, with their memo) and refuses
// every opcode that imports, calls or reaches outside the stream. Every size
// is bounded, so a hostile or broken file gives an error, never a crash or
// an exhausted machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

enum class pickle_kind : uint8_t {
	none,
	boolean,
	integer,
	floating,
	string,
	bytes,
	list,  // also sets and frozensets (order as written)
	tuple,
	dict,
};

std::string_view pickle_kind_name(pickle_kind k);

// One value of the loaded tree. The tree is fully expanded: values the
// pickle shared through its memo are copied (within the limits below).
struct pickle_value {
	pickle_kind kind = pickle_kind::none;
	bool b = false;
	int64_t i = 0;
	double f = 0.0;
	std::string s;                   // string (UTF-8, sanitized) or bytes
	std::vector<pickle_value> items; // list/tuple: elements; dict: key, value, key, value, ...

	bool is_none() const { return kind == pickle_kind::none; }
	bool is_int() const { return kind == pickle_kind::integer; }
	bool is_str() const { return kind == pickle_kind::string; }
	bool is_seq() const { return kind == pickle_kind::list || kind == pickle_kind::tuple; }
	bool is_dict() const { return kind == pickle_kind::dict; }
	// Number of key/value pairs of a dict, elements of a list or tuple.
	size_t size() const { return is_dict() ? items.size() / 2 : items.size(); }
	// Dict lookup by string key; the last pair wins, as in Python. nullptr
	// when absent or when this is not a dict.
	const pickle_value *get(std::string_view key) const;
};

struct pickle_limits {
	size_t max_input = 256u << 20;       // bytes of pickle accepted
	size_t max_depth = 64;               // nesting of containers (a memo cycle exceeds it)
	size_t max_items = 2u << 20;         // values in the expanded tree (~80 bytes each)
	size_t max_string = 64u << 20;       // one string or bytes object
	size_t max_total_bytes = 256u << 20; // string bytes in the expanded tree
	size_t max_memo = 1u << 20;          // memo entries
};

struct pickle_result {
	pickle_value value;
	std::string error;  // empty on success
	size_t offset = 0;  // where the error was found (byte offset)
	bool ok() const { return error.empty(); }
};

// Loads one pickle from data. Trailing bytes after STOP are ignored, as
// pickle.load does. Never executes anything.
pickle_result pickle_load(std::string_view data, const pickle_limits &lim = {});

// The name of an opcode byte ("BINUNICODE"), or "" when unknown.
std::string_view pickle_opcode_name(uint8_t op);

} // namespace diag
