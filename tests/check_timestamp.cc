// Unit tests for libdiag/timestamp: every recognised shape, the prefixes it
// must look past, the text it must not mistake for a time, and resolution.
#include "reading/timestamp.hh"

#include "ck_cxx.hh"

#include <climits>
#include <string>
#include <string_view>
#include <vector>

using diag::ts_context;
using diag::ts_kind;
using diag::ts_value;
using diag::us_per_s;

namespace {

ts_value find_ok(const char *line, int at)
{
	auto v = diag::find_timestamp(line);
	ck_assert_msg(v.has_value(), "line %d: no timestamp in \"%s\"", at, line);
	ck_assert_msg(diag::may_have_timestamp(line), "line %d: the precheck would skip \"%s\"", at, line);
	return *v;
}

void find_none(const char *line, int at)
{
	auto v = diag::find_timestamp(line);
	ck_assert_msg(!v.has_value(), "line %d: unexpected timestamp at %d..%d in \"%s\"", at,
		      v ? v->begin : 0, v ? v->end : 0, line);
}

#define FIND(line) find_ok(line, __LINE__)
#define NONE(line) find_none(line, __LINE__)

// Check's string macros keep a pointer past the full expression, so no temporaries.
void check_span(const char *line, const ts_value &v, const char *want)
{
	std::string got(line + v.begin, line + v.end);
	ck_assert_str_eq(got.c_str(), want);
}

void check_civil(const ts_value &v, int y, int mo, int d, int h, int mi, int s, int64_t us)
{
	ck_assert_int_eq(v.year, y);
	ck_assert_int_eq(v.month, mo);
	ck_assert_int_eq(v.day, d);
	ck_assert_int_eq(v.hour, h);
	ck_assert_int_eq(v.minute, mi);
	ck_assert_int_eq(v.second, s);
	ck_assert_int_eq(v.micros, us);
}

ts_context utc_ctx(int64_t reference_us = INT64_MIN)
{
	ts_context ctx;
	ctx.reference_us = reference_us;
	ctx.tz_known = true;
	return ctx;
}

// 2026-10-26T03:51:31Z and a few other instants, from Python's calendar.timegm.
constexpr int64_t t_20261026_035131 = 1792986691;
constexpr int64_t t_20260102_030405 = 1767323045;
constexpr int64_t t_20260202_225245 = 1770072765;

} // namespace

// ---- ISO 8601 ----

START_TEST(iso_zulu)
{
	const char *line = "2026-10-26T03:51:31Z hello";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	check_civil(v, 2026, 10, 26, 3, 51, 31, 0);
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s);
	check_span(line, v, "2026-10-26T03:51:31Z");
}
END_TEST

START_TEST(iso_millis_zulu)
{
	const char *line = "2026-10-26T03:51:31.222Z";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.micros, 222000);
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s + 222000);
	ck_assert_int_eq(v.end, 24);
}
END_TEST

START_TEST(iso_offset_colon)
{
	ts_value v = FIND("2026-10-26T04:51:31+01:00 x");
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.tz_offset_s, 3600);
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s);
	ck_assert_int_eq(v.end, 25);
}
END_TEST

START_TEST(a_long_table_row_ending_in_its_stamp)
{
	// gcloud's operations list puts TIMESTAMP last, past the head of a
	// long row: a zoned ISO time as the row's last word is its time. An
	// unzoned one there, or one followed by more words, is not.
	const char *row = "systemevent-1686752558716-5fe1a4b07c3e1-96f2d1a4-5c0b83e7  compute.instances.preempted"
			  "                 us-central1-a/instances/gpucluster-compute002  200          DONE    "
			  "2023-06-14T07:22:38.716-07:00  ";
	ts_value v = FIND(row);
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.tz_offset_s, -7 * 3600);
	NONE("systemevent-1686752558716-5fe1a4b07c3e1-96f2d1a4-5c0b83e7  compute.instances.preempted"
	     "                 us-central1-a/instances/gpucluster-compute002  200          DONE    "
	     "2023-06-14T07:22:38.716");
	NONE("systemevent-1686752558716-5fe1a4b07c3e1-96f2d1a4-5c0b83e7  compute.instances.preempted"
	     "                 us-central1-a/instances/gpucluster-compute002  200          DONE    "
	     "2023-06-14T07:22:38.716-07:00 and more words");
}
END_TEST

START_TEST(iso_offset_compact)
{
	ts_value v = FIND("2026-10-26T04:51:31+0100 x");
	ck_assert_int_eq(v.tz_offset_s, 3600);
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s);
	ts_value w = FIND("2026-10-25T22:21:31-0530");
	ck_assert_int_eq(w.tz_offset_s, -19800);
	ck_assert_int_eq(w.epoch_us, t_20261026_035131 * us_per_s);
}
END_TEST

