#include "reading/sacct_reader.hh"

#include "reading/line_prefix.hh"

#include <jansson.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace diag {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep)
{
	std::vector<std::string_view> out;
	size_t start = 0;
	for (;;) {
		size_t p = s.find(sep, start);
		out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
		if (p == std::string_view::npos)
			break;
		start = p + 1;
	}
	return out;
}

std::string lower(std::string_view s)
{
	std::string o(s);
	for (auto &c : o)
		c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
	return o;
}

int64_t sacct_time(std::string_view v)
{
	auto ts = parse_timestamp(v);
	if (!ts)
		return no_time;
	// sacct prints the controller's local time without a zone; clusters run
	// in UTC more often than not, and the clock module can correct.
	ts_context ctx;
	return resolve_timestamp(*ts, ctx).value_or(no_time);
}

bool is_job_line(std::string_view id)
{
	return !id.empty() && id.find('.') == std::string_view::npos;
}

void take_state(job_facts &job, std::string_view state)
{
	job.state_detail = std::string(state);
	size_t sp = state.find(' ');
	job.state = std::string(state.substr(0, sp));
}

std::string_view first_word(std::string_view state)
{
	return state.substr(0, state.find(' '));
}

// Whether a job in this state has ended (not pending, running, suspended
// or held for its requeue). An attempt sacct -D lists as REQUEUED ended:
// it was put back, and the next attempt's row follows it.
bool attempt_over(std::string_view state)
{
	state = first_word(state);
	return !state.empty() && state != "PENDING" && state != "RUNNING" &&
	       state != "SUSPENDED" && state != "CONFIGURING" && state != "RESIZING" && state != "REQUEUE_HOLD" &&
	       state != "REQUEUE_FED";
}

// sacct's durations: [D-][HH:]MM:SS[.mmm] ("1-00:00:00", "04:00:00",
// "59:30", "00:01.234"); -1 for UNLIMITED, Partition_Limit and the like.
int64_t sacct_duration_s(std::string_view v)
{
	v = trim_blanks(v);
	int64_t days = 0;
	if (size_t dash = v.find('-'); dash != std::string_view::npos) {
		long long d;
		if (!parse_uint(v.substr(0, dash), d) || d > 100000)
			return -1;
		days = d;
		v = v.substr(dash + 1);
	}
	if (size_t dot = v.find('.'); dot != std::string_view::npos)
		v = v.substr(0, dot);
	int64_t secs = clock_seconds(v, 1000000);
	return secs < 0 ? -1 : days * 86400 + secs;
}

// sacct's default table: a ruler of dashes under the header gives each
// column's span ("------------ ----------"). The spans, or none when line
// is no ruler.
std::vector<std::pair<size_t, size_t>> ruler_spans(std::string_view line)
{
	std::vector<std::pair<size_t, size_t>> spans;
	line = line.substr(0, line.find_last_not_of(" \r") + 1);
	for (size_t i = 0; i < line.size();) {
		if (line[i] == ' ') {
			i++;
			continue;
		}
		size_t j = i;
		while (j < line.size() && line[j] == '-')
			j++;
		if (j == i || (j < line.size() && line[j] != ' '))
			return {};
		spans.emplace_back(i, j - i);
		i = j;
	}
	return spans.size() >= 2 ? spans : std::vector<std::pair<size_t, size_t>>();
}

// A line cut into fields: by '|' (sacct -P) or by the ruler's spans.
std::vector<std::string_view> fields(std::string_view l, const std::vector<std::pair<size_t, size_t>> &spans)
{
	if (spans.empty())
		return split(l, '|');
	std::vector<std::string_view> f;
	for (const auto &sp : spans)
		f.push_back(sp.first < l.size() ? trim_blanks(l.substr(sp.first, sp.second)) : std::string_view());
	return f;
}

// A value the table cut short ends in '+' ("CANCELLED+" for "CANCELLED by
// 1000"): its first word is whole when the cut came after it.
std::string_view uncut(std::string_view v, bool table)
{
	if (table && !v.empty() && v.back() == '+')
		v.remove_suffix(1);
	return v;
}

// Other jobs a listing may name beside the first (a user's sacct of the
// day): enough for a resubmission or an array, bounded for a long one.
constexpr size_t max_other_jobs = 64;

} // namespace

bool sacct_table_header(std::string_view first, std::string_view second)
{
	std::string h = lower(first.substr(0, 256));
	return trim_blanks(h).rfind("jobid", 0) == 0 && h.find(" state") != std::string::npos &&
	       !ruler_spans(second).empty();
}

bool sacct_command_line(std::string_view line)
{
	return line.rfind("$ sacct ", 0) == 0;
}

