// The plugin -> library hand-off (doc/handoff.md), both sides' own code:
// spank/records.cc writes the records, libdiag reads them back, and the
// clock facts in them reach the alignment. Also: the reader refuses a
// schema it does not know, and text keeps its UTF-8.
#include "ck_bundle.hh"
#include "reading/plugin_records.hh"
#include "rendering/utf8.hh"
#include "spank_denpex.hh"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

using namespace diag;

namespace {

constexpr int64_t ns_per_s = 1000000000LL;
// srun launches step 0 at this instant (srun's clock, taken as the truth).
constexpr int64_t launch_ns = 1792986660LL * ns_per_s; // 2026-10-26T03:51:00Z

// The plugin's spool of one step: rank and exit records beside the logs.
struct bundle : ck_bundle {
	bundle() : ck_bundle("denpex-records")
	{
		subdir("ranks");
		subdir("exits");
	}
};

denpex::task_ids ids(uint32_t task, uint32_t node_id, const std::string &node)
{
	denpex::task_ids t;
	t.ti_job = 4242;
	t.ti_step = 0;
	t.ti_task = task;
	t.ti_local_task = task % 2;
	t.ti_node_id = node_id;
	t.ti_node = node;
	return t;
}

// A task's rank record as remote.cc fills it: its node's clock `skew_s`
// ahead of srun's, the task starting `delay_s` after the launch.
std::string rank_record(uint32_t task, uint32_t node_id, const std::string &node, const std::string &hostname,
			double skew_s, double delay_s, long utc_offset_s, bool srun_clock = true)
{
	denpex::rank_record r;
	r.rr_ids = ids(task, node_id, node);
	r.rr_nnodes = 2;
	r.rr_ntasks = 4;
	r.rr_pid = 1000 + (pid_t)task;
	r.rr_hostname = hostname;
	r.rr_gpus = std::to_string(task % 2);
	r.rr_gpus_set = true;
	r.rr_clock.cf_realtime_ns = launch_ns + (int64_t)std::llround((skew_s + delay_s) * 1e9);
	r.rr_clock.cf_boottime_ns = 3600 * ns_per_s;
	r.rr_clock.cf_btime = launch_ns / ns_per_s - 3600;
	r.rr_clock.cf_zone = utc_offset_s ? "CET" : "UTC";
	r.rr_clock.cf_utc_offset_s = utc_offset_s;
	if (srun_clock)
		r.rr_clock.cf_srun_realtime_ns = launch_ns;
	return denpex::rank_record_json(r);
}

std::string exit_record(uint32_t task, uint32_t node_id, const std::string &node, int sig, int64_t when_ns)
{
	denpex::exit_record r;
	r.er_ids = ids(task, node_id, node);
	r.er_pid = 1000 + (pid_t)task;
	r.er_status = sig; // a raw wait status: killed by sig
	r.er_realtime_ns = when_ns;
	return denpex::exit_record_json(r);
}

// Two nodes, two tasks each; node2's clock runs 3 s ahead and its zone is
// UTC+01:00; node2's task 2 is killed first, node1's task 0 a second later.
void write_job(bundle &b, bool srun_clock = true)
{
	b.file("ranks/0.0.json", rank_record(0, 0, "node1", "gpu01", 0, 0.10, 0, srun_clock));
	b.file("ranks/0.1.json", rank_record(1, 0, "node1", "gpu01", 0, 0.11, 0, srun_clock));
	b.file("ranks/0.2.json", rank_record(2, 1, "node2", "gpu02", 3.0, 0.12, 3600, srun_clock));
	b.file("ranks/0.3.json", rank_record(3, 1, "node2", "gpu02", 3.0, 0.13, 3600, srun_clock));
	int64_t t = launch_ns + 60 * ns_per_s;
	b.file("exits/0.2.json", exit_record(2, 1, "node2", SIGKILL, t + 3 * ns_per_s));
	b.file("exits/0.0.json", exit_record(0, 0, "node1", SIGKILL, t + 1 * ns_per_s));
	// node2's kernel log in its local time (dmesg -T, no zone): 04:52:00
	// CET is 03:52:00Z, which is 03:51:57 on the common clock.
	b.file("kern.node2.log", "[Mon Oct 26 04:52:00 2026] NVRM: Xid (PCI:0000:5d:00): 79, pid=1002, name=python3, "
				 "GPU has fallen off the bus.\n");
}

struct result {
	verdict v;
	std::vector<plugin_task> tasks;
	std::vector<event> events;
	std::map<std::string, host_clock> clock;
};

result diagnose_dir(const std::string &dir)
{
	analysis an;
	ck_init_analysis(an);
	an.add_path(dir);
	result r;
	r.v = an.run();
	r.tasks = an.ev().plugin_tasks;
	r.events = an.ev().events;
	for (const auto &h : an.clock().hosts)
		r.clock[an.ev().host_name(h.first)] = h.second;
	return r;
}

const event *find_event(const result &r, const std::string &rule, int task = -1)
{
	for (const auto &e : r.events)
		if ((e.r ? e.r->id : e.rule_id).rfind(rule, 0) == 0 && (task < 0 || e.task == task))
			return &e;
	return nullptr;
}

} // namespace