// log4j's "XXX" and Go's time.String() put a space before the offset; a
// dash and a number after a time ("... 04:51:31 -1 retries") are text.
START_TEST(iso_offset_after_a_space)
{
	ts_value v = FIND("2026-10-26 04:51:31.043 +01:00 x");
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.tz_offset_s, 3600);
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s + 43000);
	ts_value w = FIND("2026-10-25 22:21:31 -0530 IST x");
	ck_assert_int_eq(w.tz_offset_s, -19800);
	ck_assert_int_eq(w.epoch_us, t_20261026_035131 * us_per_s);
	ts_value l = FIND("2026-10-26 03:51:31 -1 retries left");
	ck_assert_int_eq(int(l.kind), int(ts_kind::local));
	ck_assert_int_eq(l.end, 19);
}
END_TEST

START_TEST(iso_nanoseconds)
{
	const char *line = "2026-10-26T03:51:31.123456789Z rest";
	ts_value v = FIND(line);
	ck_assert_int_eq(v.micros, 123456);
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s + 123456);
	check_span(line, v, "2026-10-26T03:51:31.123456789Z");
}
END_TEST

START_TEST(iso_local_no_zone)
{
	ts_value v = FIND("2026-10-26T03:51:31 started");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 10, 26, 3, 51, 31, 0);
}
END_TEST

// ISO 8601's basic date before the clock (AReaL's logger): a time like
// any other, so lines after it in the file are bounded by it; eight digits
// that are no date, or a date with no clock, are not one.
START_TEST(iso_basic_date)
{
	const char *line = "20250227-06:13:38.946 master worker INFO: step 15";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2025, 2, 27, 6, 13, 38, 946000);
	check_span(line, v, "20250227-06:13:38.946");
	check_civil(FIND("20261026T03:51:31Z up"), 2026, 10, 26, 3, 51, 31, 0);
	check_civil(FIND("job 20261026 03:51:31 start"), 2026, 10, 26, 3, 51, 31, 0);
	NONE("20251399-06:13:38 not a date");
	NONE("20250227 job started");
	NONE("120250227-06:13:38 nine digits");
}
END_TEST

START_TEST(space_comma_millis)
{
	const char *line = "2026-10-26 03:51:31,123 rank 0";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 10, 26, 3, 51, 31, 123000);
	check_span(line, v, "2026-10-26 03:51:31,123");
}
END_TEST

START_TEST(space_dot_micros)
{
	ts_value v = FIND("2026-10-26 03:51:31.123456 rank 0");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 10, 26, 3, 51, 31, 123456);
}
END_TEST

START_TEST(space_utc_word)
{
	ts_value v = FIND("2026-10-26 03:51:31 UTC job 5");
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.epoch_us, t_20261026_035131 * us_per_s);
}
END_TEST

// ---- glog / torch ----

START_TEST(glog_nanos)
{
	const char *line = "E1026 04:01:29.922296938 1234 ProcessGroupNCCL.cpp:1575] x";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 10, 26, 4, 1, 29, 922296);
	check_span(line, v, "E1026 04:01:29.922296938");
}
END_TEST

START_TEST(glog_python)
{
	ts_value v = FIND("W1026 03:51:31.222000 12345 file.py:12] warn");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 10, 26, 3, 51, 31, 222000);
	ts_value i = FIND("I0102 00:00:00.000001 1 a.cc:1] info");
	check_civil(i, 0, 1, 2, 0, 0, 0, 1);
	ts_value f = FIND("F1231 23:59:59.5 1 a.cc:1] fatal");
	check_civil(f, 0, 12, 31, 23, 59, 59, 500000);
}
END_TEST

// vLLM's logger: a level word, then month-day and time (no year); a
// month-day anywhere else is no time.
START_TEST(level_month_day)
{
	const char *line = "ERROR 08-02 08:50:03 worker_base.py:382] RuntimeError: Gloo connectFullMesh failed";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 8, 2, 8, 50, 3, 0);
	check_span(line, v, "08-02 08:50:03");
	ts_value n = FIND("(RayWorkerWrapper pid=2207, ip=10.41.3.22) INFO 02-11 10:03:32 [__init__.py:190] x");
	check_civil(n, 0, 2, 11, 10, 3, 32, 0);
	NONE("split 08-02 08:50:03 worker_base.py:382] x");
	NONE("INFO 13-02 08:50:03 a.py:1] x");
}
END_TEST

