#include "rendering/metrics.hh"

#include "reading/fd_io.hh"

#include <jansson.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace diag {

namespace {

const char *lock_name = ".denpex-metrics.lock";
const char *state_name = ".denpex-metrics.state";
constexpr size_t max_state_bytes = 16u << 20;

struct json_ref {
	json_t *j;
	explicit json_ref(json_t *p) : j(p) {}
	~json_ref() { json_decref(j); }
	json_ref(const json_ref &) = delete;
	json_ref &operator=(const json_ref &) = delete;
};

std::string str_at(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : "";
}

// Label values as the exposition format wants them.
std::string esc(const std::string &s)
{
	std::string o;
	for (char c : s) {
		if (c == '\\')
			o += "\\\\";
		else if (c == '"')
			o += "\\\"";
		else if (c == '\n')
			o += "\\n";
		else
			o += c;
	}
	return o;
}

std::string num(double v)
{
	char b[64];
	if (v == std::floor(v) && std::fabs(v) < 1e15)
		snprintf(b, sizeof b, "%.0f", v);
	else
		snprintf(b, sizeof b, "%.6g", v);
	return b;
}

std::string key3(const std::tuple<std::string, std::string, std::string> &k)
{
	return std::get<0>(k) + '\t' + std::get<1>(k) + '\t' + std::get<2>(k);
}

bool split3(const std::string &s, std::tuple<std::string, std::string, std::string> &k)
{
	size_t a = s.find('\t'), b = a == std::string::npos ? a : s.find('\t', a + 1);
	if (b == std::string::npos)
		return false;
	k = {s.substr(0, a), s.substr(a + 1, b - a - 1), s.substr(b + 1)};
	return true;
}

int open_dir_nofollow(const std::string &dir, std::string &err)
{
	int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		err = dir + ": " + strerror(errno);
	return fd;
}

bool write_atomic_at(int dfd, const std::string &dir, const std::string &name, const std::string &text,
		     std::string &err)
{
	// The temp name does not end in .prom: the collector must never read it.
	std::string tmp = "." + name + ".tmp." + std::to_string(getpid());
	int fd = openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = dir + "/" + tmp + ": " + strerror(errno);
		return false;
	}
	fchmod(fd, 0644);
	if (!write_all(fd, text.data(), text.size())) {
		err = dir + "/" + tmp + ": " + strerror(errno);
		close(fd);
		unlinkat(dfd, tmp.c_str(), 0);
		return false;
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		err = dir + "/" + tmp + ": " + strerror(errno);
		unlinkat(dfd, tmp.c_str(), 0);
		return false;
	}
	if (renameat(dfd, tmp.c_str(), dfd, name.c_str()) != 0) {
		err = dir + "/" + name + ": " + strerror(errno);
		unlinkat(dfd, tmp.c_str(), 0);
		return false;
	}
	return true;
}

double mono()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

} // namespace

const std::vector<double> &metrics_duration_bounds()
{
	static const std::vector<double> b = {0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300};
	return b;
}

bool metrics_add_verdict(metrics_state &s, const std::string &verdict_json, int64_t when, std::string &err)
{
	json_error_t je;
	json_ref root(json_loadb(verdict_json.data(), verdict_json.size(), 0, &je));
	if (!json_is_object(root.j) || !json_is_integer(json_object_get(root.j, "schema")) ||
	    !json_is_string(json_object_get(root.j, "class"))) {
		err = "not a denpex verdict (schema, class)";
		return false;
	}
	std::string cls = str_at(root.j, "class");
	std::string action = str_at(json_object_get(root.j, "next_action"), "kind");
	std::string node = str_at(json_object_get(root.j, "first"), "host");
	s.failures[{cls, action.empty() ? "none" : action, node.empty() ? "unknown" : node}]++;
	if (cls == "gpu_hardware") {
		json_t *gpu = json_object_get(root.j, "gpu");
		std::string hnode = str_at(gpu, "host");
		std::string bus = str_at(gpu, "bus_id");
		json_t *x = json_object_get(gpu, "xid");
		std::string xid = json_is_integer(x) ? std::to_string(json_integer_value(x)) : "none";
		if (hnode.empty())
			hnode = node.empty() ? "unknown" : node;
		auto &h = s.hardware[{hnode, bus.empty() ? "unknown" : bus, xid}];
		h.count++;
		h.last = std::max(h.last, when);
	}
	return true;
}

void metrics_add_epilog_run(metrics_state &s, double seconds, bool error)
{
	const auto &b = metrics_duration_bounds();
	s.duration_buckets.resize(b.size(), 0);
	for (size_t i = 0; i < b.size(); i++)
		if (seconds <= b[i])
			s.duration_buckets[i]++;
	s.duration_sum += seconds;
	s.duration_count++;
	if (error)
		s.epilog_errors++;
	s.has_epilog = true;
}

