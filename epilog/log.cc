#include "log.hh"

#include <cstdarg>
#include <cstdio>

namespace denpex::epilog {

void log_open()
{
	openlog("denpex-epilog", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_msg(int prio, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	syslog(prio, "%s", buf);
	fprintf(stderr, "denpex-epilog: %s\n", buf);
}

} // namespace denpex::epilog