bool read_sacct_text(std::string_view text, evidence &ev)
{
	std::vector<std::string_view> lines = split(text, '\n');
	// (The command that printed the table, pasted above it.)
	if (!lines.empty() && sacct_command_line(lines[0]))
		lines.erase(lines.begin());
	if (lines.empty())
		return false;
	std::string_view header = lines[0];
	if (!header.empty() && header.back() == '\r')
		header.remove_suffix(1);
	std::vector<std::pair<size_t, size_t>> spans;
	size_t first_row = 1;
	if (header.find('|') == std::string_view::npos && lines.size() > 1) {
		spans = ruler_spans(lines[1]);
		first_row = 2;
	}
	bool table = !spans.empty();
	std::vector<std::string_view> cols = fields(header, spans);
	int c_id = -1, c_state = -1, c_exit = -1, c_dexit = -1, c_start = -1, c_end = -1, c_nodes = -1, c_reason = -1;
	int c_elapsed = -1, c_limit = -1;
	for (size_t i = 0; i < cols.size(); i++) {
		std::string n = lower(cols[i]);
		int ii = static_cast<int>(i);
		if (n == "jobid" || n == "jobidraw")
			c_id = c_id < 0 ? ii : c_id;
		else if (n == "state")
			c_state = ii;
		else if (n == "exitcode")
			c_exit = ii;
		else if (n == "derivedexitcode")
			c_dexit = ii;
		else if (n == "start")
			c_start = ii;
		else if (n == "end")
			c_end = ii;
		else if (n == "nodelist")
			c_nodes = ii;
		else if (n == "reason")
			c_reason = ii;
		else if (n == "elapsed")
			c_elapsed = ii;
		else if (n == "timelimit")
			c_limit = ii;
	}
	if (c_id < 0 || c_state < 0)
		return false;
	bool skip_attempt = false;
	// Where the rows go: the job (the first listed), or another job's
	// facts (its index in other_jobs) kept for the pipeline's choice.
	long other = -1;
	for (size_t li = first_row; li < lines.size(); li++) {
		std::string_view l = lines[li];
		if (!l.empty() && l.back() == '\r')
			l.remove_suffix(1);
		if (trim_blanks(l).empty())
			continue;
		if (l.rfind("$ ", 0) == 0)
			break; // another command's output below the table
		std::vector<std::string_view> f = fields(l, spans);
		auto col = [&](int c) { return c >= 0 && static_cast<size_t>(c) < f.size() ? f[static_cast<size_t>(c)] : std::string_view(); };
		std::string_view id = col(c_id);
		if (table && !id.empty() && id.back() == '+')
			continue; // an id cut short names no job for sure
		if (is_job_line(id)) {
			// One job per diagnosis, the first listed; the others are kept
			// aside (a bounded few) for the pipeline to weigh against it.
			other = -1;
			if (!ev.job.job_id.empty() && ev.job.job_id != id) {
				for (size_t o = 0; o < ev.other_jobs.size() && other < 0; o++)
					if (ev.other_jobs[o].job_id == id)
						other = static_cast<long>(o);
				if (other < 0) {
					if (ev.other_jobs.size() >= max_other_jobs) {
						skip_attempt = true;
						continue;
					}
					ev.other_jobs.emplace_back();
					other = static_cast<long>(ev.other_jobs.size() - 1);
				}
			}
			job_facts &job = other >= 0 ? ev.other_jobs[static_cast<size_t>(other)] : ev.job;
			// sacct -D lists every attempt of a requeued job: one that has
			// not ended (the requeued run, still going) does not replace
			// the attempt that ended, nor do its steps.
			skip_attempt = !job.job_id.empty() && attempt_over(job.state) &&
				       !attempt_over(uncut(col(c_state), table));
			if (skip_attempt)
				continue;
			job.job_id = std::string(id);
			take_state(job, uncut(col(c_state), table));
			job.exit_code = std::string(col(c_exit));
			job.derived_exit_code = std::string(col(c_dexit));
			job.start_us = sacct_time(col(c_start));
			job.times_local = true;
			job.end_us = sacct_time(col(c_end));
			job.elapsed_s = sacct_duration_s(col(c_elapsed));
			job.timelimit_s = sacct_duration_s(col(c_limit));
			// A node list cut short would name the wrong nodes; a job
			// that never ran lists "None assigned".
			std::string_view nodes = col(c_nodes);
			job.nodelist = (table && !nodes.empty() && nodes.back() == '+') || nodes.rfind("None assigned", 0) == 0
					       ? std::string()
					       : std::string(nodes);
			job.reason = std::string(uncut(col(c_reason), table));
		} else if (!id.empty() && !skip_attempt) {
			job_facts &job = other >= 0 ? ev.other_jobs[static_cast<size_t>(other)] : ev.job;
			job.steps.emplace_back(std::string(id), std::string(uncut(col(c_state), table)));
		}
	}
	return !ev.job.job_id.empty();
}

