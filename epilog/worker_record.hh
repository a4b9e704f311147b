// What a forked worker (bounded_child.hh) hands back, as named fields: each
// result is a struct with its own encode/decode, so that a field is read by
// its name and type, never by its position in a list of strings. Any bytes
// travel (a job's comment need not be UTF-8).
#pragma once

#include "slurm_io.hh"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace denpex::epilog {

class worker_record {
public:
	void put(const std::string &name, const std::string &value) { fields_[name] = value; }
	void put_int(const std::string &name, long long value) { fields_[name] = std::to_string(value); }
	void put_bool(const std::string &name, bool value) { fields_[name] = value ? "1" : "0"; }

	std::string str(const std::string &name) const;
	long long int_of(const std::string &name) const; // 0 when absent
	bool bool_of(const std::string &name) const;
	bool has(const std::string &name) const { return fields_.count(name) != 0; }

	// "<len>:<name><len>:<value>..."; decode refuses anything else.
	std::string encode() const;
	static std::optional<worker_record> decode(const std::string &bytes);

private:
	std::map<std::string, std::string> fields_;
};

// slurmctld's job_info through a worker's pipe, field by field; decode is
// false with err (the worker's own error, or "garbled") when there is none.
std::string encode_job_info(const job_info &j);
bool decode_job_info(const std::string &bytes, job_info &j, std::string &err);

} // namespace denpex::epilog
