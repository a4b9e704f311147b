#include "config.hh"

#include "denpex_diag.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace denpex::epilog {

namespace {

struct entry {
	std::string key;
	bool is_list = false;
	std::string scalar;
	std::vector<std::string> items;
	size_t line = 0;
};

// The top-level mapping as entries, read by libdiag's YAML loader (through
// its C header); false with err ("name:line: reason") when it is not one.
bool read_entries(const std::string &text, const std::string &name, std::vector<entry> &out, std::string &err)
{
	denpex_conf_entry *es = nullptr;
	size_t n = 0;
	char *e = nullptr;
	if (denpex_conf_parse(text.data(), text.size(), name.c_str(), &es, &n, &e) != DENPEX_OK) {
		err = e ? e : name + ": cannot be read";
		denpex_free(e);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		entry x;
		x.key = es[i].key;
		x.line = static_cast<size_t>(es[i].line);
		x.is_list = es[i].value == nullptr;
		if (x.is_list)
			x.items.assign(es[i].items, es[i].items + es[i].nitems);
		else
			x.scalar = es[i].value;
		out.push_back(std::move(x));
	}
	denpex_free(es);
	return true;
}

bool parse_u64(const std::string &s, uint64_t &v)
{
	if (s.empty() || s.size() > 24)
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long long x = strtoull(s.c_str(), &end, 10);
	if (errno || end == s.c_str() || s[0] == '-')
		return false;
	uint64_t mult = 1;
	std::string suffix(end);
	if (suffix == "" || suffix == "B")
		mult = 1;
	else if (suffix == "K" || suffix == "KiB")
		mult = 1ull << 10;
	else if (suffix == "M" || suffix == "MiB")
		mult = 1ull << 20;
	else if (suffix == "G" || suffix == "GiB")
		mult = 1ull << 30;
	else
		return false;
	if (x > UINT64_MAX / mult)
		return false;
	v = x * mult;
	return true;
}

bool parse_bool(const std::string &s, bool &v)
{
	if (s == "true" || s == "yes" || s == "on") {
		v = true;
		return true;
	}
	if (s == "false" || s == "no" || s == "off") {
		v = false;
		return true;
	}
	return false;
}

} // namespace

static const char *const known_states[] = {"PENDING",	"RUNNING",   "SUSPENDED",    "COMPLETED",
					   "CANCELLED", "FAILED",    "TIMEOUT",	     "NODE_FAIL",
					   "PREEMPTED", "BOOT_FAIL", "DEADLINE",     "OUT_OF_MEMORY", "REQUEUED"};

