// Where each rank was when the job was stopped: a Ctrl-C (or SIGINT)
// makes every rank's Python print a traceback ending in KeyboardInterrupt,
// and those frames say where it was. Ranks that waited together are alike;
// the one that alone sat in a collective of torch.distributed (a barrier,
// an all_reduce the others never joined), or alone outside one while the
// others waited in it, is the one that went its own way (issue 11's hangs:
// who is different). Per writer, by line order within one file.
#pragma once

#include "model/evidence.hh"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace diag {

class stop_traceback_reader {
public:
	// A line of the writer key (rank: its rank, -1 when unknown) whose
	// text (its prefix taken off) is body.
	void note(uint32_t key, int rank, std::string_view body, uint64_t line);
	void conclude(uint32_t file, std::vector<stop_traceback> &out);

private:
	struct open_traceback {
		bool open = false;
		stop_traceback tb;
	};
	std::unordered_map<uint32_t, open_traceback> writers;
	int open_count = 0; // writers with a traceback open
	std::vector<stop_traceback> done;
};

} // namespace diag