// detectron2's "[MM/DD HH:MM:SS name]" and mmengine's "MM/DD HH:MM:SS -":
// month and day without a year; rich's "[MM/DD/YY HH:MM:SS]".
START_TEST(month_day_loggers)
{
	const char *d2 = "[12/02 09:10:44 detectron2]: Rank of current process: 0. World size: 8";
	ts_value v = FIND(d2);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 12, 2, 9, 10, 44, 0);
	check_span(d2, v, "12/02 09:10:44");
	v = FIND("3: 11/21 09:14:02 - mmengine - INFO - Epoch(train) [1][50/500]");
	check_civil(v, 0, 11, 21, 9, 14, 2, 0);
	v = FIND("[04/04/23 10:21:07] INFO     colossalai - colossalai - INFO: x");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2023, 4, 4, 10, 21, 7, 0);
	NONE("ratio 12/02 09:10:44 x"); // neither bracket nor dash
	NONE("[13/02 09:10:44 detectron2]: x");
}
END_TEST

// A time of day alone where the line leads with it, after a prefix at
// most; never a duration.
START_TEST(time_of_day_alone)
{
	const char *line = "[rank 0] 11:30:02 ep 2 it  2500 | loss 0.4932";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::time_of_day));
	check_span(line, v, "11:30:02");
	ck_assert_int_eq(v.hour, 11);
	FIND("21:14:52 Started by upstream project");
	FIND("0: 12:01:02.123 INFO train step 5");
	FIND("INFO [09:01:02] step 5");
	NONE("Elapsed 00:12:33 so far");
	NONE("[rank 0] took 00:12:33");
	NONE("Epoch 3:  39%| | 2977/7618 [25:11<39:15,  1.97it/s]");
	NONE("[00:12:33<00:40:00, 2.1it/s]");
	NONE("step 5 at 11:30:02");
	NONE("Err 12:34:56 wall");
}
END_TEST

START_TEST(glog_with_year)
{
	ts_value v = FIND("I20261026 03:51:31.222000 12345 file.cc:1] x");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 10, 26, 3, 51, 31, 222000);
}
END_TEST

START_TEST(torch_rank_prefix)
{
	const char *line = "[rank3]:[E1026 04:01:29.922296938 ProcessGroupNCCL.cpp:1575] "
			   "[PG ID 0 PG GUID 0(default_pg) Rank 3] Watchdog caught";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	ck_assert_int_eq(v.begin, 9);
	check_span(line, v, "E1026 04:01:29.922296938");
}
END_TEST

// c10's logger prints month * 100 + day without padding: January to
// September have three digits.
START_TEST(torch_unpadded_month)
{
	const char *line = "[rank8]:[E318 09:26:18.136731159 ProcessGroupNCCL.cpp:2068] [PG ID 0 Rank 8] Process group "
			   "watchdog thread terminated with exception";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 3, 18, 9, 26, 18, 136731);
	check_span(line, v, "E318 09:26:18.136731159");
	check_civil(FIND("[W101 00:00:01.5 a.cpp:1] x"), 0, 1, 1, 0, 0, 1, 500000);
	NONE("[E1399 09:26:18.1 a.cpp:1] x");
	NONE("[E31 09:26:18.1 a.cpp:1] x");
}
END_TEST

START_TEST(torch_old_no_time)
{
	NONE("[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation "
	     "timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
	     "Timeout(ms)=600000) ran for 600081 milliseconds before timing out.");
	NONE("[rank1]:[E ProcessGroupNCCL.cpp:737] Some NCCL operations have failed");
}
END_TEST

// ---- NCCL, DeepSpeed ----

START_TEST(nccl_bracket)
{
	const char *line = "[2026-01-02 03:04:05] node1:1234:1290 [0] NCCL WARN x";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 1, 2, 3, 4, 5, 0);
	check_span(line, v, "2026-01-02 03:04:05");
}
END_TEST

START_TEST(nccl_bracket_fraction)
{
	ts_value v = FIND("[2026-01-02 03:04:05.123456] node1:1234:1290 [0] NCCL WARN x");
	check_civil(v, 2026, 1, 2, 3, 4, 5, 123456);
	ts_value w = FIND("node1:1234:1290 [0] [2026-01-02 03:04:05.5] NCCL WARN x");
	check_civil(w, 2026, 1, 2, 3, 4, 5, 500000);
}
END_TEST

START_TEST(deepspeed)
{
	ts_value v = FIND("[2023-07-26 15:19:24,960] [INFO] [launch.py:315:sigkill_handler] Killing");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2023, 7, 26, 15, 19, 24, 960000);
}
END_TEST

// ---- kernel and system logs ----

START_TEST(dmesg_ctime)
{
	const char *line = "[Mon Feb  2 22:52:45 2026] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 2, 2, 22, 52, 45, 0);
	check_span(line, v, "Mon Feb  2 22:52:45 2026");
}
END_TEST

