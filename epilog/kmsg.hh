// This node's kernel messages for the job's time window, from /dev/kmsg
// (non-blocking, bounded), as journalctl -k -o short-iso-precise lines.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace denpex::epilog {

// Lines with a time in [from, to] (epoch seconds); at most cap bytes, the
// newest kept. host names the node (SLURMD_NODENAME: virtual nodes share a
// hostname). path is /dev/kmsg except in tests. err is set when unreadable.
std::string kmsg_window(const std::string &path, time_t from, time_t to, const std::string &host,
			uint64_t cap, std::string &err);

// One raw kmsg record ("pri,seq,usec,flags;text") as a journal line; empty
// when the record is malformed or outside the window.
std::string kmsg_format(const std::string &record, double boot_epoch, time_t from, time_t to,
			const std::string &host);

} // namespace denpex::epilog