std::string metrics_state_to_json(const metrics_state &s)
{
	json_ref root(json_object());
	json_object_set_new(root.j, "version", json_integer(1));
	json_t *f = json_object();
	for (const auto &e : s.failures)
		json_object_set_new(f, key3(e.first).c_str(), json_integer(static_cast<json_int_t>(e.second)));
	json_object_set_new(root.j, "failures", f);
	json_t *h = json_object();
	for (const auto &e : s.hardware) {
		json_t *o = json_object();
		json_object_set_new(o, "count", json_integer(static_cast<json_int_t>(e.second.count)));
		json_object_set_new(o, "last", json_integer(e.second.last));
		json_object_set_new(h, key3(e.first).c_str(), o);
	}
	json_object_set_new(root.j, "hardware", h);
	if (s.has_epilog) {
		json_t *ep = json_object();
		json_t *b = json_array();
		for (uint64_t c : s.duration_buckets)
			json_array_append_new(b, json_integer(static_cast<json_int_t>(c)));
		json_object_set_new(ep, "buckets", b);
		json_object_set_new(ep, "sum", json_real(s.duration_sum));
		json_object_set_new(ep, "count", json_integer(static_cast<json_int_t>(s.duration_count)));
		json_object_set_new(ep, "errors", json_integer(static_cast<json_int_t>(s.epilog_errors)));
		json_object_set_new(root.j, "epilog", ep);
	}
	char *out = json_dumps(root.j, JSON_SORT_KEYS);
	std::string r = out ? out : "{}";
	free(out);
	return r + "\n";
}

bool metrics_state_from_json(const std::string &text, metrics_state &s, std::string &err)
{
	s = metrics_state();
	json_error_t je;
	json_ref root(json_loadb(text.data(), text.size(), 0, &je));
	if (!json_is_object(root.j)) {
		err = std::string("state is not JSON: ") + je.text;
		return false;
	}
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(root.j, "failures"), k, v) {
		std::tuple<std::string, std::string, std::string> t;
		if (split3(k, t) && json_is_integer(v) && json_integer_value(v) >= 0)
			s.failures[t] = static_cast<uint64_t>(json_integer_value(v));
	}
	json_object_foreach(json_object_get(root.j, "hardware"), k, v) {
		std::tuple<std::string, std::string, std::string> t;
		json_t *c = json_object_get(v, "count"), *l = json_object_get(v, "last");
		if (split3(k, t) && json_is_integer(c) && json_is_integer(l))
			s.hardware[t] = {static_cast<uint64_t>(json_integer_value(c)), json_integer_value(l)};
	}
	json_t *ep = json_object_get(root.j, "epilog");
	if (json_is_object(ep)) {
		json_t *b = json_object_get(ep, "buckets");
		if (json_array_size(b) == metrics_duration_bounds().size()) {
			size_t i;
			json_array_foreach(b, i, v) s.duration_buckets.push_back(
				static_cast<uint64_t>(json_is_integer(v) ? json_integer_value(v) : 0));
			s.duration_sum = json_number_value(json_object_get(ep, "sum"));
			s.duration_count = static_cast<uint64_t>(json_integer_value(json_object_get(ep, "count")));
			s.epilog_errors = static_cast<uint64_t>(json_integer_value(json_object_get(ep, "errors")));
			s.has_epilog = true;
		}
	}
	return true;
}