START_TEST(syslog_short)
{
	const char *line = "Feb  2 22:52:45 node17 kernel: NVRM: Xid (PCI:0000:3b:00): 79";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 2, 2, 22, 52, 45, 0);
	check_span(line, v, "Feb  2 22:52:45");
	ts_value w = FIND("Dec 31 23:59:59 node17 kernel: x");
	check_civil(w, 0, 12, 31, 23, 59, 59, 0);
}
END_TEST

START_TEST(journal_short_precise)
{
	ts_value v = FIND("Feb 02 22:52:45.123456 node17 kernel: NVRM: Xid");
	ck_assert_int_eq(int(v.kind), int(ts_kind::local_no_year));
	check_civil(v, 0, 2, 2, 22, 52, 45, 123456);
}
END_TEST

START_TEST(journal_short_iso)
{
	ts_value v = FIND("2026-02-02T22:52:45+0000 node17 kernel: NVRM: Xid");
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.epoch_us, t_20260202_225245 * us_per_s);
	ts_value w = FIND("2026-02-02T23:52:45.123456+01:00 node17 kernel: NVRM: Xid");
	ck_assert_int_eq(int(w.kind), int(ts_kind::absolute));
	ck_assert_int_eq(w.epoch_us, t_20260202_225245 * us_per_s + 123456);
}
END_TEST

START_TEST(kmsg_raw)
{
	const char *line = "[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::boot_relative));
	ck_assert_int_eq(v.boot_us, 1234567890);
	check_span(line, v, "[ 1234.567890]");
	ts_value w = FIND("[12345678.000001] x");
	ck_assert_int_eq(w.boot_us, int64_t(12345678) * us_per_s + 1);
}
END_TEST

START_TEST(epoch_leading)
{
	const char *line = "1730000000.123 worker 3 died";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.epoch_us, int64_t(1730000000) * us_per_s + 123000);
	check_span(line, v, "1730000000.123");
	ck_assert_int_eq(v.year, 2024);
	ts_value w = FIND("1730000000 plain");
	ck_assert_int_eq(w.epoch_us, int64_t(1730000000) * us_per_s);
}
END_TEST

START_TEST(epoch_rejected)
{
	NONE("123456789 bytes copied");    // before 2001
	NONE("9999999999 too far");        // after 2100
	NONE("17300000001 eleven digits");
	NONE("1730000000abc");
	NONE("rank 0 read 1730000000 bytes"); // not leading the line
	NONE("step=1730000000.5");
}
END_TEST

// ---- application logs ----

START_TEST(python_logging)
{
	const char *line = "2026-03-04 10:15:02,123 - INFO - Epoch 3 done";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2026, 3, 4, 10, 15, 2, 123000);
	check_span(line, v, "2026-03-04 10:15:02,123");
}
END_TEST

START_TEST(us_slash_date)
{
	const char *line = "08/15/2022 18:02:28 - INFO - __main__ -   epoch: 0, global step: 3, loss: 10.7062";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::local));
	check_civil(v, 2022, 8, 15, 18, 2, 28, 0);
	check_span(line, v, "08/15/2022 18:02:28");
	// A first field over 12 is the day.
	const char *eu = "15/08/2022 18:02:28,250 INFO step 3";
	ts_value e = FIND(eu);
	check_civil(e, 2022, 8, 15, 18, 2, 28, 250000);
	NONE("08/15/22 18:02:28 two-digit year");
	NONE("13/13/2022 10:00:00 no such month");
	NONE("loss 12/34/5678 10:00:00");
}
END_TEST

START_TEST(logfmt)
{
	const char *line = "time=\"2026-03-04T10:15:02Z\" level=warning msg=\"slow\"";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	check_span(line, v, "2026-03-04T10:15:02Z");
	ts_value w = FIND("ts=2026-03-04T10:15:02.5Z level=info");
	ck_assert_int_eq(w.micros, 500000);
}
END_TEST

// ---- prefixes ----

START_TEST(prefix_srun_label)
{
	ts_value v = FIND("12: 2026-03-04 10:15:02,123 - INFO - x");
	ck_assert_int_eq(v.begin, 4);
	ts_value w = FIND("29: [rank29]:[W1026 03:51:31.222000 ProcessGroupNCCL.cpp:1]");
	ck_assert_int_eq(int(w.kind), int(ts_kind::local_no_year));
	ck_assert_int_eq(w.begin, 14);
}
END_TEST

