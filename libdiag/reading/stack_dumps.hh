// Stack dumps of live processes (py-spy's "Process N: cmd", then each
// thread's frames): ranks of one job sit in the same frames while they
// wait together, so the one process whose main thread is elsewhere is the
// one the others wait for (issue 11's hangs: who is different). Read by
// line order within one file; each process's main-thread stack is kept as
// a hash of its frames, the worker processes of a DataLoader set apart.
#pragma once

#include "model/evidence.hh"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

class stack_dump_reader {
public:
	// A line whose text (its prefix taken off) is body; host: the host its
	// prefix names, if any.
	void note(std::string_view body, std::string_view host, uint64_t line);
	// At the file's end: the processes seen.
	void conclude(uint32_t file, std::vector<stack_dump> &out);

private:
	void close_process();
	std::vector<stack_dump> done;
	stack_dump cur;
	bool in_process = false;
	bool in_main = false;
	std::string header; // the last line that introduced a dump ("### node: ...", "==> file <==")
	int header_rank = -1; // the rank that line names, for the one process it introduces
};

} // namespace diag
