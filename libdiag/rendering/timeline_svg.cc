#include "rendering/timeline_svg.hh"

#include "aligning/progress_clock.hh"
#include "rendering/markup_escape.hh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace diag {

namespace {

// What the picture says about one rank, on the common clock.
struct rank_facts {
	int rank = -1;
	int host = -1;
	int64_t progress = no_time;
	std::string progress_where;
	long first_error = -1; // events index
	long watchdog = -1;
	bool victim = false;
};

// One row: a rank, a node's kernel lane, a node or a band of nodes.
struct row {
	std::string label;
	std::string detail; // second line (aggregated rows)
	std::vector<const rank_facts *> members;
	std::vector<int> hosts; // whose kernel events it shows
	bool initiating = false;
};

constexpr const char *color_progress = "#2e7d32";
constexpr const char *color_error = "#ef6c00";
constexpr const char *color_watchdog = "#6a1b9a";
constexpr const char *color_kernel = "#1565c0";
constexpr const char *color_first = "#c62828";
constexpr const char *color_victim = "#ffe0b8";
constexpr const char *color_first_row = "#fbd3d3";

std::string esc(std::string_view s) { return markup_escape(s); }

std::string fmt(const char *f, double a)
{
	char b[64];
	snprintf(b, sizeof(b), f, a);
	return b;
}

std::string time_label(int64_t us, bool with_ms)
{
	char buf[40];
	format_utc_ms(us, buf, sizeof(buf));
	std::string s = buf; // YYYY-MM-DDTHH:MM:SS.mmmZ
	if (s.size() >= 23)
		return with_ms ? s.substr(11, 12) : s.substr(11, 8);
	return s;
}

std::string full_time(int64_t us)
{
	char buf[40];
	format_utc_ms(us, buf, sizeof(buf));
	return buf;
}

std::string rank_list(std::vector<int> r)
{
	if (r.empty())
		return "";
	std::sort(r.begin(), r.end());
	std::string s;
	size_t i = 0, shown = 0;
	while (i < r.size()) {
		size_t j = i;
		while (j + 1 < r.size() && r[j + 1] == r[j] + 1)
			j++;
		if (shown++ == 3) {
			s += ", …";
			break;
		}
		s += (s.empty() ? "" : ", ") + std::to_string(r[i]) + (j > i ? "–" + std::to_string(r[j]) : "");
		i = j + 1;
	}
	return s;
}

std::string rule_of(const event &e) { return e.r ? e.r->id : e.rule_id; }

std::string event_title(const evidence &ev, const event &e, const char *what)
{
	std::string t = what;
	if (e.rank >= 0)
		t += " · rank " + std::to_string(e.rank);
	if (e.host >= 0)
		t += " on " + ev.host_name(e.host);
	if (e.time_us != no_time)
		t += " · " + full_time(e.time_us);
	t += " · " + rule_of(e);
	if (std::string w = ev.where(e); !w.empty())
		t += " · " + w;
	t += "\n" + e.text.substr(0, 300);
	return t;
}

class painter {
public:
	painter(const evidence &ev, const verdict &v, const timeline_svg_options &o) : p_ev(ev), p_v(v), p_o(o) {}
	std::string paint();

private:
	void gather();
	void lay_out();
	void span(int64_t t)
	{
		if (t == no_time)
			return;
		p_t0 = std::min(p_t0, t);
		p_t1 = std::max(p_t1, t);
	}
	double x(int64_t t) const
	{
		double f = p_t1 > p_t0 ? static_cast<double>(t - p_t0) / static_cast<double>(p_t1 - p_t0) : 0.5;
		return p_left + f * (p_o.width - p_left - p_right);
	}
	void draw_row(std::string &out, const row &r, double y, double h);
	void marker(std::string &out, char kind, double cx, double cy, const std::string &title, int count = 1);
	const event &event_at(long i) const { return p_ev.events[static_cast<size_t>(i)]; }