START_TEST(prefix_tee_and_host)
{
	ts_value v = FIND("[default0]:[E1026 04:01:29.922296938 ProcessGroupNCCL.cpp:1575] x");
	ck_assert_int_eq(v.begin, 12);
	ts_value w = FIND("node1: Feb  2 22:52:45 node1 kernel: x");
	ck_assert_int_eq(w.begin, 7);
	ts_value ip = FIND("192.168.13.81: [rank19]:[E1026 04:01:29.9 ProcessGroupNCCL.cpp:1]");
	ck_assert_int_eq(ip.begin, 25);
	check_civil(ip, 0, 10, 26, 4, 1, 29, 900000);
}
END_TEST

START_TEST(prefix_nccl_host_pid)
{
	const char *line = "node1:1234:1290 [3] 2026-01-02 03:04:05,5 NCCL WARN x";
	ts_value v = FIND(line);
	ck_assert_int_eq(v.begin, 20);
	check_civil(v, 2026, 1, 2, 3, 4, 5, 500000);
}
END_TEST

START_TEST(prefix_determined)
{
	const char *line = "[2024-02-27T21:35:28.705869Z] fa88a9df [rank=1] || "
			   "2026-01-02 03:04:05,000 INFO x";
	ts_value v = FIND(line);
	ck_assert_int_eq(int(v.kind), int(ts_kind::absolute));
	ck_assert_int_eq(v.begin, 1);
	ck_assert_int_eq(v.epoch_us, int64_t(1709069728) * us_per_s + 705869);
}
END_TEST

START_TEST(prefix_rank_upper)
{
	const char *line = "[RANK 1] 2026-05-19 10:10:29,701 [ERROR] boom";
	ts_value v = FIND(line);
	ck_assert_int_eq(v.begin, 9);
	check_civil(v, 2026, 5, 19, 10, 10, 29, 701000);
}
END_TEST

START_TEST(prefix_ansi)
{
	const char *line = "\x1b[32m2026-05-19 10:10:29,701\x1b[0m - INFO - x";
	ts_value v = FIND(line);
	ck_assert_int_eq(v.begin, 5);
	check_civil(v, 2026, 5, 19, 10, 10, 29, 701000);
	ts_value w = FIND("\x1b[0;33mW1026 03:51:31.222000 1 f.py:1]\x1b[0m warn");
	ck_assert_int_eq(int(w.kind), int(ts_kind::local_no_year));
	ts_value e = FIND("\x1b[1m1730000000.5 x"); // still leads the line
	ck_assert_int_eq(int(e.kind), int(ts_kind::absolute));
}
END_TEST

// ---- things that are not timestamps ----

START_TEST(no_misfire)
{
	NONE("26/67 [24:51<30:30][E ProcessGroupNCCL.cpp:737] x");
	NONE(" 39%|###9      | 26/67 [24:51<30:30,  2.22s/it]");
	NONE("step 1000/2000 loss=2.27");
	NONE("NCCL version 2.27.3+cuda12.9");
	NONE("connect to 192.168.13.81:29500 failed");
	NONE("WorkNCCL(SeqNum=12, OpType=ALLREDUCE)");
	NONE("[0.5] [12.34] [1.23456]");
	NONE("Err 12:34:56 wall");
	NONE("");
	NONE("May the loss be low");
	NONE("Error 2026 happened");
	NONE("Mon Feb"); // truncated
	NONE("2026-10-26"); // a date alone is not a time
}
END_TEST

START_TEST(range_validation)
{
	NONE("2026-13-01 00:00:00 bad month");
	NONE("2026-00-01 00:00:00 bad month");
	NONE("2026-02-30 00:00:00 bad day");
	NONE("2025-02-29 00:00:00 not a leap year");
	NONE("2026-01-32 00:00:00 bad day");
	NONE("2026-01-01 24:00:00 bad hour");
	NONE("2026-01-01 23:60:00 bad minute");
	NONE("2026-01-01 23:59:61 bad second");
	NONE("E1326 04:01:29.9 bad month");
	NONE("Feb 30 22:52:45 node17");
	NONE("Feb  2 25:52:45 node17");
	NONE("2026-01-01 23:59:590 trailing digit");
	NONE("2026-01-01 23:59:59.1234567890 ten fraction digits");
	ts_value leap = FIND("2026-12-31T23:59:60Z leap second");
	ck_assert_int_eq(leap.second, 60);
	ts_value feb29 = FIND("2024-02-29 12:00:00 leap day");
	ck_assert_int_eq(feb29.day, 29);
}
END_TEST

START_TEST(head_limit)
{
	std::string line(200, 'x');
	line += " 2026-01-01 00:00:00";
	NONE(line.c_str());
	std::string near(100, 'x');
	near += " 2026-01-01 00:00:00";
	ts_value v = FIND(near.c_str());
	ck_assert_int_eq(v.begin, 101);
}
END_TEST