START_TEST(rank_and_exit_records_round_trip)
{
	bundle b;
	write_job(b);
	result r = diagnose_dir(b.dir);
	ck_assert_uint_eq(r.tasks.size(), 4);
	for (const auto &pt : r.tasks) {
		bool on2 = pt.task >= 2;
		ck_assert_int_eq(pt.pid, 1000 + pt.task);
		ck_assert_int_eq(pt.local_task, pt.task % 2);
		DIAG_CK_STR_EQ(pt.step, "0");
		ck_assert(pt.srun_us == launch_ns / 1000);
		double delta_s = static_cast<double>(pt.start_us - pt.srun_us) / 1e6;
		ck_assert_msg(std::fabs(delta_s - ((on2 ? 3.0 : 0) + 0.10 + 0.01 * pt.task)) < 1e-6, "task %d: %f", pt.task,
			      delta_s);
		ck_assert(pt.has_utc_offset);
		ck_assert_int_eq(pt.utc_offset_s, on2 ? 3600 : 0);
	}
	DIAG_CK_STR_EQ(r.v.job_id, "4242");
	const event *x = find_event(r, "plugin.task_exit", 2);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(x->signal, SIGKILL);
	ck_assert(x->raw_us == (launch_ns + 63 * ns_per_s) / 1000);
}
END_TEST

START_TEST(measured_offset_and_zone_reach_the_alignment)
{
	bundle b;
	write_job(b);
	result r = diagnose_dir(b.dir);
	// node2 is 3 s ahead, and started 0.02 s later than node1 after the
	// launch: the fan-out is within the uncertainty.
	ck_assert_int_eq(static_cast<int>(r.clock["node2"].basis), static_cast<int>(clock_basis::measured));
	ck_assert_int_eq(static_cast<int>(r.clock["node1"].basis), static_cast<int>(clock_basis::measured));
	double rel = r.clock["node2"].offset_s - r.clock["node1"].offset_s;
	ck_assert_msg(std::fabs(rel - 3.02) < 0.001, "node2 - node1: %f", rel);
	ck_assert(r.clock["node2"].uncertainty_s >= 0.1);
	DIAG_CK_STR_EQ(r.v.clock["node2"].basis, "measured");
	// node2's events move by its offset onto the common clock.
	const event *k2 = find_event(r, "plugin.task_exit", 2);
	ck_assert_ptr_nonnull(k2);
	ck_assert_msg(std::llabs((k2->raw_us - k2->time_us) - static_cast<int64_t>(r.clock["node2"].offset_s * 1e6)) < 1000,
		      "node2's event not moved by its offset");
	// The kernel's local time is read in node2's recorded zone.
	const event *xid = nullptr;
	for (const auto &e : r.events)
		if (e.kind == rule_kind::xid)
			xid = &e;
	ck_assert_ptr_nonnull(xid);
	ck_assert_msg(xid->raw_us == 1792986720LL * 1000000, "raw %lld", static_cast<long long>(xid->raw_us));
	std::string j = verdict_to_json(r.v, false);
	ck_assert_msg(j.find("\"node2\":{\"offset_s\":") != std::string::npos && j.find("\"basis\":\"measured\"") != std::string::npos,
		      "%s", j.c_str());
}
END_TEST