config_result config_parse_string(const std::string &text, const std::string &name)
{
	config_result r;
	r.file_found = true;
	std::vector<entry> entries;
	std::string err;
	if (!read_entries(text, name, entries, err)) {
		r.errors.push_back(err + "; using built-in defaults for every key");
		return r;
	}
	config &c = r.cfg;
	for (const entry &e : entries) {
		std::string where = name + ":" + std::to_string(e.line) + ": " + e.key;
		auto bad = [&](const std::string &why) {
			r.errors.push_back(where + ": " + why + "; using the default");
		};
		if (e.key == "dcgm") {
			// A list, or one word; [] switches collection off.
			std::vector<std::string> items = e.is_list ? e.items : std::vector<std::string>{e.scalar};
			if (!e.is_list && (e.scalar.empty() || e.scalar == "off"))
				items.clear();
			bool ok = true;
			c.dcgm_sources.clear();
			for (const std::string &s : items) {
				if (s != "dcgmi" && s != "nvidia-smi" && s != "prometheus") {
					bad("unknown source '" + s + "' (dcgmi, nvidia-smi, prometheus)");
					ok = false;
					break;
				}
				c.dcgm_sources.push_back(s);
			}
			if (!ok)
				c.dcgm_sources.clear();
			continue;
		}
		if (e.key == "diagnose_states") {
			if (!e.is_list) {
				bad("expected a list of job states");
				continue;
			}
			std::vector<std::string> states;
			bool ok = true;
			for (std::string s : e.items) {
				std::transform(s.begin(), s.end(), s.begin(), ::toupper);
				if (std::find(std::begin(known_states), std::end(known_states), s) ==
				    std::end(known_states)) {
					bad("unknown job state '" + s + "'");
					ok = false;
					break;
				}
				states.push_back(s);
			}
			if (ok)
				c.diagnose_states = states;
			continue;
		}
		if (e.is_list) {
			bad("expected a single value, not a list");
			continue;
		}
		const std::string &v = e.scalar;
		auto path_key = [&](std::string &dst) {
			if (v.empty() || v[0] != '/' || v.find("/../") != std::string::npos ||
			    v.size() > 1024)
				bad("expected an absolute path");
			else
				dst = v;
		};
		auto num_key = [&](uint64_t &dst, uint64_t lo, uint64_t hi) {
			uint64_t x;
			if (!parse_u64(v, x) || x < lo || x > hi)
				bad("expected a number from " + std::to_string(lo) + " to " + std::to_string(hi));
			else
				dst = x;
		};
		auto unum_key = [&](unsigned &dst, unsigned lo, unsigned hi) {
			uint64_t x = dst;
			num_key(x, lo, hi);
			dst = static_cast<unsigned>(x);
		};
		if (e.key == "spool_dir")
			path_key(c.spool_dir);
		else if (e.key == "state_dir")
			path_key(c.state_dir);
		else if (e.key == "report_dir")
			path_key(c.report_dir);
		else if (e.key == "metrics_dir") {
			if (v.empty())
				c.metrics_dir.clear();
			else
				path_key(c.metrics_dir);
		} else if (e.key == "dcgmi_path")
			path_key(c.dcgmi_path);
		else if (e.key == "nvidia_smi_path")
			path_key(c.nvidia_smi_path);
		else if (e.key == "prometheus_url") {
			if (v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0)
				bad("expected an http:// or https:// URL");
			else
				c.prometheus_url = v;
		} else if (e.key == "dcgm_timeout_s")
			unum_key(c.dcgm_timeout_s, 1, 60);
		else if (e.key == "conf_dir") {
			if (v.empty())
				c.conf_dir.clear();
			else
				path_key(c.conf_dir);
		} else if (e.key == "deadline_s")
			unum_key(c.deadline_s, 5, 3600);
		else if (e.key == "node_wait_s")
			unum_key(c.node_wait_s, 0, 600);
		else if (e.key == "read_timeout_s")
			unum_key(c.read_timeout_s, 1, 600);
		else if (e.key == "max_bytes_per_file")
			num_key(c.max_bytes_per_file, 4096, 1ull << 40);
		else if (e.key == "max_total_bytes")
			num_key(c.max_total_bytes, 4096, 1ull << 40);
		else if (e.key == "max_state_bytes")
			num_key(c.max_state_bytes, 4096, 1ull << 44);
		else if (e.key == "kernel_max_bytes")
			num_key(c.kernel_max_bytes, 0, 1ull << 30);
		else if (e.key == "kernel_slack_s")
			unum_key(c.kernel_slack_s, 0, 86400);
		else if (e.key == "comment_max_bytes") {
			uint64_t x = c.comment_max_bytes;
			num_key(x, 40, 1000);
			c.comment_max_bytes = static_cast<size_t>(x);
		} else if (e.key == "comment_field") {
			if (v == "comment")
				c.comment_field = comment_field::comment;
			else if (v == "admin_comment")
				c.comment_field = comment_field::admin_comment;
			else
				bad("expected comment or admin_comment");
		} else if (e.key == "kernel_log") {
			if (v == "kmsg")
				c.kernel_log = kernel_source::kmsg;
			else if (v == "none")
				c.kernel_log = kernel_source::none;
			else
				bad("expected kmsg or none");
		} else if (e.key == "diagnose_in") {
			if (v == "node")
				c.diagnose_in = diagnose_site::node;
			else if (v == "slurmctld")
				c.diagnose_in = diagnose_site::slurmctld;
			else
				bad("expected node or slurmctld");
		} else if (e.key == "keep_state") {
			if (!parse_bool(v, c.keep_state))
				bad("expected true or false");
		} else if (e.key == "keep_spool") {
			if (!parse_bool(v, c.keep_spool))
				bad("expected true or false");
		} else {
			r.errors.push_back(where + ": unknown key, ignored");
		}
	}
	if (c.node_wait_s + 5 > c.deadline_s) {
		r.errors.push_back(name + ": node_wait_s must leave at least 5 s of deadline_s; using " +
				   std::to_string(c.deadline_s / 3));
		c.node_wait_s = c.deadline_s / 3;
	}
	return r;
}

config_result config_load(const std::string &path)
{
	// Bounded read: a config is small; refuse anything that is not a regular file.
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		config_result r;
		if (errno != ENOENT)
			r.errors.push_back(path + ": " + strerror(errno) + "; using built-in defaults");
		return r;
	}
	struct stat st;
	std::string text;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
		close(fd);
		config_result r;
		r.file_found = true;
		r.errors.push_back(path + ": not a regular file under 1 MiB; using built-in defaults");
		return r;
	}
	char buf[8192];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && text.size() < (1u << 20))
		text.append(buf, static_cast<size_t>(n));
	close(fd);
	return config_parse_string(text, path);
}

bool config_state_wanted(const config &c, const std::string &state)
{
	return std::find(c.diagnose_states.begin(), c.diagnose_states.end(), state) !=
	       c.diagnose_states.end();
}

} // namespace denpex::epilog