	const evidence &p_ev;
	const verdict &p_v;
	const timeline_svg_options &p_o;
	std::map<int, rank_facts> p_ranks;
	std::map<int, std::vector<long>> p_kernel; // host -> kernel events
	std::vector<row> p_rows;
	bool p_aggregate = false;
	long p_first = -1;
	// The first rank and host: the initiating event's, or the verdict's
	// when structure (a hang) named a rank without an event of its own.
	int p_first_rank = -1, p_first_host = -1;
	int64_t p_t0 = INT64_MAX, p_t1 = INT64_MIN;
	double p_left = 230, p_right = 24;
};

void painter::gather()
{
	const evidence &ev = p_ev;
	if (p_v.first_event >= 0 && static_cast<size_t>(p_v.first_event) < ev.events.size())
		p_first = p_v.first_event;
	auto facts = [&](int r) -> rank_facts & {
		rank_facts &f = p_ranks[r];
		f.rank = r;
		return f;
	};
	for (const auto &ri : ev.ranks.all())
		if (ri.first >= 0)
			facts(ri.first).host = ri.second.host;
	for (int r : p_v.victims)
		facts(r).victim = true;
	for (size_t i = 0; i < ev.events.size(); i++) {
		const event &e = ev.events[i];
		if (e.dropped || e.time_us == no_time)
			continue;
		if (e.file < ev.sources().size() && ev.sources()[e.file].kind == source_kind::kernel_log && e.host >= 0) {
			p_kernel[e.host].push_back(static_cast<long>(i));
			span(e.time_us);
			continue;
		}
		if (e.rank < 0)
			continue;
		rank_facts &f = facts(e.rank);
		if (f.host < 0)
			f.host = e.host;
		long idx = static_cast<long>(i);
		if (e.kind == rule_kind::watchdog) {
			if (f.watchdog < 0 || e.time_us < event_at(f.watchdog).time_us)
				f.watchdog = idx;
			span(e.time_us);
		} else if (e.role != event_role::context && !e.decoy) {
			if (f.first_error < 0 || e.time_us < event_at(f.first_error).time_us)
				f.first_error = idx;
			span(e.time_us);
		}
	}
	progress_clock pc(ev);
	for (const progress_mark &m : ev.progress_marks) {
		int r = m.rank >= 0 ? m.rank : ev.tasks_are_ranks ? m.task : -1;
		if (r < 0)
			continue;
		rank_facts &f = facts(r);
		// (The verdict's word on the host's clock, where it has one.)
		int64_t offset = INT64_MIN;
		if (f.host >= 0) {
			auto c = p_v.clock.find(ev.host_name(f.host));
			if (c != p_v.clock.end())
				offset = static_cast<int64_t>(std::llround(c->second.offset_s * 1e6));
		}
		int64_t t = pc.time_of(m, offset);
		if (t == no_time || (f.progress != no_time && f.progress >= t))
			continue;
		f.progress = t;
		f.progress_where = (m.file < ev.sources().size() ? ev.sources()[m.file].path : std::string("?")) + ":" + std::to_string(m.line);
		span(t);
	}
	if (p_first >= 0) {
		span(event_at(p_first).time_us);
		p_first_rank = event_at(p_first).rank;
		p_first_host = event_at(p_first).host;
	} else if (p_v.has_first) {
		p_first_rank = p_v.first_rank;
		for (size_t h = 0; h < ev.host_count(); h++)
			if (!p_v.first_host.empty() && ev.host_name(static_cast<int>(h)) == p_v.first_host)
				p_first_host = static_cast<int>(h);
		if (p_first_rank >= 0 && p_ranks.count(p_first_rank) && p_first_host < 0)
			p_first_host = p_ranks[p_first_rank].host;
	}
}

void painter::lay_out()
{
	const evidence &ev = p_ev;
	int first_rank = p_first_rank, first_host = p_first_host;
	// Nodes in the order of their lowest rank; kernel-only nodes after.
	std::map<int, std::vector<const rank_facts *>> by_host;
	for (const auto &rf : p_ranks)
		by_host[rf.second.host].push_back(&rf.second);
	for (const auto &k : p_kernel)
		by_host[k.first];
	std::vector<int> hosts;
	for (const auto &h : by_host)
		hosts.push_back(h.first);
	auto low = [&](int h) { return by_host[h].empty() ? INT32_MAX : by_host[h].front()->rank; };
	std::stable_sort(hosts.begin(), hosts.end(), [&](int a, int b) { return low(a) < low(b); });
	auto host_label = [&](int h) { return h >= 0 ? ev.host_name(h) : std::string("host unknown"); };
	auto ranks_of = [&](const std::vector<const rank_facts *> &m) {
		std::vector<int> r;
		for (const auto *f : m)
			r.push_back(f->rank);
		return r;
	};

	// Many ranks, or many nodes with kernel logs and few known ranks.
	p_aggregate = p_ranks.size() > p_o.max_rank_rows || p_ranks.size() + p_kernel.size() > p_o.max_rank_rows + 16;
	if (!p_aggregate) {
		for (int h : hosts) {
			if (p_kernel.count(h)) {
				row k;
				k.label = host_label(h) + " · kernel";
				k.hosts = {h};
				k.initiating = first_rank < 0 && h == first_host;
				p_rows.push_back(k);
			}
			for (const auto *f : by_host[h]) {
				row r;
				r.label = "rank " + std::to_string(f->rank) + (h >= 0 ? " · " + host_label(h) : "");
				r.members = {f};
				r.initiating = f->rank == first_rank && first_rank >= 0;
				p_rows.push_back(r);
			}
		}
		return;
	}
	auto node_row = [&](const std::vector<int> &hs) {
		row r;
		size_t victims = 0;
		for (int h : hs) {
			for (const auto *f : by_host[h]) {
				r.members.push_back(f);
				victims += f->victim;
			}
			if (p_kernel.count(h))
				r.hosts.push_back(h);
		}
		r.label = hs.size() == 1 ? host_label(hs[0])
					 : host_label(hs.front()) + " … " + host_label(hs.back()) + " (" + std::to_string(hs.size()) + " nodes)";
		r.detail = std::to_string(r.members.size()) + " ranks";
		if (!r.members.empty())
			r.detail += " " + rank_list(ranks_of(r.members));
		if (victims)
			r.detail += " · " + std::to_string(victims) + " victims";
		return r;
	};
	// The first rank keeps a row of its own, and its node is never in a band.
	if (first_rank >= 0 && p_ranks.count(first_rank)) {
		row r;
		const rank_facts &f = p_ranks.at(first_rank);
		r.label = "rank " + std::to_string(first_rank) + (f.host >= 0 ? " · " + host_label(f.host) : "");
		r.detail = "the first rank";
		r.members = {&f};
		r.initiating = true;
		p_rows.push_back(r);
	}
	std::vector<int> rest;
	for (int h : hosts) {
		if (h == first_host && first_host >= 0) {
			row r = node_row({h});
			r.initiating = first_rank < 0;
			p_rows.push_back(r);
		} else {
			rest.push_back(h);
		}
	}
	size_t band = rest.size() <= p_o.max_node_rows ? 1 : (rest.size() + p_o.max_node_rows - 1) / p_o.max_node_rows;
	for (size_t i = 0; i < rest.size(); i += band)
		p_rows.push_back(node_row(std::vector<int>(rest.begin() + static_cast<long>(i),
							   rest.begin() + static_cast<long>(std::min(rest.size(), i + band)))));
}

void painter::marker(std::string &out, char kind, double cx, double cy, const std::string &title, int count)
{
	out += "<g class=\"mark-";
	out += kind == 'p' ? "progress" : kind == 'e' ? "error" : kind == 'w' ? "watchdog" : "kernel";
	out += "\"><title>" + esc(title) + "</title>";
	std::string X = fmt("%.1f", cx), Y = fmt("%.1f", cy);
	switch (kind) {
	case 'p':
		out += "<rect x=\"" + fmt("%.1f", cx - 1.5) + "\" y=\"" + fmt("%.1f", cy - 6) + "\" width=\"3\" height=\"12\" fill=\"" +
		       color_progress + "\"/>";
		break;
	case 'e':
		out += "<circle cx=\"" + X + "\" cy=\"" + Y + "\" r=\"4.5\" fill=\"" + color_error + "\"/>";
		break;
	case 'w':
		out += "<path d=\"M" + fmt("%.1f", cx - 5) + " " + fmt("%.1f", cy + 4) + " L" + X + " " + fmt("%.1f", cy - 5) + " L" +
		       fmt("%.1f", cx + 5) + " " + fmt("%.1f", cy + 4) + " Z\" fill=\"" + color_watchdog + "\"/>";
		break;
	default:
		out += "<rect x=\"" + fmt("%.1f", cx - 4) + "\" y=\"" + fmt("%.1f", cy - 4) + "\" width=\"8\" height=\"8\" fill=\"" +
		       color_kernel + "\"/>";
	}
	if (count > 1)
		out += "<text x=\"" + fmt("%.1f", cx + 7) + "\" y=\"" + fmt("%.1f", cy - 4) + "\" font-size=\"9\" fill=\"#333\">×" +
		       std::to_string(count) + "</text>";
	out += "</g>";
}

void painter::draw_row(std::string &out, const row &r, double y, double h)
{
	size_t victims = 0;
	for (const auto *f : r.members)
		victims += f->victim;
	std::vector<int> ranks;
	for (const auto *f : r.members)
		ranks.push_back(f->rank);
	out += "<g class=\"row" + std::string(r.initiating ? " first" : "") + "\" data-ranks=\"" + esc(rank_list(ranks)) + "\">";
	double w = p_o.width;
	if (r.initiating)
		out += "<rect x=\"0\" y=\"" + fmt("%.1f", y) + "\" width=\"" + fmt("%.0f", w) + "\" height=\"" + fmt("%.1f", h) +
		       "\" fill=\"" + color_first_row + "\"/>";
	else if (victims)
		out += "<rect class=\"victim\" x=\"0\" y=\"" + fmt("%.1f", y) + "\" width=\"" + fmt("%.0f", w) + "\" height=\"" +
		       fmt("%.1f", h) + "\" fill=\"" + color_victim + "\" fill-opacity=\"" +
		       fmt("%.2f", std::max(0.3, static_cast<double>(victims) / static_cast<double>(r.members.size()))) + "\"/>";
	double cy = y + (r.detail.empty() ? h / 2 : h / 2);
	bool two = !r.detail.empty();
	out += "<text x=\"8\" y=\"" + fmt("%.1f", two ? y + 12 : y + h / 2 + 4) + "\" font-size=\"11\"" +
	       (r.initiating ? " font-weight=\"bold\"" : "") + " fill=\"#111\">" + esc(r.label) + "</text>";
	if (two)
		out += "<text x=\"8\" y=\"" + fmt("%.1f", y + 25) + "\" font-size=\"9\" fill=\"#555\">" + esc(r.detail) + "</text>";

	// Per kind: one mark at the earliest time, a bar to the latest, a count.
	auto spread = [&](char kind, std::vector<std::pair<int64_t, std::string>> ts, const char *color, const char *what) {
		if (ts.empty())
			return;
		std::sort(ts.begin(), ts.end());
		if (ts.size() > 1 && ts.back().first > ts.front().first)
			out += "<line x1=\"" + fmt("%.1f", x(ts.front().first)) + "\" x2=\"" + fmt("%.1f", x(ts.back().first)) + "\" y1=\"" +
			       fmt("%.1f", cy) + "\" y2=\"" + fmt("%.1f", cy) + "\" stroke=\"" + color + "\" stroke-width=\"3\" stroke-opacity=\"0.45\"/>";
		std::string title = ts.size() == 1 ? ts.front().second
						   : std::to_string(ts.size()) + " × " + what + ", " + full_time(ts.front().first) + " to " +
							     full_time(ts.back().first) + "; earliest:\n" + ts.front().second;
		marker(out, kind, x(ts.front().first), cy, title, static_cast<int>(ts.size()));
	};
	std::vector<std::pair<int64_t, std::string>> prog, err, wd, kern;
	for (const auto *f : r.members) {
		if (f->progress != no_time)
			prog.push_back({f->progress, "last progress · rank " + std::to_string(f->rank) + " · " + full_time(f->progress) +
							     " · " + f->progress_where});
		if (f->first_error >= 0)
			err.push_back({event_at(f->first_error).time_us, event_title(p_ev, event_at(f->first_error), "first error")});
		if (f->watchdog >= 0)
			wd.push_back({event_at(f->watchdog).time_us, event_title(p_ev, event_at(f->watchdog), "watchdog timeout")});
	}
	spread('p', prog, color_progress, "last progress");
	spread('w', wd, color_watchdog, "watchdog timeouts");
	spread('e', err, color_error, "first errors");
	for (int hst : r.hosts) {
		const auto &ks = p_kernel.at(hst);
		// Every kernel event of a node, up to a few; the rest in the tooltip count.
		size_t shown = 0;
		for (long i : ks) {
			if (shown++ == 12)
				break;
			marker(out, 'k', x(event_at(i).time_us), cy, event_title(p_ev, event_at(i), "kernel"));
		}
	}
	out += "</g>\n";
}

std::string painter::paint()
{
	gather();
	lay_out();
	bool have_time = p_t0 <= p_t1;
	if (!have_time)
		p_t0 = p_t1 = 0;
	// A little air on both sides; one second at least.
	int64_t pad = std::max<int64_t>((p_t1 - p_t0) / 20, 500000);
	p_t0 -= pad;
	p_t1 += pad;
	double row_h = p_aggregate ? 32 : 18;
	double top = 70, width = p_o.width;
	double rows_h = static_cast<double>(p_rows.size()) * row_h;
	std::vector<std::string> clock_lines;
	{
		std::vector<std::pair<double, std::string>> cl;
		for (const auto &c : p_v.clock)
			cl.push_back({std::fabs(c.second.offset_s),
				      c.first + " " + fmt("%+.3f s", c.second.offset_s) + fmt(" ±%.3f", c.second.uncertainty_s)});
		std::stable_sort(cl.begin(), cl.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
		std::string line;
		size_t shown = 0;
		for (const auto &c : cl) {
			if (shown == 12) {
				line += "  … and " + std::to_string(cl.size() - shown) + " more hosts within " + fmt("±%.3f s", c.first);
				break;
			}
			if (line.size() + c.second.size() > 150) {
				clock_lines.push_back(line);
				line.clear();
			}
			line += (line.empty() ? "" : "   ") + c.second;
			shown++;
		}
		if (!line.empty())
			clock_lines.push_back(line);
		if (clock_lines.empty())
			clock_lines.push_back("none: one host, or nothing to align on");
	}
	double legend_y = top + rows_h + 22;
	double height = legend_y + 40 + 14.0 * static_cast<double>(clock_lines.size());

	std::string out;
	out.reserve(64 * 1024);
	out += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"denpex-timeline\" width=\"" + fmt("%.0f", width) + "\" height=\"" +
	       fmt("%.0f", height) + "\" viewBox=\"0 0 " + fmt("%.0f", width) + " " + fmt("%.0f", height) +
	       "\" font-family=\"sans-serif\" role=\"img\" aria-label=\"timeline of the failure\">\n";
	out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
	std::string title = "Timeline on the common clock (UTC) · " + std::to_string(p_ranks.size()) + " ranks";
	if (p_aggregate)
		title += " in " + std::to_string(p_rows.size()) + " rows (nodes and bands of nodes)";
	out += "<text x=\"8\" y=\"18\" font-size=\"13\" font-weight=\"bold\" fill=\"#111\">" + esc(title) + "</text>\n";

	// Time axis: about eight round ticks.
	if (have_time) {
		double span_s = static_cast<double>(p_t1 - p_t0) / 1e6;
		static const double steps[] = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300,
					       600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400};
		double step = steps[sizeof(steps) / sizeof(steps[0]) - 1];
		for (double s : steps)
			if (span_s / s <= 8) {
				step = s;
				break;
			}
		int64_t st = static_cast<int64_t>(step * 1e6);
		int64_t t = (p_t0 / st + 1) * st;
		out += "<g class=\"axis\">";
		for (; t < p_t1; t += st) {
			double xx = x(t);
			out += "<line x1=\"" + fmt("%.1f", xx) + "\" x2=\"" + fmt("%.1f", xx) + "\" y1=\"" + fmt("%.1f", top - 6) + "\" y2=\"" +
			       fmt("%.1f", top + rows_h) + "\" stroke=\"#e0e0e0\"/>";
			out += "<text x=\"" + fmt("%.1f", xx) + "\" y=\"" + fmt("%.1f", top - 9) +
			       "\" font-size=\"10\" text-anchor=\"middle\" fill=\"#444\">" + time_label(t, step < 1) + "</text>";
		}
		out += "</g>\n";
		out += "<text x=\"8\" y=\"" + fmt("%.0f", top - 9) + "\" font-size=\"10\" fill=\"#666\">" + esc(full_time(p_t0 + pad).substr(0, 10)) +
		       " (UTC)</text>\n";
	}
	for (size_t i = 0; i < p_rows.size(); i++) {
		double y = top + static_cast<double>(i) * row_h;
		if (i % 2 && !p_rows[i].initiating)
			out += "<rect x=\"0\" y=\"" + fmt("%.1f", y) + "\" width=\"" + fmt("%.0f", width) + "\" height=\"" + fmt("%.1f", row_h) +
			       "\" fill=\"#f6f6f6\"/>";
		draw_row(out, p_rows[i], y, row_h);
	}
	out += "<line x1=\"" + fmt("%.0f", p_left - 6) + "\" x2=\"" + fmt("%.0f", p_left - 6) + "\" y1=\"" + fmt("%.0f", top) + "\" y2=\"" +
	       fmt("%.0f", top + rows_h) + "\" stroke=\"#bbb\"/>\n";

	// The initiating event, over everything else. Without one (a rank
	// that stopped while the others waited), the first rank's own last
	// sign of life is marked.
	int64_t first_t = no_time;
	std::string first_title, first_what;
	if (p_first >= 0) {
		first_t = event_at(p_first).time_us;
		first_title = event_title(p_ev, event_at(p_first), "initiating event");
	} else if (p_first_rank >= 0 && p_ranks.count(p_first_rank)) {
		const rank_facts &f = p_ranks.at(p_first_rank);
		first_t = f.progress != no_time ? f.progress : f.first_error >= 0 ? event_at(f.first_error).time_us
							 : f.watchdog >= 0   ? event_at(f.watchdog).time_us
									     : no_time;
		first_what = p_v.cause.size() > 70 ? p_v.cause.substr(0, 69) + "…" : p_v.cause;
		first_title = "the first rank, named by structure: " + p_v.summary;
	}
	if (p_first_rank >= 0 || p_first >= 0) {
		bool timed = have_time && first_t != no_time;
		double xx = timed ? x(first_t) : p_left + 10;
		double yy = top + row_h / 2;
		for (size_t i = 0; i < p_rows.size(); i++)
			if (p_rows[i].initiating) {
				yy = top + static_cast<double>(i) * row_h + row_h / 2;
				break;
			}
		out += "<g class=\"initiating\" data-rank=\"" + (p_first_rank >= 0 ? std::to_string(p_first_rank) : std::string()) +
		       "\" data-host=\"" + (p_first_host >= 0 ? esc(p_ev.host_name(p_first_host)) : std::string()) + "\"><title>" +
		       esc(first_title) + "</title>";
		if (timed)
			out += "<line x1=\"" + fmt("%.1f", xx) + "\" x2=\"" + fmt("%.1f", xx) + "\" y1=\"42\" y2=\"" +
			       fmt("%.1f", top + rows_h) + "\" stroke=\"" + color_first + "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>";
		out += "<circle cx=\"" + fmt("%.1f", xx) + "\" cy=\"" + fmt("%.1f", yy) + "\" r=\"8\" fill=\"none\" stroke=\"" + color_first +
		       "\" stroke-width=\"2.5\"/>";
		out += "<circle cx=\"" + fmt("%.1f", xx) + "\" cy=\"" + fmt("%.1f", yy) + "\" r=\"3\" fill=\"" + color_first + "\"/>";
		std::string lbl = "first: " + (p_first_rank >= 0 ? "rank " + std::to_string(p_first_rank) : std::string("node")) +
				  (p_first_host >= 0 ? " on " + p_ev.host_name(p_first_host) : "") +
				  (first_what.empty() ? "" : " · " + first_what) + (timed ? " · " + time_label(first_t, true) : "");
		// Right of the line unless it would run off the picture.
		bool right = xx + 8 + 6.2 * static_cast<double>(lbl.size()) < width || xx < width / 2;
		out += "<text x=\"" + fmt("%.1f", right ? xx + 6 : xx - 6) + "\" y=\"38\" font-size=\"11\" font-weight=\"bold\" fill=\"" +
		       color_first + "\"" + (right ? "" : " text-anchor=\"end\"") + ">" + esc(lbl) + "</text>";
		out += "</g>\n";
	}

	// Legend and clock corrections.
	out += "<g class=\"legend\" font-size=\"10\" fill=\"#333\">";
	double lx = 8, ly = legend_y;
	auto item = [&](char kind, const char *text) {
		std::string m;
		marker(m, kind, lx + 5, ly - 3, text);
		out += m + "<text x=\"" + fmt("%.1f", lx + 14) + "\" y=\"" + fmt("%.1f", ly) + "\">" + text + "</text>";
		lx += 26 + 5.6 * static_cast<double>(std::char_traits<char>::length(text));
	};
	item('p', "last progress");
	item('e', "first error");
	item('w', "watchdog timeout");
	item('k', "kernel event on the node");
	out += "<circle cx=\"" + fmt("%.1f", lx + 5) + "\" cy=\"" + fmt("%.1f", ly - 3) + "\" r=\"5\" fill=\"none\" stroke=\"" + color_first +
	       "\" stroke-width=\"2\"/><text x=\"" + fmt("%.1f", lx + 14) + "\" y=\"" + fmt("%.1f", ly) + "\">initiating event</text>";
	lx += 110;
	out += "<rect x=\"" + fmt("%.1f", lx) + "\" y=\"" + fmt("%.1f", ly - 9) + "\" width=\"12\" height=\"10\" fill=\"" + color_victim +
	       "\"/><text x=\"" + fmt("%.1f", lx + 16) + "\" y=\"" + fmt("%.1f", ly) + "\">victims (shade: share of the row)</text>";
	out += "</g>\n<g class=\"clock\" font-size=\"10\" fill=\"#333\"><text x=\"8\" y=\"" + fmt("%.1f", legend_y + 22) +
	       "\" font-weight=\"bold\">Clock corrections (host clock − common clock):</text>";
	for (size_t i = 0; i < clock_lines.size(); i++)
		out += "<text x=\"8\" y=\"" + fmt("%.1f", legend_y + 36 + 14.0 * static_cast<double>(i)) + "\">" + esc(clock_lines[i]) +
		       "</text>";
	out += "</g>\n</svg>\n";
	return out;
}

} // namespace

std::string timeline_svg(const evidence &ev, const verdict &v, const timeline_svg_options &opts)
{
	painter p(ev, v, opts);
	return p.paint();
}

} // namespace diag
