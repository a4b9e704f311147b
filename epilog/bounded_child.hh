// Work that may hang or crash (libslurm calls, the diagnosis, a GPU tool)
// runs in a forked child whose output comes back through a pipe read with a
// deadline and a byte cap; a child past its time is killed. One reader for
// all of them.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace denpex::epilog {

double mono_now();

// A stop asked for (SIGTERM to the epilog): every bounded wait ends now, so
// that the run writes its report with what it has, within a short grace;
// a wait for work already gathered (the diagnosis: finishing) gets
// finish_grace_s more.
void request_stop(); // async-signal-safe
bool stop_requested();
inline constexpr double finish_grace_s = 1.5;
enum class on_stop { end, finish };
void sleep_ms(long ms);

// Reads fd until EOF or until the monotonic clock passes until; keeps at
// most max_bytes of it (the rest is read and dropped, so that the writer
// never blocks on a full pipe). True at EOF.
bool read_pipe_bounded(int fd, double until, size_t max_bytes, std::string &out, on_stop mode = on_stop::end);

// Reads exactly n bytes (a record of the copy protocol, safe_read.cc) unless
// EOF, an error or the deadline comes first (*timed_out then says which).
bool read_pipe_exact(int fd, void *p, size_t n, double until, bool *timed_out);

// Waits at most wait_s for pid (killing it and its process group first when
// kill_first); true with *status when it was reaped.
bool reap_child(pid_t pid, bool kill_first, double wait_s, int *status);

// Runs fn in a forked child and returns what it produced, or nullopt when it
// did not finish within timeout_s (it is then killed), threw or crashed.
// Keeps a hung slurmdbd connection or a crash in the diagnosis from taking
// the report with it.
std::optional<std::string> run_bounded(double timeout_s, const std::function<std::string()> &fn,
				       on_stop mode = on_stop::end);

// Runs fn in a detached grandchild: its own session (no process group or
// wait of the caller's holds it), standard descriptors on /dev/null and no
// other descriptor of ours, killed by SIGALRM after timeout_s. For work that
// must not hold up the job's end (confirming the Comment). False when it
// could not be started.
bool run_detached(unsigned timeout_s, const std::function<void()> &fn);

} // namespace denpex::epilog
