#include "clock.hh"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <vector>

namespace diag {

namespace {

double median(std::vector<double> v)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A reference instant for year inference: the job start when sacct gave
// it, else the first absolute time seen, else now.
int64_t pick_reference(const evidence &ev)
{
	if (ev.job.start_us != no_time)
		return ev.job.start_us;
	if (ev.job.end_us != no_time)
		return ev.job.end_us;
	for (const auto &e : ev.events)
		if (e.ts.kind == ts_kind::absolute)
			return e.ts.epoch_us;
	for (const auto &e : ev.events)
		if (e.ts.kind == ts_kind::local) {
			ts_context c;
			if (auto v = resolve_timestamp(e.ts, c))
				return *v;
		}
	return static_cast<int64_t>(time(nullptr)) * us_per_s;
}

} // namespace

double clock_result::uncertainty(int host) const
{
	auto it = hosts.find(host);
	if (it == hosts.end() || it->second.anchors == 0)
		return default_uncertainty_s;
	return it->second.uncertainty_s;
}

clock_result align_clocks(evidence &ev, const clock_options &opts)
{
	clock_result cr;
	cr.reference_us = pick_reference(ev);
	for (auto &e : ev.events) {
		if (e.ts.kind == ts_kind::none)
			continue;
		ts_context ctx;
		ctx.reference_us = cr.reference_us;
		ctx.tz_offset_s = opts.default_tz_offset_s;
		auto bt = ev.boot_time.find(e.host);
		if (bt != ev.boot_time.end())
			ctx.boot_epoch_us = bt->second;
		if (auto v = resolve_timestamp(e.ts, ctx))
			e.raw_us = *v;
	}

	// Anchors: watchdog timeouts of one collective fire at (nearly) the same
	// true moment on every rank that waited in it (start + timeout).
	std::map<long long, std::map<int, std::vector<double>>> by_seq; // seq -> host -> times
	for (const auto &e : ev.events) {
		if (e.kind != rule_kind::watchdog || e.seq < 0 || e.host < 0 || e.raw_us == no_time || e.inherited_time)
			continue;
		by_seq[e.seq][e.host].push_back(static_cast<double>(e.raw_us) / 1e6);
	}
	std::map<int, std::vector<double>> host_offsets;
	for (const auto &s : by_seq) {
		if (s.second.size() < 2)
			continue;
		std::vector<double> host_medians;
		std::map<int, double> per_host;
		for (const auto &h : s.second) {
			double m = median(h.second);
			per_host[h.first] = m;
			host_medians.push_back(m);
		}
		double common = median(host_medians);
		for (const auto &h : per_host)
			host_offsets[h.first].push_back(h.second - common);
	}
	for (const auto &h : host_offsets) {
		host_clock hc;
		hc.offset_s = median(h.second);
		hc.anchors = static_cast<int>(h.second.size());
		std::vector<double> dev;
		for (double o : h.second)
			dev.push_back(std::fabs(o - hc.offset_s));
		// Watchdog polling and enqueue jitter bound how well one anchor
		// can pin a clock.
		hc.uncertainty_s = std::max(0.25, 1.4826 * median(dev));
		cr.hosts[h.first] = hc;
	}
	// Report offsets against one host (the one nearest the consensus), so
	// that a reader sees "node01 0.0, node03 -4.81".
	if (!cr.hosts.empty()) {
		int ref = cr.hosts.begin()->first;
		for (const auto &h : cr.hosts)
			if (std::fabs(h.second.offset_s) < std::fabs(cr.hosts[ref].offset_s))
				ref = h.first;
		double shift = cr.hosts[ref].offset_s;
		for (auto &h : cr.hosts)
			h.second.offset_s -= shift;
	}
	cr.aligned = host_offsets.size() >= 2;
	for (size_t h = 0; h < ev.host_count(); h++)
		if (!cr.hosts.count(static_cast<int>(h)))
			cr.hosts[static_cast<int>(h)] = host_clock{0, cr.default_uncertainty_s, 0};

	for (auto &e : ev.events) {
		if (e.raw_us == no_time)
			continue;
		auto it = cr.hosts.find(e.host);
		double off = it == cr.hosts.end() ? 0 : it->second.offset_s;
		e.time_us = e.raw_us - static_cast<int64_t>(std::llround(off * 1e6));
	}
	return cr;
}

} // namespace diag
