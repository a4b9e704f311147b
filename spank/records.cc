// records.cc - the JSON records spank_denpex.so leaves in the job's spool dir.
//
//   ranks/<step>.<task>.json  one per task, at task start (rank map + node clock facts)
//   exits/<step>.<task>.json  one per task, when slurmstepd reaps it (task_exit)
//
// One small JSON object per file (schema 1: within a major version fields
// are only added); the field list is in spank_denpex(8), what the library
// takes from it in doc/handoff.md. Written here by hand: the plugin links
// nothing but libc and libstdc++.
#include "spank_denpex.hh"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace denpex {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629), 0 when there
// is none. The library's reader applies the same rule (rendering/utf8.cc).
size_t utf8_length(const std::string &s, size_t i)
{
	unsigned char c = (unsigned char)s[i];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (i + len > s.size() || (unsigned char)s[i + 1] < lo || (unsigned char)s[i + 1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (((unsigned char)s[i + k] & 0xc0) != 0x80)
			return 0;
	return len;
}

} // namespace

std::string json_string(const std::string &s)
{
	std::string out = "\"";
	for (size_t i = 0; i < s.size(); i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		case '\n': out += "\\n"; break;
		case '\r': out += "\\r"; break;
		case '\t': out += "\\t"; break;
		default:
			if (c < 0x20 || c == 0x7f) {
				char buf[8];
				snprintf(buf, sizeof(buf), "\\u%04x", c);
				out += buf;
			} else if (c >= 0x80) {
				// UTF-8 stays as it is; a byte that is not UTF-8 becomes U+FFFD.
				size_t len = utf8_length(s, i);
				if (len > 0) {
					out.append(s, i, len);
					i += len - 1;
				} else {
					out += "\\ufffd";
				}
			} else {
				out += (char)c;
			}
		}
	}
	out += "\"";
	return out;
}

std::string step_name(uint32_t step)
{
	switch (step) {
	case 0xfffffffbU: return "batch";
	case 0xfffffffcU: return "extern";
	case 0xfffffffaU: return "interactive";
	case 0xfffffffdU: return "pending";
	default: return std::to_string(step);
	}
}

int64_t realtime_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t monotonic_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

std::string iso_utc_ns(int64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000LL);
	long frac = (long)(ns % 1000000000LL);
	if (frac < 0) {
		frac += 1000000000L;
		sec -= 1;
	}
	struct tm tm;
	if (gmtime_r(&sec, &tm) == nullptr)
		return "";
	char buf[64];
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%09ldZ", frac);
	return buf;
}

const char *signal_name(int sig)
{
	switch (sig) {
	case SIGHUP: return "SIGHUP";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGUSR1: return "SIGUSR1";
	case SIGSEGV: return "SIGSEGV";
	case SIGUSR2: return "SIGUSR2";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGTERM: return "SIGTERM";
	case SIGCHLD: return "SIGCHLD";
	case SIGCONT: return "SIGCONT";
	case SIGSTOP: return "SIGSTOP";
	case SIGTSTP: return "SIGTSTP";
	case SIGXCPU: return "SIGXCPU";
	case SIGXFSZ: return "SIGXFSZ";
	case SIGSYS: return "SIGSYS";
	default: return nullptr;
	}
}

namespace {

// /proc/stat "btime N": the boot time in epoch seconds, -1 when unreadable.
int64_t read_btime()
{
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[16384];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(buf) - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	const char *p = strstr(buf, "\nbtime ");
	if (p == nullptr)
		return -1;
	long long v = -1;
	if (sscanf(p + 7, "%lld", &v) != 1)
		return -1;
	return v;
}

std::string num(int64_t v)
{
	return std::to_string(v);
}

std::string ids_json(const task_ids &ids)
{
	return "\"job\":" + num(ids.ti_job) + ",\"step\":" + json_string(step_name(ids.ti_step)) +
	       ",\"task\":" + num(ids.ti_task) + ",\"local_task\":" + num(ids.ti_local_task) +
	       ",\"node_id\":" + num(ids.ti_node_id) + ",\"node\":" + json_string(ids.ti_node);
}

} // namespace

clock_facts clock_facts_now()
{
	clock_facts cf;
	struct timespec rt, bt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	cf.cf_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	cf.cf_boottime_ns = (int64_t)bt.tv_sec * 1000000000LL + bt.tv_nsec;
	cf.cf_btime = read_btime();
	tzset();
	time_t now = rt.tv_sec;
	struct tm tm;
	if (localtime_r(&now, &tm) != nullptr) {
		cf.cf_utc_offset_s = tm.tm_gmtoff;
		cf.cf_zone = tm.tm_zone != nullptr ? tm.tm_zone : "";
	}
	return cf;
}

std::string rank_record_json(const rank_record &r)
{
	const clock_facts &c = r.rr_clock;
	std::string s = "{\"schema\":1,\"kind\":\"rank\"," + ids_json(r.rr_ids) +
			",\"hostname\":" + json_string(r.rr_hostname) + ",\"pid\":" + num(r.rr_pid) +
			",\"nnodes\":" + num(r.rr_nnodes) + ",\"ntasks\":" + num(r.rr_ntasks) +
			",\"gpus\":" + (r.rr_gpus_set ? json_string(r.rr_gpus) : std::string("null")) +
			",\"clock\":{\"realtime_ns\":" + num(c.cf_realtime_ns) +
			",\"time\":" + json_string(iso_utc_ns(c.cf_realtime_ns)) +
			",\"boottime_ns\":" + num(c.cf_boottime_ns) +
			",\"btime\":" + (c.cf_btime >= 0 ? num(c.cf_btime) : std::string("null")) +
			",\"zone\":" + json_string(c.cf_zone) + ",\"utc_offset_s\":" + num(c.cf_utc_offset_s);
	if (c.cf_srun_realtime_ns >= 0)
		s += ",\"srun_realtime_ns\":" + num(c.cf_srun_realtime_ns) +
		     ",\"launch_delta_ns\":" + num(c.cf_realtime_ns - c.cf_srun_realtime_ns);
	else
		s += ",\"srun_realtime_ns\":null,\"launch_delta_ns\":null";
	s += "}}\n";
	return s;
}

std::string exit_record_json(const exit_record &r)
{
	int st = r.er_status;
	std::string s = "{\"schema\":1,\"kind\":\"task_exit\"," + ids_json(r.er_ids) + ",\"pid\":" + num(r.er_pid) +
			",\"status\":" + num(st);
	if (WIFEXITED(st)) {
		s += ",\"exit_code\":" + num(WEXITSTATUS(st)) + ",\"signal\":null,\"signal_name\":null,\"core_dumped\":false";
	} else if (WIFSIGNALED(st)) {
		const char *name = signal_name(WTERMSIG(st));
		s += ",\"exit_code\":null,\"signal\":" + num(WTERMSIG(st)) + ",\"signal_name\":" +
		     (name ? json_string(name) : std::string("null")) + ",\"core_dumped\":" +
		     (WCOREDUMP(st) ? "true" : "false");
	} else {
		s += ",\"exit_code\":null,\"signal\":null,\"signal_name\":null,\"core_dumped\":false";
	}
	s += ",\"time_ns\":" + num(r.er_realtime_ns) + ",\"time\":" + json_string(iso_utc_ns(r.er_realtime_ns)) + "}\n";
	return s;
}

} // namespace denpex
