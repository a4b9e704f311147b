#include "kmsg.hh"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>

namespace denpex::epilog {

namespace {

double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

} // namespace

namespace {

// "pri,seq,usec,flags;text": the time (epoch s) and the text; false when
// malformed or outside [from, to].
bool kmsg_parse(const std::string &record, double boot_epoch, time_t from, time_t to, double &t,
		std::string &text)
{
	size_t semi = record.find(';');
	if (semi == std::string::npos)
		return false;
	// Header: prefix,seq,usec,flags[,more]
	const char *h = record.c_str();
	char *end;
	strtoul(h, &end, 10);
	if (*end != ',')
		return false;
	strtoull(end + 1, &end, 10);
	if (*end != ',')
		return false;
	unsigned long long usec = strtoull(end + 1, &end, 10);
	if (*end != ',' && *end != ';')
		return false;
	t = boot_epoch + static_cast<double>(usec) / 1e6;
	if (t < static_cast<double>(from) || t > static_cast<double>(to) + 1)
		return false;
	size_t nl = record.find('\n', semi);
	text = record.substr(semi + 1, nl == std::string::npos ? std::string::npos : nl - semi - 1);
	return true;
}

std::string journal_line(double t, const std::string &text, const std::string &host)
{
	time_t secs = static_cast<time_t>(t);
	long micros = static_cast<long>((t - static_cast<double>(secs)) * 1e6);
	if (micros < 0)
		micros = 0;
	if (micros > 999999)
		micros = 999999;
	struct tm tm;
	gmtime_r(&secs, &tm);
	char ts[64];
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	char frac[16];
	snprintf(frac, sizeof(frac), ".%06ld+0000", micros);
	return std::string(ts) + frac + " " + host + " kernel: " + text + "\n";
}

} // namespace

std::string kmsg_format(const std::string &record, double boot_epoch, time_t from, time_t to,
			const std::string &host)
{
	double t;
	std::string text;
	if (!kmsg_parse(record, boot_epoch, from, to, t, text))
		return "";
	return journal_line(t, text, host);
}

double boot_epoch_now()
{
	return clock_s(CLOCK_REALTIME) - clock_s(CLOCK_MONOTONIC);
}

time_t kmsg_window_end(time_t now, double moved_s)
{
	// time() drops the fraction of now: one second more covers it.
	return static_cast<time_t>(std::ceil(static_cast<double>(now) + 1 - moved_s));
}

std::string kmsg_window(const std::string &path, time_t from, time_t to, const std::string &host,
			uint64_t cap, const job_scope &scope, uint64_t *unattributed, std::string &err,
			double boot_epoch)
{
	int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = path + ": " + strerror(errno);
		return "";
	}
	// printk times count from boot on the monotonic clock.
	if (boot_epoch <= 0)
		boot_epoch = boot_epoch_now();
	std::deque<std::string> lines;
	uint64_t total = 0;
	char buf[8192 + 1];
	double give_up = clock_s(CLOCK_MONOTONIC) + 5;
	for (unsigned n = 0; n < 1000000; n++) {
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		if (r < 0) {
			if (errno == EINTR || errno == EPIPE) // EPIPE: record overwritten, go on
				continue;
			if (errno != EAGAIN)
				err = path + ": " + strerror(errno);
			break;
		}
		if (r == 0)
			break;
		if ((n & 1023) == 0 && clock_s(CLOCK_MONOTONIC) > give_up)
			break;
		double t;
		std::string text;
		if (!kmsg_parse(std::string(buf, static_cast<size_t>(r)), boot_epoch, from, to, t, text))
			continue;
		if (!kernel_line_is_jobs(text, t, scope)) {
			if (unattributed)
				++*unattributed;
			continue;
		}
		std::string line = journal_line(t, text, host);
		total += line.size();
		lines.push_back(std::move(line));
		while (total > cap && !lines.empty()) {
			total -= lines.front().size();
			lines.pop_front();
		}
	}
	close(fd);
	std::string out;
	for (const std::string &l : lines)
		out += l;
	return out;
}

} // namespace denpex::epilog