START_TEST(without_srun_clock_nothing_is_measured)
{
	// A step srun did not launch (no DENPEX_SRUN_CLOCK_NS): no launch to
	// line the nodes up on, and nothing else in this bundle to infer from.
	bundle b;
	write_job(b, false);
	result r = diagnose_dir(b.dir);
	ck_assert_int_eq(static_cast<int>(r.clock["node2"].basis), static_cast<int>(clock_basis::none));
	ck_assert(r.clock["node2"].offset_s == 0);
	DIAG_CK_STR_EQ(r.v.clock["node2"].basis, "none");
}
END_TEST

START_TEST(unknown_schema_is_refused_with_a_note)
{
	bundle b;
	std::string rec = rank_record(0, 0, "node1", "gpu01", 0, 0.1, 0);
	ck_assert(rec.rfind("{\"schema\":1,", 0) == 0);
	std::string later = "{\"schema\":2," + rec.substr(12);
	evidence ev;
	long long refused = 0;
	ck_assert(read_plugin_records(later, 0, ev, refused) == records_read::refused);
	ck_assert_int_eq(refused, 2);
	ck_assert(ev.plugin_tasks.empty());
	ck_assert(read_plugin_records(rec, 0, ev, refused) == records_read::read);
	ck_assert_uint_eq(ev.plugin_tasks.size(), 1);
	// A node that could not tell its zone writes an empty one: not a zone.
	std::string nozone = rec;
	size_t z = nozone.find("\"zone\":\"UTC\"");
	ck_assert(z != std::string::npos);
	nozone.replace(z, 12, "\"zone\":\"\"");
	evidence ev2;
	ck_assert(read_plugin_records(nozone, 0, ev2, refused) == records_read::read);
	ck_assert(!ev2.plugin_tasks[0].has_utc_offset);
	ck_assert(ev.plugin_tasks[0].has_utc_offset);
	// Without a schema it is not one of the plugin's records.
	std::string bare = "{" + rec.substr(12);
	ck_assert(read_plugin_records(bare, 0, ev, refused) == records_read::not_records);
	// Through the pipeline: the verdict says why the record was left out.
	b.file("ranks/0.0.json", later);
	b.file("job.out", "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
	result r = diagnose_dir(b.dir);
	ck_assert(r.tasks.empty());
	bool noted = false;
	for (const auto &n : r.v.notes)
		noted = noted || (n.find("schema 2") != std::string::npos && n.find("0.0.json") != std::string::npos);
	ck_assert_msg(noted, "no note about the refused schema");
}
END_TEST

START_TEST(records_keep_utf8_and_replace_what_is_not)
{
	const std::string host = "gp\xc3\xbc-01\xe2\x82\xac";    // gpü-01€
	const std::string bad = "node\xed\xa0\x80x\xff";            // a surrogate, a stray byte
	std::string rec = rank_record(0, 0, bad, host, 0, 0.1, 0);
	ck_assert(rec.find(host) != std::string::npos);       // not escaped byte by byte
	ck_assert(rec.find("\\ufffd") != std::string::npos);
	evidence ev;
	long long refused = 0;
	ck_assert(read_plugin_records(rec, 0, ev, refused) == records_read::read);
	ck_assert_uint_eq(ev.plugin_tasks.size(), 1);
	DIAG_CK_STR_EQ(ev.host_name(ev.plugin_tasks[0].hostname), host);
	// The plugin's rule and the library's agree.
	const std::string want = valid_utf8(bad);
	DIAG_CK_STR_EQ(ev.host_name(ev.plugin_tasks[0].node), want);
}
END_TEST

static Suite *suite()
{
	Suite *s = suite_create("records");
	TCase *t = tcase_create("handoff");
	tcase_add_test(t, rank_and_exit_records_round_trip);
	tcase_add_test(t, measured_offset_and_zone_reach_the_alignment);
	tcase_add_test(t, without_srun_clock_nothing_is_measured);
	tcase_add_test(t, unknown_schema_is_refused_with_a_note);
	tcase_add_test(t, records_keep_utf8_and_replace_what_is_not);
	suite_add_tcase(s, t);
	return s;
}

int main() { return diag_ck_run(suite()); }
