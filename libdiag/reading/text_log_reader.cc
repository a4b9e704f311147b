#include "reading/text_log_reader.hh"

#include "reading/event_scan.hh"
#include "reading/line_prefix.hh"
#include "reading/line_reader.hh"
#include "reading/rank_rounds.hh"
#include "reading/stack_dumps.hh"
#include "reading/stop_tracebacks.hh"
#include "reading/command_sections.hh"
#include "reading/text_clean.hh"

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <sys/stat.h>
#include <unistd.h>
#include <thread>
#include <unordered_map>

namespace diag {

namespace {

constexpr size_t max_event_text = 600;
// How many unstamped lines after a line whose message goes on are its.
constexpr uint64_t cont_lines = 4;

// Sources are read one at a time (the pipeline's thread): plain sums.
text_read_times read_times;

// Whether a is a later time than b, read on one file's clock; false when the
// two cannot be compared (other kinds; a date without its year against one
// with it takes that year; a time of day alone says nothing).
bool later_in_file(const ts_value &a, const ts_value &b)
{
	if (a.kind == ts_kind::none || b.kind == ts_kind::none)
		return false;
	auto civil = [](ts_kind k) { return k == ts_kind::local || k == ts_kind::local_no_year; };
	if (a.kind != b.kind && !(civil(a.kind) && civil(b.kind)))
		return false;
	if (a.kind == b.kind)
		return file_local_us(a) > file_local_us(b);
	if (a.month == 0 || b.month == 0)
		return false;
	ts_value x = a, y = b;
	if (x.kind == ts_kind::local_no_year)
		x.year = y.year;
	else
		y.year = x.year;
	return file_local_us(x) > file_local_us(y);
}

// What a file's stamps have said of its day: the last date, and the time
// of day of its last local dated stamp (-1: none, or only zoned ones).
struct file_day {
	civil_date date{0, 0, 0};
	int local_sod = -1;
};

// A clock a time of day alone that goes back this far from the last one
// has passed midnight.
constexpr int past_midnight_s = 6 * 3600;

// A stamp without its year takes the year of the file's last dated one (a
// month far before that one's is in the next year: December, then January);
// a dated stamp sets it. A time of day alone takes the date of the file's
// last local dated stamp (a zoned one's date may be another day where the
// node's clock reads), the next day once its clock went back past
// midnight; false where it has none: it is then no stamp at all.
bool date_within_file(ts_value &t, file_day &last)
{
	auto note_local = [&](const ts_value &x) {
		last.date = civil_date{x.year, x.month, x.day};
		last.local_sod = x.hour * 3600 + x.minute * 60 + x.second;
	};
	if (t.kind == ts_kind::local && t.year > 0) {
		note_local(t);
	} else if (t.kind == ts_kind::absolute) {
		last.date = civil_from_days(floor_div(t.epoch_us, 86400 * us_per_s));
		last.local_sod = -1;
	} else if (t.kind == ts_kind::local_no_year && t.year == 0 && last.date.year > 0 && t.month > 0) {
		t.year = last.date.year + (t.month + 6 < last.date.month ? 1 : t.month > last.date.month + 6 ? -1 : 0);
	} else if (t.kind == ts_kind::time_of_day) {
		if (last.local_sod < 0)
			return false;
		civil_date d = last.date;
		const int sod = t.hour * 3600 + t.minute * 60 + t.second;
		if (sod < last.local_sod - past_midnight_s)
			d = civil_from_days(days_from_civil(d.year, d.month, d.day) + 1);
		t.kind = ts_kind::local;
		t.year = d.year;
		t.month = d.month;
		t.day = d.day;
		note_local(t);
	}
	return true;
}

// Lines a file begins with whose stamps are times of day alone, before
// its first local dated stamp (an application's "11:36:14" above Slurm's
// dated banner): held back until that stamp comes, then read with the date
// it gives them, counted back over the midnights their clock passed. Held
// within a bound; past it, or with no dated stamp to come, they are read
// as before, their times of day no stamps.
struct day_lookback {
	static constexpr size_t max_bytes = 8u << 20;
	struct held_line {
		std::string text;
		uint64_t no;
	};
	std::vector<held_line> held;
	std::vector<int> sods; // the held lines' times of day, in order
	size_t bytes = 0;
	bool holding = false, done = false;

