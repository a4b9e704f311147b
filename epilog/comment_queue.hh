// Verdicts that could not reach the accounting record (slurmdbd down or
// hung at job end) wait in <state_dir>/.queue/ (root, 0600) until a later
// epilog run or `denpex-epilog --flush` writes them; the job's report
// says which.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace denpex::epilog {

struct queued_comment {
	uint32_t job_id = 0;
	std::string cluster;
	bool admin = false;
	std::string verdict;
	std::string hint;
	std::string report; // the job's text report, to note the outcome in
	time_t queued_at = 0;
	std::string name;   // file name in the queue (set by queue_list)
};

bool queue_put(const std::string &state_dir, const queued_comment &q, std::string &err);
// The oldest entries first, at most max.
std::vector<queued_comment> queue_list(const std::string &state_dir, size_t max);
void queue_drop(const std::string &state_dir, const std::string &name);

} // namespace denpex::epilog