bool read_sacct_json(std::string_view text, evidence &ev)
{
	json_error_t jerr;
	json_t *root = json_loadb(text.data(), text.size(), 0, &jerr);
	if (!root)
		return false;
	json_t *jobs = json_object_get(root, "jobs");
	bool ok = false;
	if (json_is_array(jobs) && json_array_size(jobs) > 0) {
		json_t *job = json_array_get(jobs, 0);
		json_t *id = json_object_get(job, "job_id");
		if (json_is_integer(id))
			ev.job.job_id = std::to_string(json_integer_value(id));
		// state: {"current": "FAILED"} (22.05) or {"current": ["FAILED"]} (23.x+)
		json_t *st = json_object_get(job, "state");
		json_t *cur = json_is_object(st) ? json_object_get(st, "current") : st;
		if (json_is_array(cur))
			cur = json_array_get(cur, 0);
		if (json_is_string(cur))
			take_state(ev.job, json_string_value(cur));
		json_t *reason = json_is_object(st) ? json_object_get(st, "reason") : nullptr;
		if (json_is_string(reason))
			ev.job.reason = json_string_value(reason);
		json_t *tm = json_object_get(job, "time");
		auto epoch = [](json_t *v) -> int64_t {
			if (json_is_object(v))
				v = json_object_get(v, "number");
			// Seconds past what int64 microseconds hold are no time (nor an overflow).
			return json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < INT64_MAX / us_per_s
				       ? json_integer_value(v) * us_per_s
				       : no_time;
		};
		if (json_is_object(tm)) {
			ev.job.start_us = epoch(json_object_get(tm, "start"));
			ev.job.end_us = epoch(json_object_get(tm, "end"));
			// elapsed in seconds; limit in minutes ({"set", "infinite",
			// "number"} from 23.02 on, a plain number before).
			json_t *el = json_object_get(tm, "elapsed");
			if (json_is_integer(el) && json_integer_value(el) >= 0 && json_integer_value(el) < 100LL * 365 * 86400)
				ev.job.elapsed_s = json_integer_value(el);
			json_t *lim = json_object_get(tm, "limit");
			if (json_is_object(lim) && json_is_true(json_object_get(lim, "infinite")))
				lim = nullptr;
			else if (json_is_object(lim))
				lim = json_object_get(lim, "number");
			if (json_is_integer(lim) && json_integer_value(lim) > 0 && json_integer_value(lim) < 100LL * 365 * 1440)
				ev.job.timelimit_s = json_integer_value(lim) * 60;
		}
		// exit_code: {"return_code": N, "signal": {"id": S}} (21.08), with
		// {"set", "number"} objects for numbers from 23.02 on: "N:S" as
		// sacct -P prints it.
		auto number = [](json_t *v) -> long long {
			if (json_is_object(v))
				v = json_object_get(v, "number");
			return json_is_integer(v) ? json_integer_value(v) : -1;
		};
		json_t *xc = json_object_get(job, "exit_code");
		if (json_is_object(xc)) {
			long long code = number(json_object_get(xc, "return_code"));
			json_t *sig = json_object_get(xc, "signal");
			long long signo = json_is_object(sig) ? number(json_object_get(sig, "id")) : -1;
			if (signo < 0 && json_is_object(sig))
				signo = number(json_object_get(sig, "signal_id"));
			if (code >= 0 && code < 256 && signo < 256)
				ev.job.exit_code = std::to_string(code) + ":" + std::to_string(signo < 0 ? 0 : signo);
		}
		json_t *nodes = json_object_get(job, "nodes");
		if (json_is_string(nodes))
			ev.job.nodelist = json_string_value(nodes);
		json_t *steps = json_object_get(job, "steps");
		size_t i;
		json_t *s;
		json_array_foreach(steps, i, s) {
			json_t *sid = json_object_get(json_object_get(s, "step"), "id");
			json_t *sst = json_object_get(s, "state");
			if (json_is_array(sst))
				sst = json_array_get(sst, 0);
			std::string sid_s = json_is_string(sid) ? json_string_value(sid) : "";
			if (json_is_object(sid)) {
				json_t *j = json_object_get(sid, "job_id");
				json_t *n = json_object_get(sid, "step_id");
				if (json_is_integer(j))
					sid_s = std::to_string(json_integer_value(j)) + ".";
				if (json_is_integer(n))
					sid_s += std::to_string(json_integer_value(n));
				else if (json_is_string(n))
					sid_s += json_string_value(n);
			}
			ev.job.steps.emplace_back(sid_s, json_is_string(sst) ? json_string_value(sst) : "");
		}
		ok = !ev.job.job_id.empty() || !ev.job.state.empty();
	}
	json_decref(root);
	return ok;
}

} // namespace diag