	// The date of the first held time of day, given the dated stamp d
	// after them.
	civil_date first_day(const ts_value &d) const
	{
		int64_t day = days_from_civil(d.year, d.month, d.day);
		int later = d.hour * 3600 + d.minute * 60 + d.second;
		for (size_t i = sods.size(); i-- > 0;) {
			if (sods[i] > later + past_midnight_s)
				day--;
			later = sods[i];
		}
		return civil_from_days(day);
	}
};

double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long long to_ll(std::string_view s, int base = 10)
{
	if (s.empty() || s.size() > 20)
		return -1;
	char buf[24];
	memcpy(buf, s.data(), s.size());
	buf[s.size()] = 0;
	char *end = nullptr;
	long long v = strtoll(buf, &end, base);
	return end == buf ? -1 : v;
}

int signal_number(std::string_view s)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {{"SIGHUP", 1}, {"SIGINT", 2}, {"SIGQUIT", 3}, {"SIGILL", 4}, {"SIGTRAP", 5},
		     {"SIGABRT", 6}, {"SIGBUS", 7}, {"SIGFPE", 8}, {"SIGKILL", 9}, {"SIGUSR1", 10},
		     {"SIGSEGV", 11}, {"SIGUSR2", 12}, {"SIGPIPE", 13}, {"SIGALRM", 14}, {"SIGTERM", 15},
		     {"Killed", 9}, {"Aborted", 6}, {"Terminated", 15}, {"Segmentation fault", 11},
		     {"Bus error", 7}};
	for (const auto &n : names)
		if (s == n.name)
			return n.num;
	long long v = to_ll(s);
	return v > 0 && v < 128 ? static_cast<int>(v) : -1;
}

// Kernel logs from syslog or journalctl: "<time> <host> kernel: ...".
std::string_view syslog_host(std::string_view line, const ts_value &ts)
{
	if (ts.kind == ts_kind::none || ts.kind == ts_kind::boot_relative || ts.end >= line.size())
		return {};
	// dmesg -T's "[Sat Nov 14 11:47:29 2026] NETDEV WATCHDOG: ..." names no
	// host: a weekday's stamp in brackets is dmesg's, never syslog's.
	if (ts.begin > 0 && line[ts.begin - 1] == '[' && line[ts.end] == ']' && ts.begin < line.size() &&
	    ((line[ts.begin] >= 'A' && line[ts.begin] <= 'Z') || (line[ts.begin] >= 'a' && line[ts.begin] <= 'z')))
		return {};
	std::string_view rest = line.substr(ts.end);
	while (!rest.empty() && (rest[0] == ' ' || rest[0] == ']'))
		rest.remove_prefix(1);
	size_t sp = rest.find(' ');
	if (sp == std::string_view::npos || sp == 0 || sp > 63)
		return {};
	std::string_view host = rest.substr(0, sp);
	// dmesg -T's "[...] NVRM: nvAssert...: ..." starts with a subsystem's
	// tag, not a host: a host is followed by its tag, never ends in one.
	if (host.back() == ':')
		return {};
	std::string_view after = rest.substr(sp + 1);
	size_t colon = after.find(':');
	if (colon == std::string_view::npos || colon > 40)
		return {};
	// The tag is "kernel", "slurmd[123]", ...: no spaces before the colon,
	// a name first. dmesg -T's "[...] mlx5_core 0000:4d:00.0: ..." names a
	// driver and a PCI address, not a host and a tag.
	if (after.substr(0, colon).find(' ') != std::string_view::npos || colon == 0 ||
	    !((after[0] >= 'a' && after[0] <= 'z') || (after[0] >= 'A' && after[0] <= 'Z')))
		return {};
	return host;
}

// A progress bar redraws without a newline, so the next writer's line is
// glued to it ("... 1.37it/s, loss=2.6][rank3]:Traceback ..."): split after
// the bar, and before a rank prefix that starts mid-line.
inline bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The slash of the next progress-bar rate at or after from: tqdm's number
// and unit per second or seconds per unit, whatever the unit ("1.37it/s",
// "2.35s/it", "1.84s/ba", "812B/s"); npos if none. (The slash, not the
// rate's start: a search from just after it moves on.)
size_t tqdm_rate(std::string_view seg, size_t from)
{
	for (size_t slash = seg.find('/', from); slash != std::string_view::npos; slash = seg.find('/', slash + 1)) {
		// "<digit>s/<letter>": seconds per unit.
		if (slash >= 2 && seg[slash - 1] == 's' && seg[slash - 2] >= '0' && seg[slash - 2] <= '9' &&
		    slash + 1 < seg.size() && is_letter(seg[slash + 1]))
			return slash;
		// "<digit><letters>/s" and no letter after: units per second.
		if (slash + 1 < seg.size() && seg[slash + 1] == 's' && (slash + 2 >= seg.size() || !is_letter(seg[slash + 2]))) {
			size_t k = slash;
			while (k > 0 && slash - k < 8 && is_letter(seg[k - 1]))
				k--;
			if (k < slash && k > 0 && seg[k - 1] >= '0' && seg[k - 1] <= '9')
				return slash;
		}
	}
	return std::string_view::npos;
}

template <typename F>
void split_glued(std::string_view seg, F &&fn)
{
	for (int guard = 0; guard < 64 && !seg.empty(); guard++) {
		size_t cut = std::string_view::npos;
		for (size_t u = tqdm_rate(seg, 0); u != std::string_view::npos; u = tqdm_rate(seg, u + 1)) {
			size_t close = seg.find(']', u);
			if (close != std::string_view::npos && close - u < 160 && close + 1 < seg.size()) {
				cut = close + 1;
				break;
			}
		}
		size_t r = seg.find("[rank", 1);
		while (r != std::string_view::npos) {
			size_t k = r + 5;
			while (k < seg.size() && seg[k] >= '0' && seg[k] <= '9')
				k++;
			if (k > r + 5 && k + 1 < seg.size() && seg[k] == ']' && seg[k + 1] == ':' && seg[r - 1] != ' ') {
				cut = std::min(cut, r);
				break;
			}
			r = seg.find("[rank", r + 1);
		}
		if (cut == std::string_view::npos || cut == 0 || cut >= seg.size()) {
			fn(seg);
			return;
		}
		fn(seg.substr(0, cut));
		seg = seg.substr(cut);
	}
	if (!seg.empty())
		fn(seg);
}

// "[Rank 3] ..." or "[PG ID 0 PG GUID 0(default_pg) Rank 3] ..." in a line a
// signature did not capture the rank from. Only the default process group's
// rank is global.
int body_rank(std::string_view body)
{
	size_t p = body.find("Rank ");
	while (p != std::string_view::npos) {
		size_t k = p + 5, d = k;
		while (k < body.size() && body[k] >= '0' && body[k] <= '9')
			k++;
		if (k > d && k - d < 8 && k < body.size() && body[k] == ']') {
			size_t open = body.rfind('[', p);
			if (open != std::string_view::npos && body.find(']', open) >= p) {
				std::string_view tag = body.substr(open + 1, p - open - 1);
				if (tag.empty() || tag.rfind("PG ID 0 ", 0) == 0 || tag.rfind("PG 0 ", 0) == 0)
					return static_cast<int>(to_ll(body.substr(d, k - d)));
			}
		}
		p = body.find("Rank ", p + 5);
	}
	return -1;
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Whether parse_prefix could find both an srun label and a rank on s.
bool may_have_label_and_rank(std::string_view s, unsigned markers)
{
	if (!(markers & marker_rank))
		return false;
	size_t i = 0;
	while (i < s.size() && s[i] == ' ')
		i++;
	return i < s.size() && is_digit(s[i]);
}

// Progress lines are most of a training log, and only the last one of each
// writer matters (diagnose compares it with the writer's exceptions). Lines
// whose literals can only make them progress lines wait here, copied, and
// their patterns run newest first when the ring fills or the file ends:
// one confirmed line settles all older ones.
constexpr size_t progress_ring = 8;
// Intervals between a writer's progress lines that make a pace.
constexpr uint32_t min_pace_intervals = 3;
// A writer's last progress line without a stamp of its own (a bar drawn
// after its last stamped step) is dated by that stamped line when it came
// within these few lines of it: further on, an unstamped phase (a long
// evaluation's bar) may have gone on for any time since.
constexpr uint64_t pace_since_stamp = 3;
constexpr uint64_t wrapper_lines = 80;    // how far below a wrapping exception its message may be
constexpr uint64_t describe_head_lines = 10;  // kubectl describe: "Name:" to "Node:"
constexpr uint64_t describe_block_lines = 120; // "Node:" to the end of the pod's block (its Events)
constexpr size_t progress_max_body = 256;  // longer bodies are matched at once
constexpr size_t progress_max_writers = 1024; // beyond: no deferral (cache misses cost more)

// Per writer; the fields every progress line touches come first. With
// thousands of ranks the writers do not fit in the cache, so each line
// should touch as few cache lines as it can.
struct writer_state {
	uint32_t npending = 0;           // unconfirmed progress candidates, oldest first
	uint64_t progress_line = 0;      // last confirmed progress line (0: none)
	uint64_t first_progress_line = 0; // the first such line (0: none)
	// Its time: its own or the writer's last, else the file's last (then
	// it marks the timeline but is no time of this writer's).
	bool progress_own_time = false;
	bool progress_stamped = false;   // that time is the line's own stamp
	// Without one, it came a line or two after the file's last stamped
	// line and inherits that stamp: it was drawn then (a bar's first draw
	// right after "running validation").
	bool progress_near_stamp = false;
	// The last progress line stamped with its own time, and that time (a
	// bar drawn right after it has none: pace_since_stamp).
	uint64_t stamped_progress_line = 0;
	ts_value stamped_progress_ts;
	// The candidates: lines, lengths and bodies (progress_ring slots of
	// progress_max_body bytes, allocated at the first).
	std::unique_ptr<char[]> pending_body;
	std::unique_ptr<ts_value[]> pending_ts; // their times (kind none: none known yet)
	ts_value progress_ts;            // the last confirmed progress line's time
	uint64_t pending_line[progress_ring] = {};
	uint16_t pending_len[progress_ring] = {};
	bool pending_own_time[progress_ring] = {};
	bool pending_stamped[progress_ring] = {};
	bool pending_near_stamp[progress_ring] = {};
	ts_value last_ts;                // last time seen on this writer (kind none: never)
	uint64_t traceback_line = 0;     // open traceback (0: none)
	int open_tracebacks = 0;         // interleaved processes on one writer open several
	uint64_t handled_line = 0;       // last "will retry"/"skipping" line
	// The writer's pace: its progress lines' own times, the previous one
	// and the longest interval between two, and how many intervals.
	int64_t pace_prev_us = INT64_MIN;
	int64_t pace_longest_us = 0;
	uint32_t pace_intervals = 0;
	uint32_t pace_seen = 0;                           // intervals seen, confirmed or not
	std::vector<std::pair<int64_t, int64_t>> pace_open; // (end, length) not yet confirmed
	long wrapper_exc = -1;           // an exception whose message is in the lines below (wraps)
	uint64_t wrapper_line = 0;
	uint64_t handler_frame_line = 0; // last frame of a launcher's signal handler
	int handled_rank = -1;           // the rank that line names (-1: none)
	long last_event = -1;            // index of the writer's last kept event
	uint64_t last_event_line = 0;
	bool traceback_handled = false;  // the open traceback follows a handler's line
	bool traceback_at_startup = false; // the open traceback passed through communicator set-up
	bool traceback_finite_check = false; // its last frame asserted that values were finite
	// A torchrun failure block names "rank : R" then "exitcode : X (pid: P)".
	int block_rank = -1;
	uint64_t block_rank_line = 0;
	int block_host = -1;
	uint64_t block_host_line = 0;
	int map_node = -1;                // Open MPI's --display-map: the node block open
	uint64_t map_line = 0;            // its last line (node or rank)
	// "kubectl describe pod": its "Name:", then "Node: N/ip" within a few
	// lines; the block's lines below (Reason, Message, Events) are the pod's.
	std::string describe_name;
	uint64_t describe_name_line = 0;
	int described = -1;
	uint64_t described_line = 0;
	// "-- Process 6 terminated with the following error:": the traceback
	// that follows is that rank's (a tb_rank capture).
	int tb_rank = -1;
	uint64_t tb_rank_line = 0;
	bool tb_rank_local = false; // it is a local rank (spawn's process index)
	bool tb_owner_local = false;
	int tb_owner = -1; // the open traceback's rank, from such a header
	bool tb_relayed = false; // its header named the rank it came from: it wins over the writer's
	// A wrapper that re-raised another process's exception and heads its
	// traceback (Ray's "RayTaskError(X): ray::task() (pid=P, ip=H)"): the
	// exception that ends it is that process's, not the writer's.
	int tb_origin_pid = -1;
	int tb_origin_host = -1;
	uint64_t tb_origin_line = 0;
	// Python's chained exceptions ("During handling of the above exception",
	// "Original Traceback", spawn re-printing its child's) are one failure:
	// the writer's last exceptions, and the one a chain marker continues.
	long last_exception = -1;
	uint64_t last_exception_line = 0;
	std::vector<long> last_exception_chain; // the links it continued, nearest first
	long chain_from = -1;
	std::vector<long> chain_links; // chain_from and the links it continued
	bool chain_inner = false; // the cause is the exception that follows (a re-raise's original)
	// A line whose message goes on (a `continues` capture) and its rank:
	// the unstamped lines right after are that message's. A stamped line
	// ends it.
	int cont_rank = -1;
	uint64_t cont_line = 0;
	bool cont_victim = false;
	uint64_t ident = 0; // who the writer is (find_writer's key)
};

// What one line says without any state: its literal hits, its prefixes
// and its time. Scanning threads find these; the thread that keeps the
// state only reads them.
struct line_facts {
	bool may_ts = false;   // a timestamp may be on the line (else ts is empty)
	bool skip = false;     // no rule's literal, no time, no label with a rank: nothing to do
	int reach = 0;         // rule_set::hit_reach at the body
	line_identity id;      // views into the line
	std::optional<ts_value> ts;
};


// A command typed at a terminal ("$ kubectl logs ..."): a paste of a
// session shows each command's output after its line, so the text above it
// is another command's, in no time order with what follows. (A file read
// event-first, a megabyte or more, is read at its chosen lines only, and
// a command line is none of them: a paste is rarely that long.)
bool shell_command_line(std::string_view seg)
{
	return seg.size() > 2 && seg[0] == '$' && seg[1] == ' ' && seg[2] != ' ';
}

// A line of a stack dump of a live process (py-spy's "Process N: cmd",
// "Thread N (idle): ...", its frames "    f (file.py:12)", a dump's
// header) or of a traceback: read for who is different
// (reading/stack_dumps.hh, reading/stop_tracebacks.hh) though no rule's
// literal is on it.
bool process_state_line(std::string_view seg)
{
	auto starts = [&](std::string_view p) { return seg.size() >= p.size() && seg.compare(0, p.size(), p) == 0; };
	if (starts("Process ") || starts("Thread ") || starts("###") || starts("==> ") ||
	    (seg.size() > 6 && seg[0] == ' ' && seg[1] == ' ' && seg.back() == ')'))
		return true;
	// A traceback's start, frames and an interrupt (where each process was
	// when the job was stopped: reading/stop_tracebacks.hh).
	std::string_view t = seg.substr(std::min(seg.find_first_not_of(' '), seg.size()));
	return starts("Traceback (most recent call last)") || t.rfind("File \"", 0) == 0 ||
	       starts("KeyboardInterrupt");
}

// Fills f for a segment with its literal hits h. kind: the source's.
void find_facts(std::string_view seg, const line_hits &h, source_kind kind, const rule_set &rules, line_facts &f)
{
	f.may_ts = may_have_timestamp(seg);
	f.skip = !h.rule_hit && !f.may_ts && (kind == source_kind::kernel_log || !may_have_label_and_rank(seg, h.markers)) &&
		 !shell_command_line(seg) && !process_state_line(seg);
	f.id = line_identity();
	f.ts.reset();
	f.reach = 0;
	if (f.skip)
		return;
	f.id = identify(seg, kind == source_kind::kernel_log);
	if (f.may_ts)
		f.ts = find_timestamp(seg);
	if (h.rule_hit)
		f.reach = rules.hit_reach(static_cast<size_t>(f.id.body.data() - seg.data()), h);
}

// line_facts as a batch keeps them: small (what crosses between cores is
// what costs), the views as offsets into the line, times aside.
struct packed_facts {
	uint8_t may_ts, skip, nccl;
	int8_t reach;
	int32_t task, rank, local_rank, pid, cuda_dev;
	uint32_t body_off, host_off, host_len;
	int32_t ts; // index into the batch's times, -1: none
};

void pack_facts(const line_facts &f, std::string_view line, std::vector<ts_value> &times, packed_facts &p)
{
	p.may_ts = f.may_ts;
	p.skip = f.skip;
	p.reach = static_cast<int8_t>(f.reach);
	if (f.skip)
		return;
	p.nccl = f.id.nccl;
	p.task = f.id.task;
	p.rank = f.id.rank;
	p.local_rank = f.id.local_rank;
	p.pid = f.id.pid;
	p.cuda_dev = f.id.cuda_dev;
	p.body_off = static_cast<uint32_t>(f.id.body.data() - line.data());
	p.host_off = f.id.host.empty() ? 0 : static_cast<uint32_t>(f.id.host.data() - line.data());
	p.host_len = static_cast<uint32_t>(f.id.host.size());
	p.ts = -1;
	if (f.ts) {
		p.ts = static_cast<int32_t>(times.size());
		times.push_back(*f.ts);
	}
}

void unpack_facts(const packed_facts &p, std::string_view line, const std::vector<ts_value> &times, line_facts &f)
{
	f.may_ts = p.may_ts;
	f.skip = p.skip;
	f.reach = p.reach;
	if (f.skip)
		return;
	f.id.nccl = p.nccl;
	f.id.task = p.task;
	f.id.rank = p.rank;
	f.id.local_rank = p.local_rank;
	f.id.pid = p.pid;
	f.id.cuda_dev = p.cuda_dev;
	f.id.body = line.substr(p.body_off);
	f.id.host = p.host_len ? line.substr(p.host_off, p.host_len) : std::string_view();
	if (p.ts >= 0)
		f.ts = times[static_cast<size_t>(p.ts)];
	else
		f.ts.reset();
}

// Large sources are read in batches on several threads: each batch is
// read from the source (one thread at a time), then its lines are split
// and each plain line's facts found (in parallel); the calling thread does
// everything that keeps state, batch by batch in line order. So the
// result cannot depend on timing, or on how many threads there are.
constexpr uint64_t scan_ahead_min_bytes = 8ull << 20;
constexpr size_t batch_bytes = 512 << 10;
constexpr int max_scanners = 4; // more gain little and each holds batches

// Each batch on cache lines of its own: its vectors' ends move with every
// line a scanner adds, and a neighbour's scanner or the consumer must not
// pay for that (false sharing cost more than the second thread saved).
struct alignas(128) line_batch {
	struct line_rec {
		size_t off, len;
		uint64_t line_no;
		uint32_t hit_begin, hit_end;
		int32_t facts; // index into facts, -1: not plain (see segs)
		uint8_t rule_hit, markers;
		bool chunk;    // as read: lines from line_no on, still to split
		uint32_t seg_begin, seg_end; // not plain: its cleaned segments
	};
	// A cleaned segment of a line with control bytes, in seg_text.
	struct seg_rec {
		size_t off, len;
		uint32_t hit_begin, hit_end;
		int32_t facts;
		uint8_t rule_hit, markers;
	};
	std::vector<line_rec> read; // as read, before split_chunks
	std::string text;
	std::vector<seg_rec> segs;
	std::string seg_text;
	std::vector<line_rec> lines;
	std::vector<std::pair<uint32_t, uint32_t>> hits;
	std::vector<packed_facts> facts;
	std::vector<ts_value> times;
	int64_t seq = -1;   // which batch of the source this is (-1: free)
	bool scanned = false;
	bool last = false;
};

// Turns what was read into b.lines: chunks are split as line_reader::next
// splits (at '\n', over-long lines in pieces of max_line under one
// number), empty lines skipped but counted.
void split_chunks(line_batch &b, size_t max_line)
{
	b.lines.clear();
	for (const auto &rd : b.read) {
		if (!rd.chunk) {
			b.lines.push_back(rd);
			continue;
		}
		const char *p = b.text.data() + rd.off, *end = p + rd.len;
		uint64_t no = rd.line_no;
		while (p < end) {
			const char *nl = static_cast<const char *>(memchr(p, '\n', static_cast<size_t>(end - p)));
			const char *stop = nl ? nl : end;
			for (size_t len = static_cast<size_t>(stop - p); len > 0;) {
				size_t piece = len > max_line ? max_line : len;
				line_batch::line_rec r{};
				r.off = static_cast<size_t>(p - b.text.data());
				r.len = piece;
				r.line_no = no;
				b.lines.push_back(r);
				p += piece;
				len -= piece;
			}
			p = stop + 1;
			no++;
		}
	}
}

// How many scanning threads: DENPEX_THREADS (all threads, this one
// included: 1 for none) or, by default, one per CPU beyond this thread's,
// at least one where there are two CPUs. Only the speed depends on this,
// never the result.
int scanner_count()
{
	const char *e = getenv("DENPEX_THREADS");
	int want;
	if (e && *e) {
		want = atoi(e) - 1;
	} else {
		unsigned cpus = std::thread::hardware_concurrency();
		want = static_cast<int>(cpus) - 1;
	}
	return std::max(0, std::min(want, max_scanners));
}

// What a scanning thread reads for every batch, copied to its own stack:
// the calling thread's stack shares cache lines with what it writes for
// every line (measured: reading through references to it doubled the time).
struct scan_context {
	source_kind kind;
	const rule_set *rules;
	line_batch *batches;
	int64_t nbatches;
	size_t max_line;
};

// Reads batch b from lr: chunks of whole lines where the reader can give
// them (they are split later, off the lock), single lines where it cannot.
void read_batch(line_reader &lr, line_batch &b)
{
	b.text.clear();
	b.read.clear();
	b.last = true;
	std::string_view raw;
	uint64_t count;
	while (b.text.size() < batch_bytes) {
		line_batch::line_rec r{};
		r.off = b.text.size();
		if (lr.next_lines(raw, count)) {
			r.len = raw.size();
			r.line_no = lr.line_no() - count + 1;
			r.chunk = true;
		} else if (lr.next(raw)) {
			if (raw.empty())
				continue;
			r.len = raw.size();
			r.line_no = lr.line_no();
		} else {
			break;
		}
		b.text.append(raw.data(), raw.size());
		b.read.push_back(r);
	}
	if (b.text.size() >= batch_bytes)
		b.last = false;
}

// Splits batch b into lines, cleans those with control bytes into
// segments, and finds the hits and facts of each plain line and segment.
void scan_batch(const scan_context &c, line_batch &b, line_hits &h, line_facts &f, line_cleaner &cleaner)
{
	b.hits.clear();
	b.times.clear();
	b.segs.clear();
	b.seg_text.clear();
	split_chunks(b, c.max_line);
	size_t nfacts = 0;
	// Hits and facts of one piece of text; its facts' index.
	auto scan = [&](std::string_view text, uint8_t &rule_hit, uint8_t &markers) {
		c.rules->scan_line(text, h);
		rule_hit = h.rule_hit;
		markers = static_cast<uint8_t>(h.markers);
		if (b.facts.size() <= nfacts)
			b.facts.resize(nfacts + 1);
		find_facts(text, h, c.kind, *c.rules, f);
		pack_facts(f, text, b.times, b.facts[nfacts]);
		// The hits themselves matter only where a rule other than
		// progress may match.
		if (f.reach == 2)
			b.hits.insert(b.hits.end(), h.hits.begin(), h.hits.end());
		return static_cast<int32_t>(nfacts++);
	};
	for (auto &r : b.lines) {
		std::string_view line(b.text.data() + r.off, r.len);
		r.hit_begin = static_cast<uint32_t>(b.hits.size());
		r.rule_hit = r.markers = 0;
		r.facts = -1;
		r.seg_begin = r.seg_end = static_cast<uint32_t>(b.segs.size());
		if (!has_control(line)) {
			r.facts = scan(line, r.rule_hit, r.markers);
		} else {
			cleaner.for_each_segment(line, [&](std::string_view seg) {
				line_batch::seg_rec sr{};
				sr.off = b.seg_text.size();
				sr.len = seg.size();
				b.seg_text.append(seg.data(), seg.size());
				sr.hit_begin = static_cast<uint32_t>(b.hits.size());
				sr.facts = scan(seg, sr.rule_hit, sr.markers);
				sr.hit_end = static_cast<uint32_t>(b.hits.size());
				b.segs.push_back(sr);
			});
			r.seg_end = static_cast<uint32_t>(b.segs.size());
			r.hit_begin = static_cast<uint32_t>(b.hits.size());
		}
		r.hit_end = static_cast<uint32_t>(b.hits.size());
	}
}

// Runs fn(text, line_no, hits, facts) for every non-empty line of lr that
// is plain and for every cleaned segment of one that is not (what the
// plain loop in read_text_log hands to segment()), with the scanning spread
// over threads. False
// (nothing read) when the source is too small for that to pay or no
// thread is to be used.
//
// Every thread, this one included, takes the next batch, reads it (one
// thread at a time, under the lock) and scans it (in parallel); this
// thread alone hands batches to fn, in order, and scans whenever the next
// one is not ready. So no core idles while another works, and there are
// no more threads than CPUs.
template <typename F>
bool scan_ahead(line_reader &lr, source_kind kind, const rule_set &rules, F &&fn)
{
	if (lr.size_hint() < scan_ahead_min_bytes)
		return false;
	const int helpers = scanner_count();
	if (helpers < 1)
		return false;
	// Two batches per thread: one being scanned, one waiting.
	const int nbatches = 2 * (helpers + 1) + 1;
	std::vector<line_batch> batches(static_cast<size_t>(nbatches));
	const scan_context ctx{kind, &rules, batches.data(), nbatches, lr.max_line()};
	std::mutex mu;
	std::condition_variable cv;
	int64_t next_read = 0;  // the next batch to read from lr
	int64_t consumed = 0;   // batches handed to fn
	bool source_done = false, stop = false;
	std::exception_ptr failed; // the first failure, rethrown here
	int64_t failed_at = INT64_MAX;
	// With lk held and a batch free: takes it, reads it, scans it with the
	// lock released, and marks it scanned.
	auto take_and_scan = [&](std::unique_lock<std::mutex> &lk, const scan_context &c, line_hits &h,
				 line_facts &f, line_cleaner &cleaner) {
		int64_t n = next_read++;
		line_batch &b = c.batches[n % c.nbatches];
		try {
			read_batch(lr, b);
		} catch (...) {
			if (!failed)
				failed = std::current_exception();
			failed_at = std::min(failed_at, n);
			b.last = true;
		}
		if (b.last)
			source_done = true;
		b.seq = n;
		b.scanned = false;
		lk.unlock();
		std::exception_ptr err;
		try {
			scan_batch(c, b, h, f, cleaner);
		} catch (...) {
			err = std::current_exception();
		}
		lk.lock();
		if (err) {
			if (!failed)
				failed = err;
			failed_at = std::min(failed_at, n);
		}
		b.scanned = true;
		cv.notify_all();
	};
	auto batch_free = [&](int64_t nb) { return !source_done && next_read - consumed < nb; };
	std::vector<std::thread> threads;
	struct joiner {
		std::vector<std::thread> &ts;
		std::mutex &mu;
		std::condition_variable &cv;
		bool &stop;
		~joiner()
		{
			{
				std::lock_guard<std::mutex> lk(mu);
				stop = true;
			}
			cv.notify_all();
			for (auto &t : ts)
				t.join();
		}
	} join{threads, mu, cv, stop};
	auto helper = [&] {
		const scan_context c = ctx;
		line_hits h;
		line_facts f;
		line_cleaner cleaner;
		std::unique_lock<std::mutex> lk(mu);
		for (;;) {
			cv.wait(lk, [&] { return stop || source_done || batch_free(c.nbatches); });
			if (stop || source_done)
				return;
			take_and_scan(lk, c, h, f, cleaner);
		}
	};
	// A thread that cannot be started (a process limit in the epilog's
	// environment) is one helper fewer: this thread scans what is left.
	for (int i = 0; i < helpers; i++) {
		try {
			threads.emplace_back(helper);
		} catch (const std::system_error &) {
			break;
		}
	}
	line_hits h, own_h;
	line_facts f, own_f;
	line_cleaner own_cleaner;
	for (int64_t n = 0;; n++) {
		line_batch &b = batches[static_cast<size_t>(n % nbatches)];
		{
			std::unique_lock<std::mutex> lk(mu);
			while (!(failed_at <= n || (b.seq == n && b.scanned))) {
				if (batch_free(nbatches))
					take_and_scan(lk, ctx, own_h, own_f, own_cleaner);
				else
					cv.wait(lk);
			}
			// Out of memory: end the source here and report it after.
			if (failed_at <= n)
				break;
		}
		// Hits were kept only where a rule beyond progress may match.
		auto hand_over = [&](std::string_view text, uint64_t no, uint32_t hit_begin, uint32_t hit_end,
				     int32_t facts, uint8_t rule_hit, uint8_t markers) {
			if (hit_end != hit_begin)
				h.hits.assign(b.hits.begin() + hit_begin, b.hits.begin() + hit_end);
			else
				h.hits.clear();
			rules.hit_ends(h);
			h.rule_hit = rule_hit;
			h.markers = markers;
			unpack_facts(b.facts[static_cast<size_t>(facts)], text, b.times, f);
			fn(text, no, &h, &f);
		};
		for (const auto &r : b.lines) {
			if (r.facts >= 0) {
				hand_over(std::string_view(b.text.data() + r.off, r.len), r.line_no, r.hit_begin, r.hit_end,
					  r.facts, r.rule_hit, r.markers);
				continue;
			}
			for (uint32_t k = r.seg_begin; k < r.seg_end; k++) {
				const auto &sr = b.segs[k];
				hand_over(std::string_view(b.seg_text.data() + sr.off, sr.len), r.line_no, sr.hit_begin,
					  sr.hit_end, sr.facts, sr.rule_hit, sr.markers);
			}
		}
		bool last = b.last;
		{
			std::lock_guard<std::mutex> lk(mu);
			consumed = n + 1;
		}
		cv.notify_all();
		if (last)
			break;
	}
	if (failed)
		std::rethrow_exception(failed); // the joiner joins on the way out
	return true;
}

} // namespace

void fill_event_from_match(event &e, const rule &r, const capture_list &caps, std::string_view body)
{
	e.r = &r;
	e.cls = r.cls;
	e.role = r.role;
	e.kind = r.kind;
	e.weight = r.weight;
	for (const auto &c : caps.items) {
		std::string_view name = c.first, v = c.second;
		if (name == "rank") {
			long long x = to_ll(v);
			if (x >= 0)
				e.rank = static_cast<int>(x);
		} else if (name == "local_rank") {
			long long x = to_ll(v);
			if (x >= 0)
				e.local_rank = static_cast<int>(x);
		} else if (name == "pid") {
			long long x = to_ll(v);
			if (x > 0)
				e.pid = static_cast<int>(x);
		} else if (name == "seq") {
			e.seq = to_ll(v);
		} else if (name == "last_enqueued") {
			e.last_enqueued = to_ll(v);
		} else if (name == "last_completed") {
			e.last_completed = to_ll(v);
		} else if (name == "xid") {
			e.xid = static_cast<int>(to_ll(v));
		} else if (name == "action") {
			e.recovery_action = static_cast<int>(to_ll(v, 0));
		} else if (name == "exitcode") {
			long long x = to_ll(v);
			if (!v.empty() && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')))
				e.exitcode = static_cast<int>(x);
		} else if (name == "signal") {
			e.signal = signal_number(v);
		}
		e.captures.emplace_back(std::string(name), std::string(v));
	}
	// A negative exit code is a signal (torchrun's "exitcode: -9").
	if (e.signal < 0 && e.exitcode != INT32_MIN && e.exitcode < 0)
		e.signal = -e.exitcode;
	e.text.assign(body.substr(0, max_event_text));
}

text_read_times text_read_timing()
{
	return read_times;
}

bool read_text_log(line_reader &lr, uint32_t file, source_kind kind, rule_set &rules, evidence &ev,
		   chosen_lines *ahead)
{
	// A large regular file is read event-first (event_scan.hh): only the
	// lines worth reading, chosen by a scan over whole buffers.
	std::vector<chosen_line> chosen;
	bool events_first = false;
	uint64_t file_size = 0;
	if (lr.fd() >= 0 && lr.line_no() == 0) {
		struct stat st;
		if (fstat(lr.fd(), &st) == 0 && S_ISREG(st.st_mode)) {
			file_size = static_cast<uint64_t>(st.st_size);
			if ((lr.max_bytes() == 0 || file_size <= lr.max_bytes()) && event_scan_pays(file_size)) {
				event_scan_stats es;
				if (ahead) {
					events_first = ahead->served;
					chosen = std::move(ahead->lines);
					es = ahead->stats;
				} else {
					events_first = choose_lines(lr.fd(), file_size, kind, rules, lr.max_line(), chosen, es);
				}
				read_times.scan_s += es.scan_s;
				read_times.tail_s += es.tail_s;
				read_times.context_s += es.context_s;
				read_times.fault_lines += es.hits;
				read_times.tail_bytes += es.tail_bytes;
				if (events_first)
					read_times.chosen_lines += chosen.size();
			}
		}
	}
	auto t0 = std::chrono::steady_clock::now();
	struct add_time {
		std::chrono::steady_clock::time_point t0;
		double &into;
		~add_time() { into += seconds_since(t0); }
	} timer{t0, events_first ? read_times.chosen_s : read_times.lines_s};
	line_cleaner cleaner;
	capture_list caps;
	prefix_hosts pdsh_hosts;
	line_hits hits, seg_hits, glued_hits;
	unsigned srcbit = kind == source_kind::kernel_log ? src_kernel : kind == source_kind::nccl_log ? src_nccl : src_log;
	std::unordered_map<uint64_t, uint32_t> writer_ids; // identity -> key
	std::vector<writer_state> writers;
	// Small ranks, labels and local ranks (nearly all writers) are found in
	// a flat table instead: no hashing, one small array.
	constexpr uint64_t flat_ids = 1 << 14;
	std::vector<uint32_t> flat_writer; // (kind-1)*flat_ids + id -> key+1 (0: none yet)
	auto find_writer = [&](uint64_t ident) -> uint32_t {
		uint64_t kind_no = ident >> 40, id = ident & ((1ull << 40) - 1);
		uint32_t *slot = nullptr;
		if (kind_no >= 1 && kind_no <= 3 && id < flat_ids) {
			if (flat_writer.empty())
				flat_writer.assign(3 * flat_ids, 0);
			slot = &flat_writer[(kind_no - 1) * flat_ids + id];
			if (*slot)
				return *slot - 1;
		} else {
			auto wit = writer_ids.find(ident);
			if (wit != writer_ids.end())
				return wit->second;
		}
		uint32_t key = static_cast<uint32_t>(writers.size());
		if (slot)
			*slot = key + 1;
		else
			writer_ids.emplace(ident, key);
		writers.emplace_back();
		writers.back().ident = ident;
		return key;
	};
	ts_value file_last_ts;
	uint64_t file_last_line = 0;
	std::vector<std::pair<int64_t, uint8_t>> written; // source_file::written
	int64_t written_newest[32]; // per reckoning (and read or not), the newest kept
	std::fill(std::begin(written_newest), std::end(written_newest), INT64_MIN);
	constexpr size_t max_written = 1u << 16;
	long open_smi = -1; // the nvidia-smi table being read (gpu_snapshots)
	// The file's last dated stamp: a stamp without a year (glog's "E0417
	// 02:39:21") beside dated ones ("2024-04-17 02:36:49") takes its year,
	// a time of day alone its date, so that times within the file compare.
	file_day file_date;
	bool dated_seen = false;
	// Events seen before the file's first timestamp: they happened no
	// later than it, so they take it when it comes.
	std::vector<long> untimed;
	int host_hint = ev.source(file).host_hint;
	// The pod or node a pasted command's output below is of
	// (reading/command_sections.hh), until the next command.
	int section_host = -1;
	// The step a progress line names, for its rank: the writer's rank, the
	// rank its text names, else its srun task. Only the last line counts.
	std::unordered_map<uint64_t, size_t> step_slot; // (is_task, id) -> rank_steps index
	auto note_step = [&](const writer_state &w, const rule *r, std::string_view body, uint64_t line) -> bool {
		std::string_view st = caps.get("step");
		if (st.empty() || st.size() > 15)
			return false;
		uint64_t kind_no = w.ident >> 40, wid = w.ident & ((1ull << 40) - 1);
		int id = kind_no == 1 ? static_cast<int>(wid) : rules.rank_in_text(body);
		bool is_task = false;
		if (id < 0 && kind_no == 2) {
			id = static_cast<int>(wid);
			is_task = true;
		}
		if (id < 0)
			return true;
		uint64_t k = (is_task ? 1ull << 40 : 0) | static_cast<uint64_t>(id);
		auto it = step_slot.find(k);
		if (it == step_slot.end()) {
			step_slot.emplace(k, ev.rank_steps.size());
			ev.rank_steps.push_back(rank_step_mark{file, id, is_task, to_ll(st), line, r});
		} else if (ev.rank_steps[it->second].line < line) {
			ev.rank_steps[it->second].step = to_ll(st);
			ev.rank_steps[it->second].line = line;
			ev.rank_steps[it->second].r = r;
		}
		return true;
	};
	// A progress line (or a candidate, read later) with its own time: the
	// interval since the writer's previous one (its pace: how long a
	// healthy wait between two lasts). A candidate's interval counts once a
	// progress line at or after its end is confirmed: not the wait before
	// a line that turns out to be no step (an error saying "loss").
	auto note_pace = [&](writer_state &w, const ts_value &t, bool own) {
		if (!own)
			return;
		const int64_t us = file_local_us(t);
		if (us == INT64_MIN)
			return;
		// (Not the first: the wait before the second step takes the
		// set-up's time too.)
		if (w.pace_prev_us != INT64_MIN && us > w.pace_prev_us && w.pace_seen++ > 0 &&
		    w.pace_open.size() < progress_ring * 2)
			w.pace_open.emplace_back(us, us - w.pace_prev_us);
		if (w.pace_prev_us == INT64_MIN || us > w.pace_prev_us)
			w.pace_prev_us = us;
	};
	auto confirm_pace = [&](writer_state &w) {
		if (w.pace_open.empty() || !w.progress_own_time)
			return;
		const int64_t upto = file_local_us(w.progress_ts);
		size_t kept = 0;
		for (const auto &iv : w.pace_open) {
			if (iv.first <= upto) {
				w.pace_longest_us = std::max(w.pace_longest_us, iv.second);
				w.pace_intervals++;
			} else {
				w.pace_open[kept++] = iv;
			}
		}
		w.pace_open.resize(kept);
	};
	// Settles a writer's progress candidates: the newest that matches wins.
	// A writer several ranks share (their ranks only in the text) has each
	// candidate's step read, for each rank's last.
	auto settle = [&](writer_state &w) {
		bool shared = (w.ident >> 40) != 1;
		bool found = false;
		bool stamped_found = false;
		bool stepping = true; // a shared writer's older candidates still step ranks
		for (size_t i = w.npending; i-- > 0;) {
			std::string_view body(w.pending_body.get() + i * progress_max_body, w.pending_len[i]);
			if (const rule *m = rules.match(body, srcbit, caps)) {
				if (stepping && (!note_step(w, m, body, w.pending_line[i]) || !shared))
					stepping = false;
				if (!w.first_progress_line || w.pending_line[i] < w.first_progress_line)
					w.first_progress_line = w.pending_line[i];
				if (!found) {
					w.progress_line = w.pending_line[i];
					w.progress_ts = w.pending_ts[i];
					w.progress_own_time = w.pending_own_time[i];
					w.progress_stamped = w.pending_stamped[i];
					w.progress_near_stamp = w.pending_near_stamp[i];
					confirm_pace(w);
					found = true;
				}
				if (w.pending_stamped[i] && !stamped_found) {
					w.stamped_progress_line = w.pending_line[i];
					w.stamped_progress_ts = w.pending_ts[i];
					stamped_found = true;
				}
				// (Older candidates still count for a shared writer's
				// steps, and for the last stamped one while the newest
				// had no stamp of its own, a few lines back at most.)
				const bool want_stamp = !stamped_found && w.progress_line - w.pending_line[i] < pace_since_stamp;
				// (Until the writer's first progress line is known, the
				// oldest candidates count too.)
				if (!stepping && !want_stamp && w.first_progress_line && w.first_progress_line < w.progress_line)
					break;
			}
		}
		w.npending = 0;
	};
	bool labels_not_ranks = false;
	rank_rounds rounds, task_rounds; // (srun's tasks are ranks or not: known later)
	stack_dump_reader stacks;
	stop_traceback_reader stop_tbs;
	int file_rank = -1; // the last line that named its rank in a prefix
	uint64_t file_rank_line = 0;
	std::string_view raw;

	uint64_t line_no = 0;
	{
		// seg is a piece of the raw line. h: the literal hits when seg is
		// the whole raw line (then lines that can matter nowhere are passed
		// over early); null to look at seg from scratch. pre: seg's facts
		// when a scanning thread found them already.
		line_facts own, glued_facts;
		// A bar with text glued after it was drawn before that text: the
		// line's time is the text's, no time of the bar's progress.
		bool in_glued_bar = false;
		// A progress line without a stamp a line or two after the file's
		// last stamped line, whose time it inherits (its writer's last is
		// that one, or it has none): it was drawn then.
		auto near_file_stamp = [&](const writer_state &w, bool stamped) {
			if (stamped || in_glued_bar || !file_last_line || line_no - file_last_line >= pace_since_stamp)
				return false;
			return w.last_ts.kind == ts_kind::none ||
			       (w.last_ts.kind == file_last_ts.kind && file_local_us(w.last_ts) == file_local_us(file_last_ts));
		};
		// A chain marker right after an exception: the next exception of
		// this writer continues it.
		auto note_chain = [&](writer_state &w, const capture_list &caps, uint64_t line_no) {
			bool inner = !caps.get("chain_inner").empty();
			if ((inner || !caps.get("chain").empty()) && w.last_exception >= 0 &&
			    line_no - w.last_exception_line <= 4) {
				w.chain_from = w.last_exception;
				w.chain_links.assign(1, w.last_exception);
				// (A chain of at most 16 links: a longer one is a loop's.)
				for (long l : w.last_exception_chain)
					if (w.chain_links.size() < 16)
						w.chain_links.push_back(l);
				w.chain_inner = inner;
			}
		};
		auto process = [&](std::string_view seg, const line_hits *h, const line_facts *pre) {
			if (h && !pre) {
				find_facts(seg, *h, kind, rules, own);
				pre = &own;
			}
			line_identity id;
			std::optional<ts_value> ts;
			if (pre) {
				// No rule's literal, no time and nothing for the prefix
				// flags: such a line changes nothing.
				if (pre->skip || (!h->rule_hit && !pre->may_ts && labels_not_ranks && !process_state_line(seg)))
					return;
				id = pre->id;
				ts = pre->ts;
			} else {
				id = identify(seg, kind == source_kind::kernel_log);
				ts = find_timestamp(seg);
			}
			if (kind != source_kind::kernel_log) {
				pdsh_hosts.apply(id);
				pdsh_hosts.learn(seg, id);
			}
			if (ts && !date_within_file(*ts, file_date))
				ts.reset();
			if (ts) {
				if (!dated_seen && (ts->kind == ts_kind::absolute || (ts->kind == ts_kind::local && ts->year > 0))) {
					dated_seen = true;
					ev.source(file).first_dated = *ts;
				}
			}
			if (id.task >= 0 && id.rank >= 0 && id.task != id.rank)
				labels_not_ranks = true;
			if (id.rank >= 0) {
				file_rank = id.rank;
				file_rank_line = line_no;
			}

			const uint64_t ident = writer_ident(id);
			uint32_t key = find_writer(ident);

			// Resolution to UTC happens later, with the node's context.
			const rule *r = nullptr;
			bool deferred = false;
			if (!h) {
				r = rules.match(id.body, srcbit, caps);
			} else if (h->rule_hit) {
				size_t off = static_cast<size_t>(id.body.data() - seg.data());
				int reach = pre->reach;
				if (reach == 1 && id.body.size() <= progress_max_body && writers.size() <= progress_max_writers) {
					writer_state &w = writers[key];
					if (w.npending == progress_ring)
						settle(w);
					if (!w.pending_body) {
						w.pending_body.reset(new char[progress_ring * progress_max_body]);
						w.pending_ts.reset(new ts_value[progress_ring]);
					}
					// A line without a time inherits as events do: the writer's last, else the file's.
					w.pending_ts[w.npending] = ts ? *ts : w.last_ts.kind != ts_kind::none ? w.last_ts : file_last_ts;
					w.pending_line[w.npending] = line_no;
					w.pending_len[w.npending] = static_cast<uint16_t>(id.body.size());
					w.pending_own_time[w.npending] = !in_glued_bar && (ts || w.last_ts.kind != ts_kind::none);
					w.pending_stamped[w.npending] = !in_glued_bar && ts;
					w.pending_near_stamp[w.npending] = near_file_stamp(w, ts.has_value());
					note_pace(w, w.pending_ts[w.npending], w.pending_own_time[w.npending]);
					memcpy(w.pending_body.get() + w.npending * progress_max_body, id.body.data(), id.body.size());
					w.npending++;
					deferred = true;
				} else if (reach) {
					r = rules.match_hits(id.body, off, *h, srcbit, caps);
				}
			}
			// (A new command's output bounds nothing printed above it.)
			if (kind != source_kind::kernel_log && shell_command_line(seg)) {
				untimed.clear();
				writers[key].described = -1;
				std::string_view named = command_section_host(seg);
				section_host = named.empty() ? -1 : ev.intern_host(named);
			}
			if (ts) {
				// (When the file wrote: a stamp a minute or more after the
				// newest kept, of its reckoning, apart for lines a rule
				// reads; a bounded record.)
				if (const int64_t us = file_local_us(*ts); us != INT64_MIN && written.size() < max_written) {
					const uint8_t rk = ts_reckoning(ts->kind, ts->year != 0) | (r || deferred ? written_read : 0);
					if (written_newest[rk] == INT64_MIN || us >= written_newest[rk] + us_per_s * 60) {
						written.emplace_back(us, rk);
						written_newest[rk] = us;
					}
				}
				writers[key].last_ts = *ts;
				writers[key].cont_rank = -1;
				file_last_ts = *ts;
				file_last_line = line_no;
				// Lines without a time since the last stamped line happened
				// no later than this one.
				for (long i : untimed) {
					event &u = ev.events[static_cast<size_t>(i)];
					u.ts_hi = *ts;
					u.inherited_time = true;
				}
				untimed.clear();
			}
			stacks.note(id.body, id.host, line_no);
			stop_tbs.note(key, id.rank, id.body, line_no);
			// (A rank's line in turn, by its prefix or by what its text says.)
			const ts_value *own_ts = ts && !in_glued_bar ? &*ts : nullptr;
			if (id.rank >= 0) {
				rounds.note(id.body, id.rank, line_no, own_ts);
			} else if (id.task >= 0) {
				task_rounds.note(id.body, id.task, line_no, own_ts);
			} else if (r && r->kind == rule_kind::rank_tag) {
				std::string_view said = caps.get("rank");
				if (!said.empty() && said.size() < 8)
					rounds.note(id.body, static_cast<int>(to_ll(said)), line_no, own_ts);
			} else if (h ? (h->markers & marker_rank) != 0
				     : id.body.find("[rank") != std::string_view::npos ||
					       id.body.find("[RANK") != std::string_view::npos) {
				// Any other line that names its rank in its text ("[rank 2]
				// epoch 1 iter 300/391 ...", a progress line): a round of
				// that rank's too.
				if (int said = rules.rank_in_text(id.body); said >= 0)
					rounds.note(id.body, said, line_no, own_ts);
			}
			if (deferred || !r)
				return;
			std::string_view khost;
			if (ts && kind == source_kind::kernel_log)
				khost = syslog_host(seg, *ts);
			if (r->kind == rule_kind::progress) {
				// Newer than every candidate waiting: those no longer matter
				// (but for the steps of other ranks on a shared writer).
				if (writers[key].npending && (writers[key].ident >> 40) != 1) {
					capture_list mine = caps;
					settle(writers[key]);
					caps = mine;
				}
				note_step(writers[key], r, id.body, line_no);
				writers[key].progress_line = line_no;
				if (!writers[key].first_progress_line)
					writers[key].first_progress_line = line_no;
				writers[key].progress_ts = ts                                        ? *ts
							   : writers[key].last_ts.kind != ts_kind::none ? writers[key].last_ts
												      : file_last_ts;
				writers[key].progress_own_time = !in_glued_bar && (ts || writers[key].last_ts.kind != ts_kind::none);
				writers[key].progress_stamped = !in_glued_bar && ts;
				writers[key].progress_near_stamp = near_file_stamp(writers[key], ts.has_value());
				if (writers[key].progress_stamped) {
					writers[key].stamped_progress_line = line_no;
					writers[key].stamped_progress_ts = *ts;
				}
				note_pace(writers[key], writers[key].progress_ts, writers[key].progress_own_time);
				confirm_pace(writers[key]);
				writers[key].npending = 0;
				return;
			}
			if (r->kind == rule_kind::rank_tag) {
				// Read for the rank of an event (rank_in_text); a process
				// named by its prefix's pid that says its rank is that rank.
				// (The rule that matched has read the rank already.)
				std::string_view said = caps.get("rank");
				if (id.pid > 0 && id.rank < 0 && !said.empty() && said.size() < 8 && !(id.ray_actor && r->engine_rank)) {
					int tr = static_cast<int>(to_ll(said));
					int h = id.host.empty() ? -1 : ev.intern_host(std::string(id.host));
					auto &tp = ev.tagged_pids[{h, id.pid}];
					tp.mixed = tp.mixed || (tp.lines > 0 && tp.rank != tr);
					tp.rank = tr;
					tp.lines++;
				}
				return;
			}
			if (r->kind == rule_kind::handled) {
				writer_state &hw = writers[key];
				// A frame of a launcher's signal handler: the exception that
				// ends its traceback is teardown (below), nothing before it.
				if (!caps.get("handler_frame").empty()) {
					hw.handler_frame_line = line_no;
					return;
				}
				hw.handled_line = line_no;
				hw.handled_rank = id.rank >= 0 ? id.rank : rules.rank_in_text(id.body, nullptr, id.ray_actor);
				// "attempting to recover" right after a fault: it was dealt
				// with (the first such line answers it: it is that fault's
				// rank's).
				// A fault answered once: a second such line is about what
				// comes next ("will retry", then its traceback).
				if (hw.last_event >= 0 && line_no - hw.last_event_line <= 4 &&
				    ev.events[static_cast<size_t>(hw.last_event)].role != event_role::context &&
				    !ev.events[static_cast<size_t>(hw.last_event)].handled) {
					event &dealt = ev.events[static_cast<size_t>(hw.last_event)];
					if (hw.handled_rank < 0)
						hw.handled_rank = dealt.rank;
					dealt.handled = true;
					// It answered that fault ("recovered from OOM,
					// continuing"): the traceback after it is a new one.
					if (!caps.get("answers").empty())
						hw.handled_line = 0;
				}
				return;
			}
			event e;
			fill_event_from_match(e, *r, caps, id.body);
			e.file = file;
			e.line = line_no;
			e.key = key;
			e.writer_known = ident != 0 && !host_writer(ident);
			// A launcher's [rankN] prefix is the global rank; "Rank R" in a
			// subgroup's watchdog line ([PG ID 3 ... Rank R]) is not.
			if (id.rank >= 0)
				e.rank = id.rank;
			else if (std::string_view pg = caps.get("pg"); !pg.empty() && pg != "0")
				e.rank = -1;
			else if (e.rank < 0)
				e.rank = body_rank(id.body);
			// A logger format may name the writer's host beside its rank.
			std::string text_host;
			// (A rank's word that its work is over is context, but whose it
			// is decides who left the others waiting.)
			if (e.rank < 0 && (e.role != event_role::context || !caps.get("left_early").empty()))
				e.rank = rules.rank_in_text(id.body, &text_host, id.ray_actor);
			// A message that runs over several lines ("[Rank 2] ... NCCL
			// error: ..., NCCL version X", then "ncclSystemError: ...",
			// "Last error:" and the NET/IB line, none stamped) is the rank's
			// of its first line (a rule's `continues` capture).
			writer_state &cw = writers[key];
			// Under a victim's message ("remote process exited ...") the
			// cause it quotes is what that victim saw of another's fault.
			// A process's end and a line naming its own pid, local rank,
			// node or job ("srun: error: Node failure on gpu-b07",
			// "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=...")
			// are another writer's (the launcher's), not the message's.
			bool own_writer = e.kind == rule_kind::task_exit || e.kind == rule_kind::job_end ||
					  !caps.get("pid").empty() || !caps.get("local_rank").empty() ||
					  !caps.get("host").empty() || !caps.get("job").empty() ||
					  !caps.get("relayed_by").empty() || id.pid >= 0;
			// (A launcher's prefix may name the rank on every line of it,
			// "[rank11]:Last error:": the same message all the same where
			// what it quotes is a link's failure, the peer's end of it; a
			// CUDA failure quoted there is the rank's own.)
			const bool quoted_link = e.rank == cw.cont_rank && e.cls == failure_class::network;
			if ((e.rank < 0 || quoted_link) && !ts && !own_writer && cw.cont_rank >= 0 &&
			    line_no - cw.cont_line <= cont_lines) {
				e.rank = cw.cont_rank;
				if (cw.cont_victim && e.role == event_role::initiating)
					e.role = event_role::victim;
			}
			e.task = id.task;
			if (e.local_rank < 0)
				e.local_rank = id.local_rank;
			if (e.pid < 0 && id.pid >= 0)
				e.pid = id.pid;
			e.cuda_dev = id.cuda_dev;
			std::string_view host = !khost.empty() ? khost : id.host;
			if (!caps.get("host").empty())
				host = caps.get("host");
			else if (host.empty() && !text_host.empty())
				host = text_host;
			// (A node's own fault there, the node low on memory, stays the
			// node's: its "Node:" line says which.)
			if (host.empty() && cw.described >= 0 && line_no - cw.described_line <= describe_block_lines &&
			    r->scope != rule::fault_scope::node)
				e.host = cw.described;
			else
				e.host = !host.empty() ? ev.intern_host(host) : section_host >= 0 ? section_host : host_hint;
			if (ts) {
				e.ts = *ts;
			} else {
				// No time on the line: take the writer's last known one.
				// The file's last time bounds it too: a line written below
				// another was written after it (srun's undated "Node failure"
				// after hours of its tasks' stamped lines).
				const ts_value &own = writers[key].last_ts;
				const ts_value &inherit = own.kind == ts_kind::none ? file_last_ts
							  : later_in_file(file_last_ts, own) ? file_last_ts
							  : own;
				if (inherit.kind != ts_kind::none) {
					e.ts = inherit;
					e.inherited_time = true;
				}
			}
			writer_state &w = writers[key];
			if (r->kind == rule_kind::traceback) {
				w.open_tracebacks = w.traceback_line && line_no - w.traceback_line < 200 ? std::min(w.open_tracebacks + 1, 64) : 1;
				w.traceback_line = line_no;
				w.traceback_handled = w.handled_line && line_no - w.handled_line <= 2;
				w.traceback_at_startup = false;
				w.traceback_finite_check = false;
				// An unprefixed traceback right after a header that names
				// a rank (logger.exception under "[RANK 5] ... failed",
				// spawn's "-- Process 6 terminated") is that rank's.
				// So is one whose own line names its rank in a logger
				// format ("[<time> TP5] ... hit an exception: Traceback").
				w.tb_owner = -1;
				w.tb_owner_local = false;
				w.tb_relayed = false;
				int own_rank = id.rank < 0 ? rules.rank_in_text(id.body, nullptr, id.ray_actor) : -1;
				// A traceback one rank relays for another (DCP's "Traceback
				// (most recent call last): (RANK 5)", printed by every rank).
				bool headed = false; // a header (or the line itself) names its rank
				if (std::string_view o = caps.get("origin_rank"); !o.empty()) {
					w.tb_owner = static_cast<int>(to_ll(o));
					w.tb_relayed = true;
				} else if (own_rank >= 0) {
					w.tb_owner = own_rank;
					headed = true;
				} else if (w.tb_rank >= 0 && line_no - w.tb_rank_line <= 2) {
					w.tb_owner = w.tb_rank;
					w.tb_owner_local = w.tb_rank_local;
					headed = true;
				} else if (ident == 0 && file_rank >= 0 && line_no - file_rank_line <= 2)
					w.tb_owner = file_rank;
				// Lines several ranks share: a handler's line of one rank
				// says nothing of the traceback another rank's header opens.
				if (w.traceback_handled && headed && w.handled_rank >= 0 && w.tb_owner != w.handled_rank)
					w.traceback_handled = false;
				note_chain(w, caps, line_no);
				return;
			}
			note_chain(w, caps, line_no);
			// The exception that ends a relayed traceback is the origin's:
			// its process and host, a rank only through them. (Not a
			// wrapper's of its own, "ActorDiedError: ...": the lines after
			// it name the process it is about.)
			if (r->kind == rule_kind::exception && w.tb_origin_line && w.tb_origin_line < line_no &&
			    line_no - w.tb_origin_line < 2000 && caps.get("opens_traceback").empty()) {
				if ((w.tb_origin_pid >= 0 || w.tb_origin_host >= 0) && r->role != event_role::victim) {
					e.rank = -1;
					e.pid = w.tb_origin_pid;
					e.host = w.tb_origin_host;
					e.captures.emplace_back("relayed", "1");
				}
				w.tb_origin_line = 0;
			}
			std::string_view tr = caps.get("tb_rank"), tl = caps.get("tb_local_rank");
			if (!tr.empty() || !tl.empty()) {
				w.tb_rank = static_cast<int>(to_ll(tr.empty() ? tl : tr));
				w.tb_rank_line = line_no;
				w.tb_rank_local = tr.empty();
			} else if (w.tb_owner >= 0 &&
				   (r->kind == rule_kind::exception ||
				    // A fault line that ends the traceback ("OSError: [Errno 5] ..."
				    // read by a plain rule) is the traceback's too.
				    (r->role != event_role::context && w.traceback_line && line_no - w.traceback_line < 2000))) {
				// (It ends no process of this writer: see common_mode.)
				if (w.tb_relayed)
					e.captures.emplace_back("relayed", "1");
				if (w.tb_relayed && e.rank != w.tb_owner)
					e.host = -1; // the relaying writer's host is not the origin's
				if (e.rank < 0 || w.tb_relayed) {
					e.rank = w.tb_owner;
					// The global rank on a job of one node; on several,
					// host_resolution places the local one on its node.
					if (w.tb_owner_local) {
						e.local_rank = w.tb_owner;
						e.captures.emplace_back("spawn_local", "1");
					}
				}
				w.tb_owner = -1;
				w.tb_owner_local = false;
				w.tb_relayed = false;
			}
			std::vector<long> links; // the chain this exception continues
			// Whether the line ends a traceback: an exception line, or a
			// fault line another rule read (a chain may start at either).
			bool ends_traceback = false;
			if (r->kind == rule_kind::exception && w.chain_from >= 0) {
				// One rank for the whole chain: whichever link named it.
				links = std::move(w.chain_links);
				int chain_rank = e.rank;
				for (long l : links)
					if (chain_rank < 0)
						chain_rank = ev.events[static_cast<size_t>(l)].rank;
				if (chain_rank >= 0) {
					e.rank = e.rank < 0 ? chain_rank : e.rank;
					for (long l : links)
						if (ev.events[static_cast<size_t>(l)].rank < 0)
							ev.events[static_cast<size_t>(l)].rank = chain_rank;
				}
				// The link that only reports the other (a wrapper, a
				// handler's own failure) is no root of its own.
				event &prev = ev.events[static_cast<size_t>(w.chain_from)];
				// The links are one failure up to this line: what the
				// writer printed between them (a bar glued to the next
				// "Traceback") is no progress after the first.
				for (long l : links)
					ev.events[static_cast<size_t>(l)].chained_until = line_no;
				// (Where the cause is only a generic exception, a socket's
				// ConnectionRefusedError, and the link it caused says what
				// failed, a RendezvousConnectionError: that link names it.)
				bool generic_cause = prev.r && prev.r->id == "python.exception" && r->id != "python.exception" &&
						     e.role == event_role::initiating;
				if ((w.chain_inner && e.role == event_role::initiating) || (!w.chain_inner && generic_cause))
					prev.decoy = true;
				else if (!w.chain_inner && prev.role == event_role::initiating && !prev.dropped)
					e.decoy = true;
				w.chain_from = -1;
				w.chain_links.clear();
			}
			if (w.traceback_line && !caps.get("init_frame").empty())
				w.traceback_at_startup = true;
			// (A frame's line is the statement it ran: an assertion there is
			// the last frame's, the one that failed.)
			if (w.traceback_line && !caps.get("finite_check").empty())
				w.traceback_finite_check = true;
			// A fault line another rule read ("OSError: [Errno 28] ...")
			// ends an open traceback as an exception line does.
			ends_traceback = r->kind == rule_kind::exception ||
					 (r->role != event_role::context && w.traceback_line &&
					  line_no - w.traceback_line < 2000 && rules.shaped_as_exception(id.body));
			if (ends_traceback) {
				// Remember whether a traceback of this writer led here, and
				// whether a handler printed it.
				if (w.traceback_line && line_no - w.traceback_line < 2000) {
					e.captures.emplace_back("traceback_line", std::to_string(w.traceback_line));
					// An AssertionError of a check that the values were
					// finite: the values were not.
					if (w.traceback_finite_check && e.cls == failure_class::python_exception &&
					    caps.get("exc").size() >= 14 &&
					    caps.get("exc").substr(caps.get("exc").size() - 14) == "AssertionError")
						e.cls = failure_class::nan_inf;
					if (w.traceback_handled) {
						e.decoy = true;
						e.why_not = "a handler printed its traceback (it said it retried, skipped or recovered)";
					}
					if (w.traceback_at_startup)
						e.at_startup = true;
				}
				// Another process's traceback still open on this writer
				// (unprefixed output of several ranks): it ends later.
				if (w.open_tracebacks > 1) {
					w.open_tracebacks--;
				} else {
					w.traceback_line = 0;
					w.open_tracebacks = 0;
					w.traceback_handled = false;
					w.traceback_at_startup = false;
					w.traceback_finite_check = false;
				}
			} else if (w.traceback_handled && e.role == event_role::initiating && w.traceback_line &&
				   line_no - w.traceback_line < 2000) {
				// A fault line that ends a traceback a handler printed
				// ("will retry", then "OSError: [Errno 28] ...") was caught
				// with it.
				e.decoy = true;
				e.why_not = "a handler printed it (it said it retried, skipped or recovered)";
				w.traceback_handled = false;
			}
			// One failure, one phase: a chain whose later link was raised
			// inside the set-up (an import) makes its cause a set-up
			// failure too (a library that failed to load, re-raised as a
			// version mismatch by the import that loaded it).
			if (e.at_startup)
				for (long l : links)
					ev.events[static_cast<size_t>(l)].at_startup = true;
			// A wrapper whose own line heads the traceback it re-raises
			// (Ray's "RayTaskError(X): ray::task() (pid=, ip=)", the
			// worker's frames and X below it): a traceback opens here.
			if (!caps.get("opens_traceback").empty()) {
				w.traceback_line = line_no;
				w.open_tracebacks = 1;
				w.traceback_handled = false;
				w.traceback_at_startup = false;
				std::string_view op = caps.get("pid"), oh = caps.get("host");
				w.tb_origin_pid = op.empty() ? -1 : static_cast<int>(to_ll(op));
				w.tb_origin_host = oh.empty() ? -1 : ev.intern_host(oh);
				w.tb_origin_line = line_no;
			}
			// torchrun's failure block: "rank : R (local_rank: L)" then
			// "exitcode : X (pid: P)" tie a global rank to a pid.
			// Its "host : H" line, just before, says where.
			if (std::string_view bh = caps.get("block_host"); !bh.empty()) {
				w.block_host = ev.intern_host(bh);
				w.block_host_line = line_no;
			}
			// kubectl describe: a "Name:" that a "Node: name/ip" follows
			// names a pod, whose block the lines below are.
			if (std::string_view dn = caps.get("describe_name"); !dn.empty()) {
				w.describe_name = std::string(dn);
				w.describe_name_line = line_no;
				w.described = -1;
			} else if (!caps.get("job_node").empty() && w.describe_name_line &&
				   line_no - w.describe_name_line <= describe_head_lines) {
				w.described = ev.intern_host(w.describe_name);
				w.described_line = line_no;
				w.describe_name_line = 0;
				// (The pod's node: one name of the pod's machine.)
				e.captures.emplace_back("described_pod", w.describe_name);
			}
			// Open MPI's --display-map: a node's block, then its ranks, one
			// per line (a blank or two between them at most).
			if (std::string_view mn = caps.get("map_node"); !mn.empty()) {
				w.map_node = ev.intern_host(mn);
				w.map_line = line_no;
			} else if (std::string_view mr = caps.get("map_rank"); !mr.empty()) {
				if (w.map_node >= 0 && line_no - w.map_line <= 3 && mr.size() < 8) {
					rank_info ri;
					ri.rank = static_cast<int>(to_ll(mr));
					ri.host = w.map_node;
					ev.ranks.add(ri);
					w.map_line = line_no;
				} else {
					w.map_node = -1;
				}
			}
			if (r->role == event_role::context && e.rank >= 0 && e.pid < 0 && e.kind == rule_kind::plain) {
				w.block_rank = e.rank;
				w.block_rank_line = line_no;
			} else if (r->role == event_role::context && e.rank < 0 && e.pid > 0 && w.block_rank >= 0 &&
				   line_no - w.block_rank_line <= 2) {
				rank_info ri;
				ri.rank = w.block_rank;
				ri.pid = e.pid;
				// The line's own prefix (pdsh's address) first: the events
				// of this writer are keyed by it.
				ri.host = e.host >= 0 ? e.host
					  : w.block_host >= 0 && w.block_rank_line - w.block_host_line <= 2 ? w.block_host : -1;
				ev.ranks.add(ri);
				w.block_rank = -1;
			}
			// A communicator smaller than the world seen (a tensor-parallel
			// group, a pipeline pair, an RL trainer's weight-sync group)
			// numbers its ranks within itself: no global rank to map.
			const long long comm_size = r->kind == rule_kind::rank_map ? to_ll(caps.get("nranks")) : 0;
			if (comm_size > 0 && comm_size < ev.ranks.world_size()) {
				e.rank = -1;
			} else if (r->kind == rule_kind::rank_map) {
				rank_info ri;
				ri.rank = e.rank;
				ri.host = e.host;
				ri.pid = e.pid;
				ri.cuda_dev = id.cuda_dev;
				std::string_view cd = caps.get("cuda_dev");
				if (!cd.empty())
					ri.cuda_dev = static_cast<int>(to_ll(cd));
				std::string_view bus = caps.get("busid");
				if (!bus.empty())
					ri.busid = normalise_busid(bus);
				ri.local_rank = e.local_rank;
				ev.ranks.add(ri);
				std::string_view nr = caps.get("nranks");
				if (!nr.empty())
					ev.ranks.note_world_size(static_cast<int>(to_ll(nr)));
			}
			// (After the traceback's owner is known: an unprefixed message
			// under "[Rank 3] Exception ..." and its traceback is rank 3's.)
			if (e.rank >= 0 && !caps.get("continues").empty()) {
				w.cont_rank = e.rank;
				w.cont_line = line_no;
				w.cont_victim = e.role == event_role::victim;
			}
			if (r->kind == rule_kind::exception && w.handler_frame_line && line_no - w.handler_frame_line <= 3)
				e.handled = true;
			// (A line past recovery, a capture gives_up, skips nothing:
			// "skipping step, reducing loss scale to 0.0".)
			if (e.role == event_role::initiating && caps.get("gives_up").empty() && rules.says_handled(id.body))
				e.handled = true;
			if (e.role == event_role::initiating && rules.says_startup(id.body))
				e.at_startup = true;
			// TensorFlow's "X: Graph execution error:" wraps the failing
			// op's own message in the lines below it: a victim's message
			// there ("Horovod has been shut down") makes the wrapper a
			// victim too. Another exception ends the wait.
			if (w.wrapper_exc >= 0 && line_no - w.wrapper_line > wrapper_lines)
				w.wrapper_exc = -1;
			if (w.wrapper_exc >= 0 && e.role == event_role::victim) {
				event &wx = ev.events[static_cast<size_t>(w.wrapper_exc)];
				if (wx.role == event_role::initiating) {
					wx.role = event_role::victim;
					wx.cls = e.cls; // one error: the wrapped one's
					wx.why_not = "the error it wraps is a victim's";
				}
				w.wrapper_exc = -1;
			} else if (w.wrapper_exc >= 0 && e.role == event_role::initiating && r->kind == rule_kind::exception &&
				   e.cls != failure_class::python_exception && e.cls != failure_class::unknown) {
				// A wrapped error of a kind of its own (non-finite values,
				// memory) is the error; the wrapper only carried it.
				event &wx = ev.events[static_cast<size_t>(w.wrapper_exc)];
				if (wx.role == event_role::initiating && wx.cls == failure_class::python_exception) {
					wx.role = event_role::victim;
					wx.cls = e.cls;
					wx.why_not = "it wraps the error below it";
				}
				w.wrapper_exc = -1;
			} else if (ends_traceback) {
				w.wrapper_exc = -1;
			}
			// nvidia-smi's table: its date on its banner's line or just
			// above it (the "+---" rule between), its process rows below.
			if (!caps.get("smi_banner").empty() && ev.gpu_snapshots.size() < 64) {
				gpu_snapshot g;
				g.file = file;
				g.line = line_no;
				g.host = e.host;
				if (ts)
					g.ts = *ts;
				else if (file_last_ts.kind != ts_kind::none && file_last_line + 3 >= line_no)
					g.ts = file_last_ts;
				ev.gpu_snapshots.push_back(std::move(g));
				open_smi = static_cast<long>(ev.gpu_snapshots.size()) - 1;
			} else if (std::string_view util = caps.get("smi_util"); !util.empty() && ts && ev.gpu_samples.size() < 4096) {
				gpu_sample g;
				g.file = file;
				g.line = line_no;
				g.ts = *ts;
				g.util = static_cast<int>(to_ll(util));
				ev.gpu_samples.push_back(std::move(g));
			} else if (std::string_view pid = caps.get("smi_pid"); !pid.empty() && open_smi >= 0) {
				gpu_snapshot &g = ev.gpu_snapshots[static_cast<size_t>(open_smi)];
				if (line_no - g.line <= 120 && g.pids.size() < 256)
					g.pids.push_back(static_cast<int>(to_ll(pid)));
			}
			const bool wraps = !caps.get("wraps").empty();
			bool timeless = !ts;
			long idx = ev.add(std::move(e));
			if (timeless && idx >= 0)
				untimed.push_back(idx);
			if (idx >= 0) {
				if (wraps) {
					w.wrapper_exc = idx;
					w.wrapper_line = line_no;
				}
				w.last_event = idx;
				w.last_event_line = line_no;
				if (ends_traceback) {
					w.last_exception = idx;
					w.last_exception_line = line_no;
					w.last_exception_chain = std::move(links);
				}
			}
		};
		// A segment with its literal hits: one scan found every literal
		// in it, and a prefix's literals are told apart by where they
		// start. Pieces split off a glued segment are looked at afresh.
		auto segment = [&](std::string_view seg, const line_hits *h, const line_facts *pre) {
			if (!(h->markers & (marker_rate | marker_rank))) {
				process(seg, h, pre);
				return;
			}
			// The text glued after a bar is the same writer's where it
			// names none of its own (the line's prefix came before the
			// bar): "1: [rank5]: 46%|##| 5/9 [00:04<00:03, 1.2it/s]Traceback".
			bool first = true;
			line_identity lead;
			split_glued(seg, [&](std::string_view piece) {
				if (piece.size() == seg.size()) {
					process(piece, h, pre);
					return;
				}
				// Every piece but the last ends where more text was glued on.
				in_glued_bar = piece.data() + piece.size() < seg.data() + seg.size();
				rules.scan_line(piece, glued_hits);
				find_facts(piece, glued_hits, kind, rules, glued_facts);
				line_identity &id = glued_facts.id;
				if (first) {
					lead = id;
					first = false;
				} else if (!glued_facts.skip && id.task < 0 && id.rank < 0 && id.local_rank < 0 && id.pid < 0 &&
					   id.host.empty() &&
					   piece.substr(0, static_cast<size_t>(id.body.data() - piece.data())).find_first_not_of(' ') ==
						   std::string_view::npos) {
					id.task = lead.task;
					id.rank = lead.rank;
					id.local_rank = lead.local_rank;
					id.pid = lead.pid;
					id.host = lead.host;
					id.ray_actor = lead.ray_actor;
				}
				process(piece, &glued_hits, &glued_facts);
				in_glued_bar = false;
			});
		};
		// One raw line. pre: its literal hits when it is plain (no control
		// bytes; found by the caller), else null.
		auto handle = [&](std::string_view line, const line_hits *pre, const line_facts *facts) {
			if (pre) {
				// A plain line is its own only segment.
				segment(line, pre, facts);
				return;
			}
			cleaner.for_each_segment(line, [&](std::string_view seg) {
				rules.scan_line(seg, seg_hits);
				segment(seg, &seg_hits, nullptr);
			});
		};

		// One raw line as the plain loop reads it.
		auto feed = [&](std::string_view line) {
			if (has_control(line)) {
				handle(line, nullptr, nullptr);
				return;
			}
			rules.scan_line(line, hits);
			handle(line, &hits, nullptr);
		};
		if (events_first) {
			std::vector<char> buf;
			uint64_t buf_off = 0;
			for (size_t ci = 0; ci < chosen.size(); ci++) {
				const chosen_line &l = chosen[ci];
				if (buf.empty() || l.off < buf_off || l.off + l.len > buf_off + buf.size()) {
					// Up to the end of the last chosen line of this
					// cluster (lines at most 16 KiB apart, 256 KiB in
					// all): not a whole window, since the chosen lines
					// lie in clusters far apart, and a log with a fault
					// every few tens of kilobytes was read a second time
					// whole.
					uint64_t stop = l.off + l.len;
					for (size_t k = ci + 1; k < chosen.size() && chosen[k].off >= l.off &&
								chosen[k].off <= stop + 16 * 1024 &&
								chosen[k].off + chosen[k].len <= l.off + 256 * 1024;
					     k++)
						stop = std::max<uint64_t>(stop, chosen[k].off + chosen[k].len);
					size_t want = static_cast<size_t>(std::min<uint64_t>(stop - l.off, file_size - l.off));
					buf.resize(want);
					ssize_t got = 0;
					size_t have = 0;
					while (have < want && (got = pread(lr.fd(), buf.data() + have, want - have,
									   static_cast<off_t>(l.off + have))) != 0) {
						if (got < 0) {
							if (errno == EINTR)
								continue;
							break;
						}
						have += static_cast<size_t>(got);
					}
					buf.resize(have);
					buf_off = l.off;
					if (have < l.len)
						break; // a file shortened under us: what was read stands
				}
				line_no = l.line_no;
				std::string_view line(buf.data() + (l.off - buf_off), l.len);
				if (!line.empty())
					feed(line);
			}
		} else {
			day_lookback lookback;
			// Reads what was held: with the date a dated stamp gave (d),
			// or without.
			auto replay = [&](const ts_value *d) {
				if (d && !lookback.sods.empty()) {
					file_date.date = lookback.first_day(*d);
					file_date.local_sod = lookback.sods.front();
				}
				lookback.holding = false;
				lookback.done = true;
				for (const auto &l : lookback.held) {
					line_no = l.no;
					feed(l.text);
				}
				lookback.held.clear();
				lookback.held.shrink_to_fit();
			};
			auto take = [&](std::string_view line, uint64_t no, const line_hits *pre, const line_facts *facts) {
				if (!lookback.done) {
					std::optional<ts_value> t = facts ? facts->ts
									  : may_have_timestamp(line) ? find_timestamp(line)
												     : std::nullopt;
					const bool dated = t && (t->kind == ts_kind::absolute || (t->kind == ts_kind::local && t->year > 0));
					if (!lookback.holding && dated) {
						lookback.done = true;
					} else if (!lookback.holding && t && t->kind == ts_kind::time_of_day && file_date.local_sod < 0) {
						lookback.holding = true;
					}
					if (lookback.holding) {
						lookback.held.push_back({std::string(line), no});
						lookback.bytes += line.size();
						if (t && t->kind == ts_kind::time_of_day)
							lookback.sods.push_back(t->hour * 3600 + t->minute * 60 + t->second);
						if (dated)
							replay(t->kind == ts_kind::local ? &*t : nullptr);
						else if (lookback.bytes > day_lookback::max_bytes)
							replay(nullptr);
						return;
					}
				}
				line_no = no;
				handle(line, pre, facts);
			};
			if (!scan_ahead(lr, kind, rules,
					[&](std::string_view line, uint64_t no, const line_hits *pre, const line_facts *facts) {
						take(line, no, pre, facts);
					})) {
				while (lr.next(raw)) {
					if (raw.empty())
						continue;
					if (has_control(raw)) {
						take(raw, lr.line_no(), nullptr, nullptr);
						continue;
					}
					rules.scan_line(raw, hits);
					take(raw, lr.line_no(), &hits, nullptr);
				}
			}
			if (lookback.holding)
				replay(nullptr);
		}
	}
	for (uint32_t k = 0; k < writers.size(); k++) {
		writer_state &w = writers[k];
		settle(w);
		if (w.progress_line) {
			ev.last_progress[writer_key(file, k)] = w.progress_line;
			ev.first_progress[writer_key(file, k)] = w.first_progress_line;
		}
		if (w.progress_line && w.progress_ts.kind != ts_kind::none) {
			progress_mark m;
			m.file = file;
			m.key = k;
			m.line = w.progress_line;
			m.ts = w.progress_ts;
			m.stamped = w.progress_stamped;
			if (!m.stamped && w.stamped_progress_line && w.progress_line - w.stamped_progress_line < pace_since_stamp)
				m.stamped_ts = w.stamped_progress_ts;
			else if (!m.stamped && w.progress_near_stamp)
				m.stamped_ts = w.progress_ts;
			uint64_t kind_no = w.ident >> 40, id = w.ident & ((1ull << 40) - 1);
			if (kind_no == 1)
				m.rank = static_cast<int>(id);
			else if (kind_no == 2)
				m.task = static_cast<int>(id);
			ev.progress_marks.push_back(m);
		}
		const int64_t progress_us = w.progress_own_time ? file_local_us(w.progress_ts) : INT64_MIN;
		if (w.progress_line && progress_us != INT64_MIN) {
			ev.last_progress_us[writer_key(file, k)] = progress_us;
			uint64_t kind_no = w.ident >> 40;
			if (kind_no == 1 || kind_no == 2)
				ev.rank_progress.push_back(rank_progress_mark{file, static_cast<int>(w.ident & ((1ull << 40) - 1)),
									      kind_no == 2, progress_us});
		}
	}
	// (Not when only the lines that can be events were looked at: a
	// rank's other lines were not counted.)
	if (!events_first) {
		rounds.conclude(file, ev.round_gaps);
		rounds.conclude_lone_phase(file, false, ev.lone_phases);
		task_rounds.conclude_lone_phase(file, true, ev.lone_phases);
		rounds.conclude_ahead(file, false, ev.ahead_rounds);
		task_rounds.conclude_ahead(file, true, ev.ahead_rounds);
		ev.round_ranks = std::max(ev.round_ranks, rounds.most_ranks());
		stacks.conclude(file, ev.stack_dumps);
		stop_tbs.conclude(file, ev.stop_tracebacks);
		const size_t ranks_end = ev.round_gaps.size();
		task_rounds.conclude(file, ev.round_gaps);
		for (size_t i = ranks_end; i < ev.round_gaps.size(); i++)
			ev.round_gaps[i].is_task = true;
	}
	source_file &sf = ev.source(file);
	sf.last_stamp = file_last_ts;
	sf.last_stamp_line = file_last_line;
	sf.written = std::move(written);
	// The steadiest writer's pace: one that stepped often enough to have
	// one, with the shortest longest interval (a writer that logs once per
	// epoch has a slow pace of its own; the silence is everyone's).
	for (const writer_state &w : writers)
		if (w.pace_intervals >= min_pace_intervals &&
		    (sf.pace_intervals == 0 || w.pace_longest_us < sf.pace_longest_us)) {
			sf.pace_longest_us = w.pace_longest_us;
			sf.pace_intervals = w.pace_intervals;
		}
	if (events_first) {
		// Every byte was looked at by the scan.
		sf.bytes_read = file_size;
		sf.bytes_skipped = 0;
		sf.labels_are_not_ranks = labels_not_ranks;
		return true;
	}
	sf.bytes_read = lr.bytes_read();
	sf.bytes_skipped = lr.bytes_skipped();
	sf.labels_are_not_ranks = labels_not_ranks;
	return lr.error() == 0;
}

} // namespace diag