START_TEST(truncated_lines)
{
	// Every prefix of every shape, in a buffer of exactly that size, so a
	// sanitizer build catches any read past the end.
	static const char *const lines[] = {
		"2026-10-26T03:51:31.123456789+01:00 x",
		"[rank3]:[E1026 04:01:29.922296938 ProcessGroupNCCL.cpp:1575]",
		"[Mon Feb  2 22:52:45 2026] x",
		"Feb 02 22:52:45.123456 node17",
		"[ 1234.567890] NVRM",
		"1730000000.123 x",
		"\x1b[32m2026-05-19 10:10:29,701\x1b[0m",
		"2026-10-26 03:51:31 UTC",
	};
	for (const char *line : lines) {
		std::string full(line);
		for (size_t n = 0; n <= full.size(); n++) {
			std::vector<char> buf(full.begin(), full.begin() + n);
			std::string_view sv(buf.data(), buf.size());
			auto v = diag::find_timestamp(sv);
			if (v) {
				ck_assert_uint_le(v->end, n);
				ck_assert(diag::may_have_timestamp(sv));
			}
			diag::parse_timestamp(sv);
		}
	}
}
END_TEST

// The precheck never skips a line with a time: stamps of every shape at
// every offset behind prefixes, among near misses (progress bars' "01:02",
// digits, brackets, colons), cut at every length.
START_TEST(precheck_never_skips_a_time)
{
	static const char *const stamps[] = {
		"2026-10-26T03:51:31.123456789+01:00", "I1026 04:01:29.922296938", "[Mon Feb  2 22:52:45 2026]",
		"Feb 02 22:52:45.123456", "[ 1234.567890]", "[1234.5]", "1730000000.123", "2026-05-19 10:10:29,701",
		"2026-10-26 03:51:31 UTC", "[2026-01-02 03:04:05]", "Oct 26 04:01:29"};
	static const char *const noise[] = {"", "37: ", "[rank3]:", "node17:4242:4300 [3] ", " 41%|#| 741/1000 [01:02<03:04, 1.82it/s] ",
					    "12:3", "[ x", "999", ": :", "\x1b[36m", "x:12:34:5"};
	unsigned seed = 7;
	auto rnd = [&] { return seed = seed * 1103515245 + 12345, (seed >> 8) & 0xffff; };
	size_t timed = 0;
	for (int t = 0; t < 40000; t++) {
		std::string line;
		int parts = 1 + static_cast<int>(rnd() % 4);
		for (int k = 0; k < parts; k++)
			line += rnd() % 3 ? noise[rnd() % (sizeof noise / sizeof *noise)]
					  : stamps[rnd() % (sizeof stamps / sizeof *stamps)];
		line.resize(rnd() % (line.size() + 1));
		if (diag::find_timestamp(line)) {
			timed++;
			ck_assert_msg(diag::may_have_timestamp(line), "the precheck would skip \"%s\"", line.c_str());
		}
	}
	ck_assert_uint_gt(timed, 1000);
}
END_TEST

// ---- resolution ----

START_TEST(resolve_absolute_and_local)
{
	ts_value a = FIND("2026-10-26T03:51:31.222Z");
	ts_context ctx = utc_ctx();
	ck_assert_int_eq(*diag::resolve_timestamp(a, ctx), t_20261026_035131 * us_per_s + 222000);
	ctx.tz_offset_s = 7200; // the zone does not touch a time that carried its own
	ck_assert_int_eq(*diag::resolve_timestamp(a, ctx), t_20261026_035131 * us_per_s + 222000);

	ts_value l = FIND("[2026-01-02 05:04:05] NCCL WARN");
	ck_assert_int_eq(*diag::resolve_timestamp(l, ctx), t_20260102_030405 * us_per_s);
	ctx.tz_offset_s = -5 * 3600;
	ts_value m = FIND("[2026-01-01 22:04:05] NCCL WARN");
	ck_assert_int_eq(*diag::resolve_timestamp(m, ctx), t_20260102_030405 * us_per_s);
}
END_TEST

START_TEST(resolve_no_year_same_year)
{
	ts_value v = FIND("[rank0]:[E1026 03:51:31.222000 ProcessGroupNCCL.cpp:1]");
	ts_context ctx = utc_ctx((t_20261026_035131 - 3600) * us_per_s);
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), t_20261026_035131 * us_per_s + 222000);
	ctx.tz_offset_s = 3600;
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx),
			 (t_20261026_035131 - 3600) * us_per_s + 222000);
}
END_TEST

