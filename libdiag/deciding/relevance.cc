// Which events still bear on how the job ended. Not those from before the
// job: kernel lines outside its window, or naming another job's cgroup, and
// what the same report said about that job's process. Not those the job
// survived: the same writer kept making progress afterwards, or the line
// (or the next on its writer) says it was retried, skipped or recovered and
// progress followed.
#include "aligning/identities.hh"
#include "aligning/progress_clock.hh"
#include "deciding/context.hh"
#include "deciding/exits.hh"
#include "reading/slurm_nodelist.hh"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

namespace diag {

namespace {

// Without the job's start from Slurm, kernel messages this long before its
// first sign of life belong to an earlier job; with it, a minute (the
// clocks' disagreement) is enough.
constexpr int64_t kernel_lead_us = 15 * 60 * us_per_s;
// How long before the job's first timed event its ranks' stamped progress
// may still be the job's own.
constexpr int64_t progress_lead_us = 7LL * 24 * 3600 * us_per_s;
constexpr int64_t kernel_lead_known_start_us = 60 * us_per_s;
constexpr int64_t kernel_tail_us = 5 * 60 * us_per_s;
// A machine's record the job's own lines do not bound: its loss may come
// a collective's timeout or more before the first of them that has a time
// (a peer's watchdog half an hour later, a controller's line later still);
// an hour more is another job's.
constexpr int64_t record_lead_us = 60 * 60 * us_per_s;
// An unprefixed line shares its writer with every rank: the file's progress
// afterwards shows the job carried on only when it went on this long.
constexpr int64_t shared_writer_survival_us = 120 * us_per_s;
// A line of no known writer (a launcher's agent, a helper process): the
// ranks stepping on for longer than a collective's default timeout after
// it were not waiting on whatever it reported.
constexpr int64_t unknown_writer_survival_us = 30 * 60 * us_per_s;
// A kernel report of one kill spans a second or so of lines.
constexpr int64_t same_report_us = 2 * us_per_s;

bool is_kernel(const evidence &ev, const event &e)
{
	return e.file < ev.sources().size() && ev.sources()[e.file].kind == source_kind::kernel_log;
}

// A cloud's or orchestrator's record (an operations list, a node's
// events) pasted beside the job's output: like a kernel line, it tells
// what happened to a machine, whichever job ran there then.
bool is_infrastructure_record(const event &e)
{
	return e.r && e.r->family == "orchestrator";
}

void job_window(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	int64_t lo = ev.job.start_us, hi = ev.job.end_us;
	if (lo == no_time || hi == no_time) {
		// (The records of machines count only where nothing of the job's
		// own has a time.)
		bool own_time = false;
		for (const auto &e : ev.events)
			own_time = own_time || (e.time_us != no_time && !is_kernel(ev, e) && !is_infrastructure_record(e));
		int64_t mn = INT64_MAX, mx = INT64_MIN;
		for (const auto &e : ev.events) {
			if (e.time_us == no_time || is_kernel(ev, e) || (own_time && is_infrastructure_record(e)))
				continue;
			mn = std::min(mn, e.time_us);
			mx = std::max(mx, e.time_us);
			// A collective that timed out was started its timeout
			// earlier: the job was alive then.
			if (int64_t began = collective_began_us(e); began != no_time)
				mn = std::min(mn, began);
		}
		// The ranks stepping (their last progress line stamped) were the
		// job alive too, often long before its first fault (a hang the
		// time limit ended days later: a week at most).
		if (mn != INT64_MAX && lo == no_time) {
			progress_clock pc(ev);
			for (const auto &m : ev.progress_marks)
				if (m.stamped)
					if (int64_t t = pc.time_of(m); t != no_time && t < mn && t > mn - progress_lead_us)
						mn = t;
		}
		if (mn != INT64_MAX) {
			if (lo == no_time)
				lo = mn;
			if (hi == no_time)
				hi = mx;
		}
	}
	if (lo == no_time && hi == no_time) {
		// Nothing of the job's own has a time: its end is near the last
		// fault the kernel logged, and what came long before is older.
		for (const auto &e : ev.events)
			if (is_kernel(ev, e) && e.role == event_role::initiating && e.time_us != no_time)
				hi = hi == no_time ? e.time_us : std::max(hi, e.time_us);
		lo = hi;
	}
	cx.job_start_us = lo;
	cx.job_end_us = hi;
}

void drop_outside_window(diagnosis_context &cx)
{
	if (cx.job_start_us == no_time || cx.job_end_us == no_time)
		return; // nothing to bound the window with: keep all
	// (sacct -P's local Start too: the clock pass placed it in the zone it
	// found, the one the nodes' lines state.)
	bool start_known = cx.ev.job.start_us != no_time;
	// The job's last stamped line bounds its end from below only: unstamped
	// lines (watchdogs, tracebacks, srun's reports) may follow it by hours.
	// Only Slurm's End says when the job was over.
	bool end_known = cx.ev.job.end_us != no_time;
	for (auto &e : cx.ev.events) {
		if (!(is_kernel(cx.ev, e) || is_infrastructure_record(e)) || e.time_us == no_time || e.dropped)
			continue;
		// Seconds since boot are only as good as the boot time behind them.
		int64_t lead = start_known && e.ts.kind != ts_kind::boot_relative
				       ? kernel_lead_known_start_us +
						 static_cast<int64_t>(cx.clk.uncertainty(e.host) * static_cast<double>(us_per_s))
				       : is_kernel(cx.ev, e) ? kernel_lead_us
							     : record_lead_us;
		// (A GPU the driver said needs a reset stays so: no older job's.)
		if ((e.time_us < cx.job_start_us - lead && !standing_recovery_action(cx.ev, e)) ||
		    (end_known && e.time_us > cx.job_end_us + kernel_tail_us)) {
			e.dropped = true;
			e.why_not = "before or after the job";
		}
	}
}

// A cloud's record of a machine the job did not run on, beside a record of
// the same kind about one it ran on, where a list says which machines it
// ran on (Slurm's node list; the nodes a listing of pods puts the job's
// pods on): another machine's (an operations list filtered by type alone
// names every preempted VM of the project).
void drop_records_of_other_machines(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	std::set<int> job_hosts;
	for (const auto &e : ev.events)
		if (e.host >= 0 && !is_infrastructure_record(e))
			job_hosts.insert(e.host);
	std::vector<std::string> machines = expand_nodelist(ev.job.nodelist);
	for (const auto &e : ev.events) {
		const std::string pod = e.capture("pod"), node = e.capture("pod_node");
		if (!pod.empty() && !node.empty())
			if (int h = ev.find_host(pod); h >= 0 && job_hosts.count(h))
				machines.push_back(node);
	}
	if (machines.empty())
		return;
	auto listed = [&](const std::string &name) {
		for (const std::string &m : machines)
			if (same_machine(m, name))
				return true;
		return false;
	};
	auto ours = [&](const event &e) { return job_hosts.count(e.host) || listed(ev.host_name(e.host)); };
	std::set<const rule *> kinds_of_ours;
	for (const auto &e : ev.events)
		if (!e.dropped && e.host >= 0 && is_infrastructure_record(e) && ours(e))
			kinds_of_ours.insert(e.r);
	for (auto &e : ev.events) {
		if (e.dropped || e.host < 0 || !is_infrastructure_record(e) || !kinds_of_ours.count(e.r) || ours(e))
			continue;
		e.dropped = true;
		e.why_not = "another machine's: the job did not run on it";
	}
}

// A line that names another job (its cgroup, its step) is that job's, and
// so is the rest of the same report (same host, same pid or same second).
void drop_other_jobs(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	std::string ours = ev.job.job_id.substr(0, ev.job.job_id.find_first_of("._"));
	if (ours.empty()) {
		// No sacct: the job the job's own Slurm lines name (STEP 699130.0).
		std::map<std::string, int> named;
		for (const auto &e : ev.events)
			if (!is_kernel(ev, e) && !e.capture("job").empty())
				named[e.capture("job")]++;
		if (named.size() != 1)
			return;
		ours = named.begin()->first;
	}
	std::vector<const event *> foreign;
	for (auto &e : ev.events) {
		std::string job = e.capture("job");
		if (job.empty() || job == ours || e.kind == rule_kind::job_end || !is_kernel(ev, e))
			continue;
		e.dropped = true;
		e.why_not = "names job " + job;
		foreign.push_back(&e);
	}
	for (const event *f : foreign) {
		std::string pid = f->capture("pid");
		for (auto &e : ev.events) {
			if (e.dropped || !is_kernel(ev, e) || e.host != f->host)
				continue;
			bool same_pid = !pid.empty() && e.capture("pid") == pid;
			bool same_report = e.time_us != no_time && f->time_us != no_time &&
					   std::llabs(e.time_us - f->time_us) <= same_report_us;
			if (same_pid || same_report) {
				e.dropped = true;
				e.why_not = "the same report as a line naming job " + f->capture("job");
			}
		}
	}
}

// When the collapse that followed an event began in its file: the first
// victim or watchdog line after it (file-local µs; INT64_MAX: none). A
// progress bar glued to the teardown is no sign that the run went on.
int64_t collapse_after(const evidence &ev, const event &e)
{
	int64_t first = INT64_MAX;
	for (const auto &x : ev.events) {
		if (x.file != e.file || x.line <= e.line || x.inherited_time ||
		    (x.role != event_role::victim && x.kind != rule_kind::watchdog))
			continue;
		int64_t t = file_local_us(x.ts);
		if (t != INT64_MIN)
			first = std::min(first, t);
	}
	return first;
}

// An Xid names the process that used the GPU; where the job's own pids on
// that node are known and it is none of them, it was another job's.
void drop_other_processes(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	for (auto &e : ev.events) {
		std::string pid = e.capture("gpu_pid");
		long long p;
		if (e.dropped || pid.empty() || e.host < 0 || !parse_uint_str(pid, p))
			continue;
		bool known = false, ours = false;
		for (const auto &r : ev.ranks.all())
			if (r.second.host == e.host && r.second.pid > 0) {
				known = true;
				ours = ours || r.second.pid == p;
			}
		// A pid the job's own lines name on that node (a launcher stopping
		// it, a worker's exit) is the job's, rank known or not.
		for (const auto &x : ev.events) {
			if (ours)
				break;
			if (is_kernel(ev, x) || (x.host >= 0 && x.host != e.host))
				continue;
			long long xp;
			std::string xs = x.capture("pid");
			ours = x.pid == p || (!xs.empty() && parse_uint_str(xs, xp) && xp == p);
		}
		if (known && !ours) {
			e.dropped = true;
			e.why_not = "names pid " + pid + ", none of the job's processes on that node";
			// The rest of the same report (its other lines, that second).
			for (auto &x : ev.events)
				if (!x.dropped && is_kernel(ev, x) && x.host == e.host && x.time_us != no_time &&
				    e.time_us != no_time && std::llabs(x.time_us - e.time_us) <= same_report_us) {
					x.dropped = true;
					x.why_not = "the same report as an Xid of pid " + pid;
				}
		}
	}
}

// Whether another rank's writer in the same file made progress minutes
// after the event (stamped on its own line) and before the collapse: the
// ranks of one job step together, so the event's rank was still in step
// (only rank 0 logs progress, often). An inherited time may be hours early:
// the first stamp after the line in its file bounds it from above instead.
bool job_went_on(const evidence &ev, const event &e, int64_t for_us = shared_writer_survival_us)
{
	int64_t at = !e.inherited_time ? file_local_us(e.ts)
		     : e.ts_hi.kind != ts_kind::none ? file_local_us(e.ts_hi) : INT64_MIN;
	// (A stamp without its year, its file having given it none, does not
	// compare with the ranks' dated steps.)
	const ts_value &stamp = !e.inherited_time ? e.ts : e.ts_hi;
	if (at == INT64_MIN || (stamp.kind == ts_kind::local_no_year && stamp.year == 0))
		return false;
	int64_t collapse = collapse_after(ev, e);
	uint64_t own = writer_key(e.file, e.key);
	for (const auto &p : ev.last_progress_us) {
		if (p.first == own || static_cast<uint32_t>(p.first >> 32) != e.file)
			continue;
		if (p.second - at >= for_us && p.second < collapse)
			return true;
	}
	return false;
}

// The last line in each file where a launcher restarted its workers after
// a failure and the job then made progress again (any writer's, below it).
std::map<uint32_t, uint64_t> restarts_the_job_outlived(const evidence &ev)
{
	std::map<uint32_t, uint64_t> progress_below; // file -> its last progress line
	for (const auto &p : ev.last_progress) {
		auto f = static_cast<uint32_t>(p.first >> 32);
		progress_below[f] = std::max(progress_below[f], p.second);
	}
	std::map<uint32_t, uint64_t> outlived;
	for (const auto &e : ev.events) {
		if (e.dropped || e.capture("restart").empty())
			continue;
		auto it = progress_below.find(e.file);
		if (it != progress_below.end() && it->second > e.line)
			outlived[e.file] = std::max(outlived[e.file], e.line);
	}
	return outlived;
}

// A failure that the same writer logged and then carried on from was
// caught: it is not what killed the job. So is one the launcher restarted
// the workers after, where the job then made progress again.
void mark_survived(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	const std::map<uint32_t, uint64_t> restarted = restarts_the_job_outlived(ev);
	for (auto &e : ev.events) {
		if (e.role != event_role::initiating || e.kind == rule_kind::job_end || is_kernel(ev, e) || e.decoy)
			continue;
		if (auto r = restarted.find(e.file); r != restarted.end() && e.line < r->second) {
			e.decoy = true;
			e.why_not = "the launcher restarted the workers after it and the job made progress again";
			continue;
		}
		// The line (or the next on its writer) says it was retried,
		// skipped or recovered: context, whatever came after. (Not a node
		// lost or reclaimed: no process deals with that; a controller's
		// "Recovering..." starts the job anew, and only progress after it
		// says it was survived.)
		if (e.handled && e.cls != failure_class::preemption && e.cls != failure_class::node_failure) {
			e.decoy = true;
			e.why_not = "it says it was dealt with (retried, skipped or recovered)";
			continue;
		}
		uint64_t wk = writer_key(e.file, e.key);
		auto it = ev.last_progress.find(wk);
		// A chained exception is one failure up to its last link.
		bool progress_after = it != ev.last_progress.end() && it->second > std::max(e.line, e.chained_until) + 1;
		if (!progress_after) {
			if (e.writer_known && job_went_on(ev, e)) {
				e.decoy = true;
				e.why_not = "the other ranks kept making progress for minutes after it, which they cannot without this one";
			} else if (!e.writer_known && !e.inherited_time && job_went_on(ev, e, unknown_writer_survival_us)) {
				// (A line of no known writer, stamped itself: the ranks
				// stepped on for longer than a collective waits.)
				e.decoy = true;
				e.why_not = "the ranks kept making progress long after it";
			}
			continue;
		}
		if (e.writer_known) {
			e.decoy = true;
			e.why_not = "the same rank made progress after it";
			continue;
		}
		// Unprefixed lines share one writer: another rank's progress after
		// them says nothing about this one, unless the line said it was
		// dealt with or the run went on for a while.
		// An inherited time is the last stamp before the line, which may be
		// minutes early: the first stamp after it bounds it from above.
		auto pt = ev.last_progress_us.find(wk);
		int64_t at = !e.inherited_time ? file_local_us(e.ts)
			     : e.ts_hi.kind != ts_kind::none ? file_local_us(e.ts_hi) : INT64_MIN;
		if (pt != ev.last_progress_us.end() && at != INT64_MIN && pt->second - at >= shared_writer_survival_us &&
		    pt->second < collapse_after(ev, e)) {
			e.decoy = true;
			e.why_not = "the run kept making progress for minutes after it";
		}
	}
}

// A server the node lost (its NFS server not responding) that the same
// node then said answered again: the loss was survived, whatever blocked
// on it went on.
void mark_servers_back(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	for (const auto &ok : ev.events) {
		const std::string server = ok.capture("recovered_server");
		if (ok.dropped || server.empty())
			continue;
		for (auto &e : ev.events) {
			if (e.dropped || e.decoy || e.role != event_role::initiating || e.host != ok.host ||
			    e.capture("server") != server)
				continue;
			const bool before = e.file == ok.file ? e.line < ok.line
							       : e.time_us != no_time && ok.time_us != no_time && e.time_us <= ok.time_us;
			if (!before)
				continue;
			e.decoy = true;
			e.why_not = "the node said server " + server + " answered again after it";
		}
	}
}

// A node lost, then said to answer again (Kubernetes' NodeReady, later in
// the same listing) before another node was lost: the job outlived the
// first loss, and the later one is what ended it.
void mark_nodes_back(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	auto node_lost = [](const event &x) {
		return x.role == event_role::initiating && !x.dropped && !x.decoy && x.host >= 0 &&
		       (x.cls == failure_class::node_failure || x.cls == failure_class::preemption);
	};
	for (auto &e : ev.events) {
		if (!node_lost(e))
			continue;
		const std::string &name = ev.host_name(e.host);
		uint64_t back = 0;
		for (const auto &r : ev.events)
			if (r.file == e.file && r.line > e.line && r.capture("ready_node") == name) {
				back = r.line;
				break;
			}
		if (!back)
			continue;
		for (const auto &x : ev.events)
			if (x.file == e.file && x.line > back && x.host != e.host && node_lost(x)) {
				e.decoy = true;
				e.why_not = "its node answered again before another node was lost";
				break;
			}
	}
}

// A start-up failure (a store or rendezvous it could not reach) below a
// running job's collapse in the same file: the training had stepped, its
// ranks had then failed or timed out, and a launcher restarting them
// could not start again. The restart's failure is the collapse's
// aftermath, not its cause.
void mark_restart_failures(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	for (auto &e : ev.events) {
		if (e.dropped || e.decoy || e.cls != failure_class::launch_failure || e.role != event_role::initiating ||
		    is_kernel(ev, e) || !stepped_before(ev, e.file, e.line))
			continue;
		for (const auto &x : ev.events) {
			if (x.dropped || x.file != e.file || x.line >= e.line || !stepped_before(ev, x.file, x.line) ||
			    (x.role != event_role::victim && x.kind != rule_kind::watchdog) || x.cls == failure_class::launch_failure)
				continue;
			e.decoy = true;
			e.why_not = "a restart's start-up failure after the running job had collapsed (" + ev.where(x) + ")";
			break;
		}
	}
}

} // namespace

int64_t collective_began_us(const event &e)
{
	long long tmo = 0;
	if (e.time_us == no_time || !parse_uint_str(e.capture("timeout_ms"), tmo) || tmo <= 0 ||
	    tmo > 7LL * 24 * 3600 * 1000)
		return no_time;
	return e.time_us - static_cast<int64_t>(tmo) * 1000;
}

// The faults set aside, a few, with why: a verdict that differs from the
// loudest line should say what it passed over.
void note_set_aside(diagnosis_context &cx)
{
	int shown = 0;
	for (const auto &e : cx.ev.events) {
		if (e.role != event_role::initiating || e.why_not.empty() || !(e.dropped || e.decoy))
			continue;
		if (shown++ == 3)
			break;
		cx.d.notes.push_back("set aside " + cx.ev.where(e) + " (" + (e.r ? e.r->id : e.rule_id) + "): " + e.why_not);
	}
}

void pass_relevance(diagnosis_context &cx)
{
	job_window(cx);
	drop_outside_window(cx);
	drop_records_of_other_machines(cx);
	drop_other_jobs(cx);
	drop_other_processes(cx);
	mark_survived(cx);
	mark_restart_failures(cx);
	mark_servers_back(cx);
	mark_nodes_back(cx);
	note_set_aside(cx);
}

} // namespace diag
