#include "text_log_reader.hh"

#include "line_prefix.hh"
#include "line_reader.hh"
#include "text_clean.hh"

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <unordered_map>

namespace diag {

namespace {

constexpr size_t max_event_text = 600;

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
	std::string_view rest = line.substr(ts.end);
	while (!rest.empty() && (rest[0] == ' ' || rest[0] == ']'))
		rest.remove_prefix(1);
	size_t sp = rest.find(' ');
	if (sp == std::string_view::npos || sp == 0 || sp > 63)
		return {};
	std::string_view host = rest.substr(0, sp);
	std::string_view after = rest.substr(sp + 1);
	size_t colon = after.find(':');
	if (colon == std::string_view::npos || colon > 40)
		return {};
	// The tag is "kernel", "slurmd[123]", ...: no spaces before the colon.
	if (after.substr(0, colon).find(' ') != std::string_view::npos)
		return {};
	return host;
}

// A progress bar redraws without a newline, so the next writer's line is
// glued to it ("... 1.37it/s, loss=2.6][rank3]:Traceback ..."): split after
// the bar, and before a rank prefix that starts mid-line.
template <typename F>
void split_glued(std::string_view seg, F &&fn)
{
	for (int guard = 0; guard < 64 && !seg.empty(); guard++) {
		size_t cut = std::string_view::npos;
		for (std::string_view unit : {std::string_view("it/s"), std::string_view("s/it")}) {
			size_t u = seg.find(unit);
			while (u != std::string_view::npos) {
				size_t close = seg.find(']', u);
				if (close != std::string_view::npos && close - u < 160 && close + 1 < seg.size()) {
					cut = std::min(cut, close + 1);
					break;
				}
				u = seg.find(unit, u + 1);
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

struct writer_state {
	ts_value last_ts;                // last time seen on this writer (kind none: never)
	uint64_t traceback_line = 0;     // open traceback (0: none)
	uint64_t handled_line = 0;       // last "will retry"/"skipping" line
	bool traceback_handled = false;  // the open traceback follows a handler's line
	// A torchrun failure block names "rank : R" then "exitcode : X (pid: P)".
	int block_rank = -1;
	uint64_t block_rank_line = 0;
};

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

bool read_text_log(line_reader &lr, uint32_t file, source_kind kind, rule_set &rules, evidence &ev)
{
	line_cleaner cleaner;
	capture_list caps;
	unsigned srcbit = kind == source_kind::kernel_log ? src_kernel : kind == source_kind::nccl_log ? src_nccl : src_log;
	std::unordered_map<uint64_t, uint32_t> writer_ids; // identity -> key
	std::vector<writer_state> writers;
	ts_value file_last_ts;
	// Events seen before the file's first timestamp: they happened no
	// later than it, so they take it when it comes.
	std::vector<long> untimed;
	int host_hint = ev.source(file).host_hint;
	bool labels_not_ranks = false;
	std::string_view raw;

	while (lr.next(raw)) {
		uint64_t line_no = lr.line_no();
		auto process = [&](std::string_view seg) {
			line_identity id;
			if (kind == source_kind::kernel_log)
				id.body = seg;
			else
				id = parse_prefix(seg);
			if (id.task >= 0 && id.rank >= 0 && id.task != id.rank)
				labels_not_ranks = true;

			// The writer: a rank, else a task label, else a local rank, else a host.
			uint64_t ident = id.rank >= 0 ? (1ull << 40) | static_cast<uint64_t>(id.rank)
					 : id.task >= 0 ? (2ull << 40) | static_cast<uint64_t>(id.task)
					 : id.local_rank >= 0 ? (3ull << 40) | static_cast<uint64_t>(id.local_rank)
					 : id.pid >= 0 ? (4ull << 40) | static_cast<uint64_t>(id.pid)
					 : 0;
			auto wit = writer_ids.find(ident);
			uint32_t key;
			if (wit == writer_ids.end()) {
				key = static_cast<uint32_t>(writers.size());
				writer_ids.emplace(ident, key);
				writers.emplace_back();
			} else {
				key = wit->second;
			}

			// Resolution to UTC happens later, with the node's context.
			auto ts = find_timestamp(seg);
			std::string_view khost;
			if (ts && kind == source_kind::kernel_log)
				khost = syslog_host(seg, *ts);
			const rule *r = rules.match(id.body, srcbit, caps);
			if (ts) {
				writers[key].last_ts = *ts;
				file_last_ts = *ts;
				// Lines without a time since the last stamped line happened
				// no later than this one.
				for (long i : untimed) {
					event &u = ev.events[static_cast<size_t>(i)];
					u.ts_hi = *ts;
					u.inherited_time = true;
				}
				untimed.clear();
			}
			if (!r)
				return;
			if (r->kind == rule_kind::progress) {
				ev.last_progress[writer_key(file, key)] = line_no;
				return;
			}
			if (r->kind == rule_kind::handled) {
				writers[key].handled_line = line_no;
				return;
			}
			event e;
			fill_event_from_match(e, *r, caps, id.body);
			e.file = file;
			e.line = line_no;
			e.key = key;
			e.writer_known = ident != 0;
			// A launcher's [rankN] prefix is the global rank; "Rank R" in a
			// subgroup's watchdog line ([PG ID 3 ... Rank R]) is not.
			if (id.rank >= 0)
				e.rank = id.rank;
			else if (std::string_view pg = caps.get("pg"); !pg.empty() && pg != "0")
				e.rank = -1;
			else if (e.rank < 0)
				e.rank = body_rank(id.body);
			e.task = id.task;
			if (e.local_rank < 0)
				e.local_rank = id.local_rank;
			if (e.pid < 0 && id.pid >= 0)
				e.pid = id.pid;
			std::string_view host = !khost.empty() ? khost : id.host;
			if (!caps.get("host").empty())
				host = caps.get("host");
			e.host = host.empty() ? host_hint : ev.intern_host(host);
			if (ts) {
				e.ts = *ts;
			} else {
				// No time on the line: take the writer's last known one.
				const ts_value &inherit = writers[key].last_ts.kind != ts_kind::none ? writers[key].last_ts : file_last_ts;
				if (inherit.kind != ts_kind::none) {
					e.ts = inherit;
					e.inherited_time = true;
				}
			}
			writer_state &w = writers[key];
			if (r->kind == rule_kind::traceback) {
				w.traceback_line = line_no;
				w.traceback_handled = w.handled_line && line_no - w.handled_line <= 2;
				return;
			}
			if (r->kind == rule_kind::exception) {
				// Remember whether a traceback of this writer led here, and
				// whether a handler printed it.
				if (w.traceback_line && line_no - w.traceback_line < 2000) {
					e.captures.emplace_back("traceback_line", std::to_string(w.traceback_line));
					if (w.traceback_handled)
						e.decoy = true;
				}
				w.traceback_line = 0;
				w.traceback_handled = false;
			}
			// torchrun's failure block: "rank : R (local_rank: L)" then
			// "exitcode : X (pid: P)" tie a global rank to a pid.
			if (r->role == event_role::context && e.rank >= 0 && e.pid < 0 && e.kind == rule_kind::plain) {
				w.block_rank = e.rank;
				w.block_rank_line = line_no;
			} else if (r->role == event_role::context && e.rank < 0 && e.pid > 0 && w.block_rank >= 0 &&
				   line_no - w.block_rank_line <= 2) {
				rank_info ri;
				ri.rank = w.block_rank;
				ri.pid = e.pid;
				ri.host = e.host;
				ev.ranks.add(ri);
				w.block_rank = -1;
			}
			if (r->kind == rule_kind::rank_map) {
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
			bool timeless = !ts;
			long idx = ev.add(std::move(e));
			if (timeless && idx >= 0)
				untimed.push_back(idx);
		};
		cleaner.for_each_segment(raw, [&](std::string_view seg) { split_glued(seg, process); });
	}
	source_file &sf = ev.source(file);
	sf.bytes_read = lr.bytes_read();
	sf.bytes_skipped = lr.bytes_skipped();
	sf.labels_are_not_ranks = labels_not_ranks;
	return lr.error() == 0;
}

} // namespace diag
