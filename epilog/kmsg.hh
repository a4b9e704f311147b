// This node's kernel messages for the job's time window, from /dev/kmsg
// (non-blocking, bounded), as journalctl -k -o short-iso-precise lines.
#pragma once

#include "attribution.hh"

#include <cstdint>
#include <ctime>
#include <string>

namespace denpex::epilog {

// The job's lines (kernel_line_is_jobs) with a time in [from, to] (epoch
// seconds); at most cap bytes, the newest kept. host names the node
// (SLURMD_NODENAME: virtual nodes share a hostname). path is /dev/kmsg
// except in tests. *unattributed counts the other lines of the window (their
// text is not kept). err is set when unreadable. boot_epoch places printk's
// boot-relative times on a wall clock; 0: this node's clock now.
std::string kmsg_window(const std::string &path, time_t from, time_t to, const std::string &host,
			uint64_t cap, const job_scope &scope, uint64_t *unattributed, std::string &err,
			double boot_epoch = 0);

// The boot time (epoch s) on this node's clock now.
double boot_epoch_now();

// The window's end: now (this node's clock, whole seconds) on the clock of
// the job's start, the node's clock having moved by moved_s since. Rounded
// up, so that the line the kernel wrote just before the task died is inside
// whatever fraction of a second the move has.
time_t kmsg_window_end(time_t now, double moved_s);

// One raw kmsg record ("pri,seq,usec,flags;text") as a journal line; empty
// when the record is malformed or outside the window.
std::string kmsg_format(const std::string &record, double boot_epoch, time_t from, time_t to,
			const std::string &host);

} // namespace denpex::epilog