START_TEST(resolve_no_year_december_line_january_ref)
{
	// The job started on New Year's Day; a December 31 line is from the year before.
	ts_value v = FIND("Dec 31 23:59:58 node17 kernel: x");
	ts_context ctx = utc_ctx(int64_t(1767225600 + 3600) * us_per_s); // 2026-01-01T01:00Z
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), int64_t(1767225598) * us_per_s);
}
END_TEST

START_TEST(resolve_no_year_january_line_december_ref)
{
	// Started on December 31 2026, ran past midnight: January 1 is 2027.
	ts_value v = FIND("I0101 00:00:01.000000 1 a.cc:1] x");
	ts_context ctx = utc_ctx(int64_t(1798761601 - 7200) * us_per_s);
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), int64_t(1798761601) * us_per_s);
}
END_TEST

START_TEST(resolve_no_year_feb29)
{
	ts_value v = FIND("Feb 29 12:00:00 node17 kernel: x");
	ts_context ctx = utc_ctx(int64_t(1709208000) * us_per_s); // 2024-02-29
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), int64_t(1709208000) * us_per_s);
	ctx.reference_us = int64_t(1740000000) * us_per_s; // 2025: nearest leap year is 2024
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), int64_t(1709208000) * us_per_s);
}
END_TEST

START_TEST(resolve_no_year_needs_reference)
{
	ts_value v = FIND("Feb  2 22:52:45 node17 kernel: x");
	ck_assert(!diag::resolve_timestamp(v, utc_ctx()).has_value());
	ts_value w = FIND("[Mon Feb  2 22:52:45 2026] x");
	ck_assert_int_eq(*diag::resolve_timestamp(w, utc_ctx()), t_20260202_225245 * us_per_s);
}
END_TEST

START_TEST(resolve_no_year_given_its_files_year)
{
	// A year-less stamp its file dated (the dated lines before it) keeps
	// that year, wherever the reference is (a reference of "now" months
	// later would put a May line in the next year).
	ts_value v = FIND("I0101 00:00:01.000000 1 a.cc:1] x");
	v.year = 2027;
	ck_assert_int_eq(*diag::resolve_timestamp(v, utc_ctx()), int64_t(1798761601) * us_per_s);
	ts_context ctx = utc_ctx(int64_t(1740000000) * us_per_s); // 2025
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), int64_t(1798761601) * us_per_s);
}
END_TEST

START_TEST(resolve_boot_relative)
{
	ts_value v = FIND("[ 1234.567890] NVRM: Xid");
	ts_context ctx = utc_ctx();
	ck_assert(!diag::resolve_timestamp(v, ctx).has_value());
	ctx.boot_epoch_us = int64_t(1770000000) * us_per_s;
	ck_assert_int_eq(*diag::resolve_timestamp(v, ctx), int64_t(1770001234) * us_per_s + 567890);
	ck_assert(!diag::resolve_timestamp(ts_value{}, ctx).has_value());
}
END_TEST

// ---- civil calendar, formatting, whole-string parsing ----

START_TEST(civil_days)
{
	ck_assert_int_eq(diag::days_from_civil(1970, 1, 1), 0);
	ck_assert_int_eq(diag::days_from_civil(1969, 12, 31), -1);
	ck_assert_int_eq(diag::days_from_civil(2000, 3, 1), 11017);
	ck_assert_int_eq(diag::days_from_civil(2026, 10, 26), 20752);
	for (int64_t d = -800000; d < 800000; d += 37) {
		diag::civil_date c = diag::civil_from_days(d);
		ck_assert_int_eq(diag::days_from_civil(c.year, c.month, c.day), d);
	}
}
END_TEST

START_TEST(format_ms)
{
	char buf[32];
	diag::format_utc_ms(t_20261026_035131 * us_per_s + 222999, buf, sizeof buf);
	ck_assert_str_eq(buf, "2026-10-26T03:51:31.222Z");
	diag::format_utc_ms(0, buf, sizeof buf);
	ck_assert_str_eq(buf, "1970-01-01T00:00:00.000Z");
	diag::format_utc_ms(-1000, buf, sizeof buf);
	ck_assert_str_eq(buf, "1969-12-31T23:59:59.999Z");
	char small[11];
	diag::format_utc_ms(0, small, sizeof small);
	ck_assert_str_eq(small, "1970-01-01");
}
END_TEST

