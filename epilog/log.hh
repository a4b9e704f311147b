// Logging for denpex-epilog: syslog (LOG_DAEMON) and stderr, one line each.
#pragma once

#include <syslog.h>

namespace denpex::epilog {

// Opens syslog; call once. The epilog's stderr lands in slurmd's log or the
// testbed's record, so lines also go there.
void log_open();
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

} // namespace denpex::epilog
