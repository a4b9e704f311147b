// How processes ended, as the launcher and srun tell it: signals per rank,
// the first rank that exited on its own, the rank srun did not have to tear
// down, the ranks SIGKILLed. Shared by the passes that read structure.
#pragma once

#include "model/evidence.hh"

#include <map>
#include <string>
#include <vector>

namespace diag {

// rank -> signal number (0: an exit code), from task exit lines and
// torchrun's failure blocks ("rank : R" followed by "exitcode : X").
std::map<int, int> rank_exit_signals(const evidence &ev);

// Signals that stop a process from outside (SIGHUP, SIGINT, SIGKILL,
// SIGTERM: a launcher's or Slurm's teardown, an admin, the OOM killer), as
// against a process's own end (an abort, a crash).
bool stop_signal(int sig);

// Signals of a native crash: SIGILL, SIGBUS, SIGFPE, SIGSEGV.
bool crash_signal(int sig);

struct exit_view {
	const event *first_self_exit = nullptr; // exited with an error code, not a signal
	std::vector<int> not_torn_down;         // the one srun did not kill with the others
	// The first error exit is the head of a burst: srun's unstamped lines
	// report two or more other ranks' error exits right after it, in the
	// order it heard of them, which is no order of failure.
	bool first_exit_in_burst = false;
};
exit_view analyse_exits(const evidence &ev);

// Ranks whose process died of SIGKILL.
std::vector<int> sigkilled_ranks(const evidence &ev);

bool parse_uint_str(const std::string &s, long long &out);
// srun's task lists: "0,2-7" -> 0 2 3 4 5 6 7.
std::vector<int> parse_task_list(const std::string &s);

} // namespace diag