std::string metrics_exposition(const metrics_state &s)
{
	std::string o;
	o += "# HELP denpex_failures_total Failed jobs diagnosed by denpex, by failure class, next action and initiating node.\n";
	o += "# TYPE denpex_failures_total counter\n";
	for (const auto &e : s.failures)
		o += "denpex_failures_total{class=\"" + esc(std::get<0>(e.first)) + "\",next_action=\"" +
		     esc(std::get<1>(e.first)) + "\",node=\"" + esc(std::get<2>(e.first)) + "\"} " + num(static_cast<double>(e.second)) + "\n";
	o += "# HELP denpex_gpu_hardware_verdicts_total Jobs whose verdict blamed a GPU hardware fault, by node, GPU bus id and Xid.\n";
	o += "# TYPE denpex_gpu_hardware_verdicts_total counter\n";
	for (const auto &e : s.hardware)
		o += "denpex_gpu_hardware_verdicts_total{node=\"" + esc(std::get<0>(e.first)) + "\",gpu=\"" +
		     esc(std::get<1>(e.first)) + "\",xid=\"" + esc(std::get<2>(e.first)) + "\"} " + num(static_cast<double>(e.second.count)) + "\n";
	o += "# HELP denpex_gpu_hardware_last_verdict_timestamp_seconds When the last job blamed a GPU hardware fault on this node, GPU and Xid.\n";
	o += "# TYPE denpex_gpu_hardware_last_verdict_timestamp_seconds gauge\n";
	for (const auto &e : s.hardware)
		o += "denpex_gpu_hardware_last_verdict_timestamp_seconds{node=\"" + esc(std::get<0>(e.first)) + "\",gpu=\"" +
		     esc(std::get<1>(e.first)) + "\",xid=\"" + esc(std::get<2>(e.first)) + "\"} " + num(static_cast<double>(e.second.last)) + "\n";
	if (s.has_epilog) {
		const auto &b = metrics_duration_bounds();
		o += "# HELP denpex_epilog_duration_seconds Time the epilog took to diagnose a job on this node.\n";
		o += "# TYPE denpex_epilog_duration_seconds histogram\n";
		for (size_t i = 0; i < b.size(); i++)
			o += "denpex_epilog_duration_seconds_bucket{le=\"" + num(b[i]) + "\"} " +
			     num(static_cast<double>(i < s.duration_buckets.size() ? s.duration_buckets[i] : 0)) + "\n";
		o += "denpex_epilog_duration_seconds_bucket{le=\"+Inf\"} " + num(static_cast<double>(s.duration_count)) + "\n";
		char sum[64];
		snprintf(sum, sizeof sum, "%.6f", s.duration_sum);
		o += std::string("denpex_epilog_duration_seconds_sum ") + sum + "\n";
		o += "denpex_epilog_duration_seconds_count " + num(static_cast<double>(s.duration_count)) + "\n";
		o += "# HELP denpex_epilog_errors_total Epilog runs on this node that produced no verdict or could not write it.\n";
		o += "# TYPE denpex_epilog_errors_total counter\n";
		o += "denpex_epilog_errors_total " + num(static_cast<double>(s.epilog_errors)) + "\n";
	}
	return o;
}

bool metrics_write_atomic(const std::string &dir, const std::string &name, const std::string &text, std::string &err)
{
	int dfd = open_dir_nofollow(dir, err);
	if (dfd < 0)
		return false;
	bool ok = write_atomic_at(dfd, dir, name, text, err);
	close(dfd);
	return ok;
}

bool metrics_record(const std::string &dir, const std::string &verdict_json, double epilog_seconds,
		    bool epilog_error, double lock_timeout_s, std::string &err)
{
	int dfd = open_dir_nofollow(dir, err);
	if (dfd < 0)
		return false;
	int lfd = openat(dfd, lock_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lfd < 0) {
		err = dir + "/" + lock_name + ": " + strerror(errno);
		close(dfd);
		return false;
	}
	// Bounded wait: an epilog must not hang on another's lock.
	double until = mono() + lock_timeout_s;
	bool locked = false;
	for (;;) {
		if (flock(lfd, LOCK_EX | LOCK_NB) == 0) {
			locked = true;
			break;
		}
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (mono() >= until)
			break;
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, nullptr);
	}
	bool ok = false;
	if (!locked) {
		err = dir + "/" + lock_name + ": not locked within " + num(lock_timeout_s) + " s";
	} else {
		metrics_state s;
		std::string text;
		int sfd = openat(dfd, state_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		bool read_ok = true;
		if (sfd >= 0) {
			char buf[65536];
			ssize_t r;
			while ((r = read(sfd, buf, sizeof buf)) > 0 && text.size() < max_state_bytes)
				text.append(buf, static_cast<size_t>(r));
			close(sfd);
			if (!text.empty() && !metrics_state_from_json(text, s, err)) {
				// A damaged state restarts the counters (Prometheus sees a
				// counter reset) rather than stopping the metrics for good.
				s = metrics_state();
				err.clear();
			}
		} else if (errno != ENOENT) {
			err = dir + "/" + state_name + ": " + strerror(errno);
			read_ok = false;
		}
		if (read_ok) {
			std::string verr;
			if (!verdict_json.empty() &&
			    !metrics_add_verdict(s, verdict_json, static_cast<int64_t>(time(nullptr)), verr)) {
				epilog_error = true;
			}
			metrics_add_epilog_run(s, epilog_seconds, epilog_error);
			ok = write_atomic_at(dfd, dir, state_name, metrics_state_to_json(s), err) &&
			     write_atomic_at(dfd, dir, metrics_file_name, metrics_exposition(s), err);
		}
	}
	close(lfd); // releases the lock
	close(dfd);
	return ok;
}

} // namespace diag