START_TEST(parse_whole)
{
	auto v = diag::parse_timestamp("2026-10-26T03:51:31");
	ck_assert(v.has_value());
	ck_assert_int_eq(int(v->kind), int(ts_kind::local));
	check_civil(*v, 2026, 10, 26, 3, 51, 31, 0);
	auto z = diag::parse_timestamp("2026-10-26T04:51:31.222+01:00");
	ck_assert(z.has_value());
	ck_assert_int_eq(z->epoch_us, t_20261026_035131 * us_per_s + 222000);
	auto b = diag::parse_timestamp("[2026-01-02 03:04:05]");
	ck_assert(b.has_value());
	check_civil(*b, 2026, 1, 2, 3, 4, 5, 0);
	auto e = diag::parse_timestamp("1730000000");
	ck_assert(e.has_value());
	ck_assert(diag::parse_timestamp(" 2026-10-26T03:51:31\n").has_value());
	ck_assert(!diag::parse_timestamp("Unknown").has_value());
	ck_assert(!diag::parse_timestamp("None").has_value());
	ck_assert(!diag::parse_timestamp("").has_value());
	ck_assert(!diag::parse_timestamp("2026-10-26T03:51:31 extra").has_value());
	ck_assert(!diag::parse_timestamp("x 2026-10-26T03:51:31").has_value());
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("timestamp");
	TCase *shapes = tcase_create("shapes");
	tcase_add_test(shapes, iso_zulu);
	tcase_add_test(shapes, iso_millis_zulu);
	tcase_add_test(shapes, iso_offset_colon);
	tcase_add_test(shapes, a_long_table_row_ending_in_its_stamp);
	tcase_add_test(shapes, iso_offset_compact);
	tcase_add_test(shapes, iso_offset_after_a_space);
	tcase_add_test(shapes, iso_nanoseconds);
	tcase_add_test(shapes, iso_local_no_zone);
	tcase_add_test(shapes, iso_basic_date);
	tcase_add_test(shapes, space_comma_millis);
	tcase_add_test(shapes, space_dot_micros);
	tcase_add_test(shapes, space_utc_word);
	tcase_add_test(shapes, glog_nanos);
	tcase_add_test(shapes, glog_python);
	tcase_add_test(shapes, glog_with_year);
	tcase_add_test(shapes, torch_unpadded_month);
	tcase_add_test(shapes, level_month_day);
	tcase_add_test(shapes, month_day_loggers);
	tcase_add_test(shapes, time_of_day_alone);
	tcase_add_test(shapes, torch_rank_prefix);
	tcase_add_test(shapes, torch_old_no_time);
	tcase_add_test(shapes, nccl_bracket);
	tcase_add_test(shapes, nccl_bracket_fraction);
	tcase_add_test(shapes, deepspeed);
	tcase_add_test(shapes, dmesg_ctime);
	tcase_add_test(shapes, syslog_short);
	tcase_add_test(shapes, journal_short_precise);
	tcase_add_test(shapes, journal_short_iso);
	tcase_add_test(shapes, kmsg_raw);
	tcase_add_test(shapes, epoch_leading);
	tcase_add_test(shapes, epoch_rejected);
	tcase_add_test(shapes, python_logging);
	tcase_add_test(shapes, us_slash_date);
	tcase_add_test(shapes, logfmt);
	suite_add_tcase(s, shapes);

	TCase *prefixes = tcase_create("prefixes");
	tcase_add_test(prefixes, prefix_srun_label);
	tcase_add_test(prefixes, prefix_tee_and_host);
	tcase_add_test(prefixes, prefix_nccl_host_pid);
	tcase_add_test(prefixes, prefix_determined);
	tcase_add_test(prefixes, prefix_rank_upper);
	tcase_add_test(prefixes, prefix_ansi);
	suite_add_tcase(s, prefixes);

	TCase *negative = tcase_create("negative");
	tcase_add_test(negative, no_misfire);
	tcase_add_test(negative, range_validation);
	tcase_add_test(negative, head_limit);
	tcase_add_test(negative, truncated_lines);
	suite_add_tcase(s, negative);

	TCase *resolve = tcase_create("resolve");
	tcase_add_test(resolve, resolve_absolute_and_local);
	tcase_add_test(resolve, resolve_no_year_same_year);
	tcase_add_test(resolve, resolve_no_year_given_its_files_year);
	tcase_add_test(resolve, resolve_no_year_december_line_january_ref);
	tcase_add_test(resolve, resolve_no_year_january_line_december_ref);
	tcase_add_test(resolve, resolve_no_year_feb29);
	tcase_add_test(resolve, resolve_no_year_needs_reference);
	tcase_add_test(resolve, resolve_boot_relative);
	suite_add_tcase(s, resolve);

	TCase *misc = tcase_create("misc");
	tcase_add_test(misc, civil_days);
	tcase_add_test(misc, format_ms);
	tcase_add_test(misc, parse_whole);
	tcase_add_test(misc, precheck_never_skips_a_time);
	suite_add_tcase(s, misc);
	return s;
}

int main(void) { return diag_ck_run(suite()); }
