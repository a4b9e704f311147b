#include "reading/qacct_record.hh"

#include "reading/line_prefix.hh"
#include "reading/timestamp.hh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace diag {

namespace {

// A leading decimal number ("100 : assumedly after job" is 100); -1 if none.
long long leading_number(std::string_view v)
{
	v = trim_blanks(v);
	size_t n = 0;
	while (n < v.size() && n < 12 && v[n] >= '0' && v[n] <= '9')
		n++;
	long long out = -1;
	if (n == 0 || !parse_uint(v.substr(0, n), out))
		return -1;
	return out;
}

int64_t qacct_time_us(std::string_view v)
{
	auto ts = parse_timestamp(trim_blanks(v));
	if (!ts)
		return no_time;
	ts_context ctx;
	return resolve_timestamp(*ts, ctx).value_or(no_time);
}

// What a job asked for (qacct's category: "-q gpu.q -l gpu=4,h_rt=86400,h_vmem=6G
// -pe smp 16 -notify"): its resource requests and whether it wanted -notify.
struct job_request {
	std::map<std::string, std::string> resources;
	bool notify = false;
};

job_request parse_category(std::string_view cat)
{
	job_request r;
	std::vector<std::string_view> words;
	for (size_t i = 0; i < cat.size();) {
		while (i < cat.size() && cat[i] == ' ')
			i++;
		size_t j = cat.find(' ', i);
		if (j == std::string_view::npos)
			j = cat.size();
		if (j > i)
			words.push_back(cat.substr(i, j - i));
		i = j;
	}
	for (size_t i = 0; i < words.size(); i++) {
		if (words[i] == "-notify")
			r.notify = true;
		if ((words[i] != "-l" && words[i] != "-hard") || i + 1 >= words.size())
			continue;
		std::string_view list = words[i + 1];
		for (size_t p = 0; p <= list.size();) {
			size_t c = list.find(',', p);
			if (c == std::string_view::npos)
				c = list.size();
			std::string_view kv = list.substr(p, c - p);
			size_t eq = kv.find('=');
			if (eq != std::string_view::npos && eq > 0)
				r.resources[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
			p = c + 1;
		}
	}
	return r;
}

// The seconds a job may run: the earlier of its soft and hard limits (the
// soft one's SIGUSR1 ends a job that does not catch it); -1 when neither.
int64_t run_limit_s(int64_t s_rt, int64_t h_rt)
{
	if (s_rt > 0 && h_rt > 0)
		return std::min(s_rt, h_rt);
	return s_rt > 0 ? s_rt : h_rt > 0 ? h_rt : -1;
}

// A queue's limit from `qconf -sq` lines, where every one seen says the
// same (several queues' configurations side by side name no one limit).
int64_t queue_limit_s(const std::vector<std::string> &values)
{
	int64_t out = -1;
	for (size_t i = 0; i < values.size(); i++) {
		int64_t v = sge_duration_s(values[i]);
		if (i > 0 && v != out)
			return -1;
		out = v;
	}
	return out;
}

} // namespace

int64_t sge_duration_s(std::string_view v)
{
	v = trim_blanks(v);
	if (v.empty() || v == "INFINITY" || v == "infinity")
		return -1;
	if (v.find(':') != std::string_view::npos)
		return clock_seconds(v, 100000000);
	if (v.back() == 's')
		v.remove_suffix(1);
	size_t dot = v.find('.');
	long long n;
	if (!parse_uint(v.substr(0, dot), n) || n > 100LL * 365 * 86400)
		return -1;
	return n;
}

double sge_bytes(std::string_view v)
{
	v = trim_blanks(v);
	if (v.empty() || v == "INFINITY" || v == "infinity")
		return -1;
	std::string s(v.substr(0, 32));
	char *end = nullptr;
	double n = strtod(s.c_str(), &end);
	if (end == s.c_str() || !std::isfinite(n) || n < 0)
		return -1;
	std::string_view unit(end);
	if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b') && unit.size() > 1)
		unit.remove_suffix(1);
	if (unit.empty())
		return n;
	if (unit.size() != 1)
		return -1;
	switch (unit[0]) {
	case 'k': case 'K': return n * 1024.0;
	case 'm': case 'M': return n * 1024.0 * 1024.0;
	case 'g': case 'G': return n * 1024.0 * 1024.0 * 1024.0;
	case 't': case 'T': return n * 1024.0 * 1024.0 * 1024.0 * 1024.0;
	default: return -1;
	}
}

bool job_facts_from_qacct(evidence &ev)
{
	if (!ev.job.state.empty())
		return false;
	// The record's fields in file order; a field seen again opens the next
	// record (qacct lists every run of a job, and several jobs): the first counts.
	std::vector<const event *> fields;
	std::map<std::string, std::vector<std::string>> queue_limits;
	for (const event &e : ev.events) {
		std::string field = e.capture("record_field");
		if (field.empty())
			continue;
		if (field == "s_rt" || field == "h_rt")
			queue_limits[field].push_back(e.capture("record_value"));
		else
			fields.push_back(&e);
	}
	if (fields.empty())
		return false;
	std::stable_sort(fields.begin(), fields.end(), [](const event *a, const event *b) {
		return a->file != b->file ? a->file < b->file : a->line < b->line;
	});
	std::map<std::string, std::string> rec;
	for (const event *e : fields) {
		if (e->file != fields.front()->file)
			break;
		std::string field = e->capture("record_field");
		if (rec.count(field))
			break;
		rec[field] = e->capture("record_value");
	}
	// A record says how a job ended by its exit status and wall clock.
	if (!rec.count("exit_status") && !rec.count("failed"))
		return false;
	std::string job = rec.count("jobnumber") ? rec["jobnumber"] : std::string();
	if (!ev.job.job_id.empty() && !job.empty() && ev.job.job_id != job)
		return false; // another job's record
	if (!job.empty())
		ev.job.job_id = job;
	if (rec.count("hostname"))
		ev.job.nodelist = rec["hostname"];
	ev.job.start_us = rec.count("start_time") ? qacct_time_us(rec["start_time"]) : no_time;
	ev.job.end_us = rec.count("end_time") ? qacct_time_us(rec["end_time"]) : no_time;
	ev.job.times_local = true;

	const long long exit_status = rec.count("exit_status") ? leading_number(rec["exit_status"]) : -1;
	const long long failed = rec.count("failed") ? leading_number(rec["failed"]) : -1;
	const int64_t elapsed = rec.count("ru_wallclock") ? sge_duration_s(rec["ru_wallclock"]) : -1;
	job_request req = parse_category(rec.count("category") ? rec["category"] : std::string());
	auto asked = [&](const char *name) {
		auto it = req.resources.find(name);
		return it == req.resources.end() ? std::string() : it->second;
	};
	// The job's own request, else its queue's.
	int64_t s_rt = asked("s_rt").empty() ? queue_limit_s(queue_limits["s_rt"]) : sge_duration_s(asked("s_rt"));
	int64_t h_rt = asked("h_rt").empty() ? queue_limit_s(queue_limits["h_rt"]) : sge_duration_s(asked("h_rt"));
	const int64_t limit = run_limit_s(s_rt, h_rt);
	const double h_vmem = asked("h_vmem").empty() ? -1 : sge_bytes(asked("h_vmem"));
	const long long slots = rec.count("slots") ? leading_number(rec["slots"]) : -1;
	const double maxvmem = rec.count("maxvmem") ? sge_bytes(rec["maxvmem"]) : -1;

	// A shell reports a job killed by signal S as 128+S.
	const int sig = exit_status > 128 && exit_status < 128 + 65 ? static_cast<int>(exit_status - 128) : 0;
	// 37: "qmaster enforced h_rt, h_cpu, or h_vmem limit"; 100: "assumedly
	// after job", how a job killed by a signal is accounted.
	const bool killed = sig != 0 || failed == 37 || (failed == 100 && exit_status != 0);
	ev.job.exit_code = sig ? "0:" + std::to_string(sig) : std::to_string(std::max(0LL, exit_status)) + ":0";
	ev.job.elapsed_s = elapsed;
	ev.job.timelimit_s = limit;
	const std::string how = "(Grid Engine: exit_status " + std::to_string(exit_status) + ", failed " +
				std::to_string(failed) + ", ru_wallclock " + std::to_string(elapsed) + "s";
	const int64_t margin = std::min<int64_t>(600, std::max<int64_t>(60, limit / 10));
	std::string state, detail;
	if (rec.count("deleted_by") && !trim_blanks(rec["deleted_by"]).empty() && trim_blanks(rec["deleted_by"]) != "NONE") {
		state = "CANCELLED";
		detail = "CANCELLED by " + std::string(trim_blanks(rec["deleted_by"])) + " (qdel)";
	} else if (killed && limit > 0 && elapsed >= 0 && elapsed + margin >= limit) {
		state = "TIMEOUT";
		detail = "TIMEOUT " + how + " of its " + std::to_string(limit) + "s run-time limit)";
	} else if (killed && h_vmem > 0 && slots > 0 && maxvmem >= 0.95 * h_vmem * static_cast<double>(slots)) {
		state = "OUT_OF_MEMORY";
		detail = "OUT_OF_MEMORY " + how + ", maxvmem " + rec["maxvmem"] + " of h_vmem " + asked("h_vmem") +
			 " x " + std::to_string(slots) + " slots)";
	} else if (sig == 10 && req.notify) {
		// -notify: SIGUSR1 comes before a SIGSTOP (a subordinate queue's
		// suspension, an admin's), SIGUSR2 before a SIGKILL.
		state = "PREEMPTED";
		detail = "PREEMPTED " + how + ": SIGUSR1, -notify's warning of a suspension)";
	} else if (exit_status == 0 && failed <= 0) {
		state = "COMPLETED";
		detail = state;
	} else {
		state = "FAILED";
		detail = "FAILED " + how + ")";
	}
	ev.job.state = state;
	ev.job.state_detail = detail;
	ev.job.state_source = ev.where(*fields.front());
	if (ev.job.state_source.empty())
		ev.job.state_source = "qacct";
	return true;
}

} // namespace diag
