#include "aligning/clock.hh"

#include "deciding/diagnose.hh"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace diag {

namespace {

// Watchdog polling and enqueue jitter bound how well one anchor pins a clock.
constexpr double min_uncertainty_s = 0.05;

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
	// A file whose lines matched nothing still dates the bundle (a node's
	// journal beside a log of glog's year-less stamps).
	for (const auto &s : ev.sources())
		if (s.first_dated.kind == ts_kind::absolute)
			return s.first_dated.epoch_us;
	for (const auto &e : ev.events)
		if (e.ts.kind == ts_kind::local) {
			ts_context c;
			if (auto v = resolve_timestamp(e.ts, c))
				return *v;
		}
	for (const auto &s : ev.sources())
		if (s.first_dated.kind == ts_kind::local) {
			ts_context c;
			if (auto v = resolve_timestamp(s.first_dated, c))
				return *v;
		}
	return static_cast<int64_t>(time(nullptr)) * us_per_s;
}

// One true moment seen by several hosts: per host, the median of what its
// clock said, and how precisely that pins the moment (seconds).
struct reading {
	double t = 0;
	double sigma = 0;
};
using moment = std::map<int, reading>;

// floor_sigma: how precisely one reading marks the moment (an NCCL
// bootstrap barrier tens of ms; a watchdog timeout, up to the spread of the
// ranks' enqueue times); the spread of a host's readings says more when
// there are several.
moment to_moment(const std::map<int, std::vector<double>> &per_host, double floor_sigma)
{
	moment m;
	for (const auto &h : per_host) {
		double med = median(h.second);
		double sigma = floor_sigma;
		if (h.second.size() >= 3) {
			std::vector<double> dev;
			for (double x : h.second)
				dev.push_back(std::fabs(x - med));
			sigma = std::max(floor_sigma * 0.7, 1.4826 * median(dev) / std::sqrt(static_cast<double>(h.second.size())));
		}
		m[h.first] = reading{med, sigma};
	}
	return m;
}

// Moments from the logs themselves: watchdog timeouts of one collective fire
// at its start + timeout on every rank that waited in it; every rank of an
// NCCL communicator completes its init together.
std::vector<moment> log_moments(const evidence &ev)
{
	std::map<long long, std::map<int, std::vector<double>>> by_seq;
	std::map<std::string, std::map<int, std::vector<double>>> by_comm;
	for (const auto &e : ev.events) {
		if (e.host < 0 || e.raw_us == no_time || e.inherited_time)
			continue;
		double t = static_cast<double>(e.raw_us) / 1e6;
		if (e.kind == rule_kind::watchdog && e.role == event_role::victim && e.seq >= 0)
			by_seq[e.seq][e.host].push_back(t);
		if (e.kind == rule_kind::rank_map) {
			std::string comm = e.capture("comm_id");
			if (!comm.empty())
				by_comm[comm][e.host].push_back(t);
		}
	}
	std::vector<moment> out;
	for (const auto &s : by_seq)
		if (s.second.size() >= 2)
			out.push_back(to_moment(s.second, 1.0));
	for (const auto &c : by_comm)
		if (c.second.size() >= 2)
			out.push_back(to_moment(c.second, 0.05));
	return out;
}

// How precisely a node's clock at task start marks the step's launch: srun
// reaches the nodes through slurmd's fan-out, tens of ms apart, and more
// when a node is slow to set the step up.
constexpr double launch_sigma_s = 0.1;

// Moments the plugin measured: every task srun launched in one step
// recorded its node's clock as it started, and srun's clock at launch
// (which names the launch). The launch delay, the same for every node but
// for the fan-out, cancels between nodes; what is left is their offsets.
std::vector<moment> plugin_moments(const evidence &ev)
{
	std::map<std::pair<std::string, int64_t>, std::map<int, std::vector<double>>> launches;
	for (const auto &pt : ev.plugin_tasks) {
		if (pt.node < 0 || pt.start_us == no_time || pt.srun_us == no_time)
			continue;
		double t = static_cast<double>(pt.start_us) / 1e6;
		auto &per_host = launches[{pt.step, pt.srun_us}];
		per_host[pt.node].push_back(t);
		// Lines that name the host as NCCL prints it read the same clock.
		if (pt.hostname >= 0 && pt.hostname != pt.node)
			per_host[pt.hostname].push_back(t);
	}
	std::vector<moment> out;
	for (const auto &l : launches)
		if (l.second.size() >= 2)
			out.push_back(to_moment(l.second, launch_sigma_s));
	return out;
}

// The zone of each node, as its plugin records give it (the first record
// that names one).
std::map<int, int> plugin_zones(const evidence &ev)
{
	std::map<int, int> zones;
	for (const auto &pt : ev.plugin_tasks) {
		if (!pt.has_utc_offset)
			continue;
		if (pt.node >= 0)
			zones.emplace(pt.node, pt.utc_offset_s);
		if (pt.hostname >= 0)
			zones.emplace(pt.hostname, pt.utc_offset_s);
	}
	return zones;
}

struct sample {
	double c = 0;     // the moment's common time
	double o = 0;     // this host's offset then
	double sigma = 0; // how precise
};

// One host's offset at time T from its samples. Moments near T decide when
// there are any; else precise moments far apart give a drift (Theil-Sen,
// which a few stray anchors do not bend); else the offset is the one
// measured, with an uncertainty that grows with the time since at the
// drift two unsynchronised quartz clocks can have between them.
host_clock fit_offset(const std::vector<sample> &sm, double T)
{
	host_clock hc;
	hc.t0_s = T;
	std::vector<double> near_o, near_s, prec_t;
	for (const auto &x : sm)
		if (std::fabs(x.c - T) <= 900) {
			near_o.push_back(x.o);
			near_s.push_back(x.sigma);
		}
	std::vector<const sample *> precise;
	for (const auto &x : sm)
		if (x.sigma <= 0.2) {
			precise.push_back(&x);
			prec_t.push_back(x.c);
		}
	double span = prec_t.empty() ? 0 : *std::max_element(prec_t.begin(), prec_t.end()) -
						*std::min_element(prec_t.begin(), prec_t.end());
	if (precise.size() >= 3 && span > 600) {
		std::vector<double> slopes;
		size_t n = precise.size();
		size_t step = std::max<size_t>(1, n * n / 4000);
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j += step) {
				double dt = precise[j]->c - precise[i]->c;
				if (std::fabs(dt) > 60)
					slopes.push_back((precise[j]->o - precise[i]->o) / dt);
			}
		if (!slopes.empty())
			hc.drift_ppm = std::max(-500.0, std::min(500.0, median(slopes) * 1e6));
	}
	auto at_T = [&](const sample &x) { return x.o + hc.drift_ppm * 1e-6 * (T - x.c); };
	std::vector<double> os, sig, dist;
	for (const auto &x : sm) {
		os.push_back(at_T(x));
		sig.push_back(x.sigma);
		dist.push_back(std::fabs(x.c - T));
	}
	if (!near_o.empty() && hc.drift_ppm == 0) {
		hc.offset_at_t0 = median(near_o);
		hc.uncertainty_s = median(near_s);
	} else {
		hc.offset_at_t0 = median(os);
		hc.uncertainty_s = median(sig);
		if (hc.drift_ppm == 0 && !dist.empty())
			hc.uncertainty_s += 100e-6 * *std::min_element(dist.begin(), dist.end());
	}
	return hc;
}

// Offsets are reported where they matter: among the faults and their
// victims, late in the run (the start of the job is hours away when clocks
// drift); without any, at the last thing the logs stamped.
double report_time(const evidence &ev)
{
	std::vector<double> failing;
	double last = 0;
	for (const auto &e : ev.events) {
		if (e.raw_us == no_time)
			continue;
		double t = static_cast<double>(e.raw_us) / 1e6;
		last = std::max(last, t);
		if (e.role != event_role::context)
			failing.push_back(t);
	}
	if (failing.empty())
		return last;
	std::sort(failing.begin(), failing.end());
	return failing[failing.size() * 3 / 4];
}

} // namespace

double clock_result::uncertainty(int host) const
{
	auto it = hosts.find(host);
	if (it == hosts.end() || it->second.anchors == 0)
		return default_uncertainty_s;
	return it->second.uncertainty_s;
}

namespace {

bool is_local(const ts_value &v)
{
	return v.kind == ts_kind::local || v.kind == ts_kind::local_no_year;
}

// The zone of local times, when not configured: the offset (a multiple of a
// quarter hour) that puts the most local-time events inside the span of the
// absolute ones (epoch stamps, ISO times with a zone, sacct --json); zero
// unless another offset clearly does better.
int infer_zone(const evidence &ev, int64_t reference_us, const std::map<int, int> &measured)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	auto widen = [&](int64_t t) {
		lo = std::min(lo, t);
		hi = std::max(hi, t);
	};
	if (!ev.job.times_local) {
		if (ev.job.start_us != no_time)
			widen(ev.job.start_us);
		if (ev.job.end_us != no_time)
			widen(ev.job.end_us);
	}
	std::vector<int64_t> local;
	for (const auto &e : ev.events) {
		// A host whose zone the plugin measured needs no inference.
		if (e.inherited_time || !is_local(e.ts) || measured.count(e.host))
			continue;
		ts_context c;
		c.reference_us = reference_us;
		if (auto v = resolve_timestamp(e.ts, c))
			local.push_back(*v);
	}
	const int64_t slack = 30 * 60 * us_per_s;
	// Local stamps that fall inside sacct's local window share the
	// controller's zone: then, for a candidate zone, only the absolute
	// stamps inside that window (shifted by the zone) bound the job; kernel
	// lines from the node's history before the job are outside it.
	bool agree_with_sacct = false;
	if (ev.job.times_local && ev.job.start_us != no_time && ev.job.end_us != no_time && !local.empty()) {
		size_t in = 0;
		for (int64_t t : local)
			if (t >= ev.job.start_us - slack && t <= ev.job.end_us + slack)
				in++;
		agree_with_sacct = in * 2 > local.size();
	}
	std::vector<int64_t> absolute;
	for (const auto &e : ev.events)
		if (!e.inherited_time && e.ts.kind == ts_kind::absolute)
			absolute.push_back(e.ts.epoch_us);
	for (int64_t t : absolute)
		widen(t);
	// The zone every absolute line that states one states (journalctl's
	// "+05:30"): the nodes' own.
	std::set<int> stated;
	for (const auto &e : ev.events)
		if (!e.inherited_time && e.ts.kind == ts_kind::absolute && e.ts.tz_offset_s != 0)
			stated.insert(e.ts.tz_offset_s);
	// Only sacct -P's times are local: the controller prints them in the
	// cluster's zone, the one its nodes state.
	if (local.empty() && ev.job.times_local && ev.job.start_us != no_time && stated.size() == 1)
		return *stated.begin();
	if (lo == INT64_MAX || local.empty())
		return 0;
	// For a zone: how many local stamps fall in the span, and how far the
	// last of them is from the span's last absolute stamp.
	int64_t local_last = *std::max_element(local.begin(), local.end());
	int64_t end_gap = 0;
	auto inside = [&](int z) {
		int64_t shift = static_cast<int64_t>(z) * us_per_s;
		int64_t zlo = lo, zhi = hi;
		if (agree_with_sacct) {
			zlo = INT64_MAX, zhi = INT64_MIN;
			for (int64_t t : absolute)
				if (t >= ev.job.start_us - shift - slack && t <= ev.job.end_us - shift + slack) {
					zlo = std::min(zlo, t);
					zhi = std::max(zhi, t);
				}
			if (zlo == INT64_MAX)
				return size_t(0);
		}
		size_t n = 0;
		for (int64_t t : local) {
			int64_t u = t - shift;
			if (u >= zlo - slack && u <= zhi + slack)
				n++;
		}
		end_gap = std::llabs(local_last - shift - zhi);
		return n;
	};
	// The job's stamps agree with sacct's local times (the controller's
	// zone) and the nodes' kernel logs state one zone (journalctl's
	// "-05:00"; not a workstation's tool, gcloud's): that is the cluster's,
	// whatever a stray absolute stamp happens to fit.
	std::set<int> stated_by_nodes;
	for (const auto &e : ev.events)
		if (!e.inherited_time && e.ts.kind == ts_kind::absolute && e.ts.tz_offset_s != 0 &&
		    e.file < ev.sources().size() && ev.sources()[e.file].kind == source_kind::kernel_log)
			stated_by_nodes.insert(e.ts.tz_offset_s);
	if (agree_with_sacct && stated_by_nodes.size() == 1 && stated == stated_by_nodes)
		return *stated.begin();
	size_t at_zero = inside(0);
	if (at_zero * 2 >= local.size())
		return 0;
	// A zone the nodes' own logs state (journalctl's "-05:00") is the zone
	// their programs print local times in, when the job's stamps fit it.
	// Where sacct's local window already holds them, the span's fit cannot
	// tell zones apart: the job's stamps run on past the last absolute one
	// (an Xid, then the watchdogs half an hour later).
	if (stated.size() == 1) {
		int z = *stated.begin();
		if (agree_with_sacct || inside(z) * 2 > local.size())
			return z;
	}
	// Among the zones that fit as well, the one that ends the job's own
	// stamps where the absolute ones end: both record the collapse (an
	// Xid, the OOM killer, a link down beside the job's last lines). The
	// span's slack alone leaves a run of zones that fit.
	int best = 0;
	size_t best_n = at_zero;
	int64_t best_gap = INT64_MAX;
	for (int z = -14 * 3600; z <= 14 * 3600; z += 900) {
		size_t n = inside(z);
		int64_t gap = end_gap;
		if (n > best_n || (n == best_n && n > at_zero && (gap < best_gap || (gap == best_gap && std::abs(z) < std::abs(best)))))
			best = z, best_n = n, best_gap = gap;
	}
	// One local stamp against kernel lines that may predate the job is no
	// evidence of a zone: it takes two.
	return best_n * 2 > local.size() && best_n >= 2 ? best : 0;
}

// The zone the job's own output states (`date` in its batch script: "...
// 06:47:17 JST 2026"), when zones.yaml knows the abbreviation: the first
// such line, as the job's start is. Its offset in seconds and its name.
std::optional<std::pair<int, std::string>> stated_zone(const evidence &ev, const std::map<std::string, int> *names)
{
	if (!names)
		return std::nullopt;
	for (const auto &e : ev.events) {
		if (e.kind != rule_kind::zone_name)
			continue;
		std::string z = e.capture("zone");
		if (auto it = names->find(z); it != names->end())
			return std::make_pair(it->second, z);
	}
	return std::nullopt;
}

// The wall time (µs) an audit record states it was made at ("audit(
// 1783062118.900:693)": memory.audit_wall_time's captures), if it is one.
std::optional<int64_t> stated_wall_us(const event &e)
{
	long long wall, ms;
	if (e.kind != rule_kind::boot_time || e.inherited_time || !parse_uint_str(e.capture("wall"), wall) ||
	    !parse_uint_str(e.capture("wall_ms"), ms))
		return std::nullopt;
	return static_cast<int64_t>(wall) * us_per_s + ms * 1000;
}

// The zone a node's local stamps are in, where its audit records state
// their own wall time beside them (syslog's "Jul  3 16:01:58 gpu-a58 kernel:
// audit: ... audit(1783062118.900:693)"): the difference, in quarter hours
// to within a minute, when every such record gives the same one.
std::optional<int> audit_zone(const evidence &ev, int64_t reference_us)
{
	std::set<int> zones;
	for (const auto &e : ev.events) {
		auto wall = stated_wall_us(e);
		if (!wall || !is_local(e.ts))
			continue;
		ts_context c;
		c.reference_us = reference_us;
		auto v = resolve_timestamp(e.ts, c);
		if (!v)
			continue;
		double off_s = static_cast<double>(*v - *wall) / 1e6;
		double z = std::round(off_s / 900.0) * 900.0;
		if (std::fabs(off_s - z) <= 60.0 && std::fabs(z) <= 14 * 3600.0)
			zones.insert(static_cast<int>(z));
	}
	if (zones.size() != 1)
		return std::nullopt;
	return *zones.begin();
}

} // namespace

void resolve_times(evidence &ev, const clock_options &opts, clock_result &cr)
{
	// A kernel log that says when its node booted anchors its raw stamps
	// ("[ 1234.567890]" seconds since boot).
	// Else a record that states its own wall time beside its stamp (an
	// audit line): the middle of what those say, as dmesg -T would.
	std::map<int, std::vector<int64_t>> stated_boots;
	for (const auto &e : ev.events) {
		long long when;
		if (e.kind != rule_kind::boot_time || e.host < 0)
			continue;
		if (parse_uint_str(e.capture("when"), when)) {
			if (!ev.boot_time.count(e.host))
				ev.boot_time[e.host] = static_cast<int64_t>(when) * us_per_s;
		} else if (auto wall = stated_wall_us(e); wall && e.ts.kind == ts_kind::boot_relative) {
			stated_boots[e.host].push_back(*wall - e.ts.boot_us);
		}
	}
	for (auto &sb : stated_boots) {
		if (ev.boot_time.count(sb.first))
			continue;
		std::sort(sb.second.begin(), sb.second.end());
		ev.boot_time[sb.first] = sb.second[sb.second.size() / 2];
	}
	cr.reference_us = pick_reference(ev);
	cr.zone_offset_s = opts.default_tz_offset_s;
	if (!opts.tz_given)
		cr.measured_zones = plugin_zones(ev);
	if (!opts.tz_given) {
		// What the job says of its zone beats what lines up best.
		auto named = stated_zone(ev, opts.zone_names);
		auto audited = named ? std::nullopt : audit_zone(ev, cr.reference_us);
		int z = named ? named->first : audited ? *audited : infer_zone(ev, cr.reference_us, cr.measured_zones);
		if (named)
			cr.zone_name = named->second;
		if (z != 0) {
			cr.zone_offset_s = z;
			cr.zone_inferred = !named && !audited;
			cr.zone_from_audit = audited.has_value();
			if (ev.job.times_local) {
				// sacct -P printed the controller's local time.
				int64_t shift = static_cast<int64_t>(z) * us_per_s;
				if (ev.job.start_us != no_time)
					ev.job.start_us -= shift;
				if (ev.job.end_us != no_time)
					ev.job.end_us -= shift;
			}
		}
	} else if (ev.job.times_local && opts.default_tz_offset_s != 0) {
		int64_t shift = static_cast<int64_t>(opts.default_tz_offset_s) * us_per_s;
		if (ev.job.start_us != no_time)
			ev.job.start_us -= shift;
		if (ev.job.end_us != no_time)
			ev.job.end_us -= shift;
	}
	for (auto &e : ev.events) {
		ts_context ctx;
		ctx.reference_us = cr.reference_us;
		auto mz = cr.measured_zones.find(e.host);
		ctx.tz_offset_s = mz != cr.measured_zones.end() ? mz->second : cr.zone_offset_s;
		auto bt = ev.boot_time.find(e.host);
		if (bt != ev.boot_time.end())
			ctx.boot_epoch_us = bt->second;
		std::optional<int64_t> lo, hi;
		if (e.ts.kind != ts_kind::none)
			lo = resolve_timestamp(e.ts, ctx);
		if (e.inherited_time && e.ts_hi.kind != ts_kind::none)
			hi = resolve_timestamp(e.ts_hi, ctx);
		if (lo && hi && *hi >= *lo) {
			// Somewhere between the lines around it: the middle, with
			// half the gap as uncertainty.
			e.raw_us = *lo + (*hi - *lo) / 2;
			e.time_unc_s = static_cast<double>(*hi - *lo) / 2e6;
		} else if (lo && !e.inherited_time) {
			e.raw_us = *lo;
		} else if (lo) {
			e.not_before_raw_us = *lo;
		}
		// An inherited time bounded on one side only says little (the last
		// stamped line may be an hour before): such a line stays untimed
		// and is placed by what it says, not when.
	}
}

namespace {

// Places hosts by the moments they share. The hosts already in cr.hosts
// stay as they are and are what the others are placed against; when there
// are none, the reference is the host seen in most moments. Others are
// placed against hosts already placed, moment by moment (a chain across
// moments that share hosts). Each host gets an offset, and a drift when
// its moments span long enough to see one (NCCL init at the start,
// watchdog timeouts at the end).
void place_hosts(const std::vector<moment> &moments, double report, clock_basis basis, clock_result &cr)
{
	std::map<int, int> seen;
	for (const auto &m : moments)
		for (const auto &h : m)
			seen[h.first]++;
	if (seen.empty())
		return;
	std::map<int, host_clock> placed = cr.hosts;
	int ref = -1;
	if (placed.empty()) {
		ref = std::max_element(seen.begin(), seen.end(), [](auto &a, auto &b) { return a.second < b.second; })->first;
		placed[ref] = host_clock{};
	}
	auto fixed = [&](int h) { return h == ref || cr.hosts.count(h); };
	std::map<int, std::vector<sample>> samples;
	for (int round = 0; round < 8; round++) {
		samples.clear();
		for (const auto &m : moments) {
			std::vector<double> common;
			double ref_sigma = 0;
			for (const auto &h : m)
				if (auto it = placed.find(h.first); it != placed.end()) {
					common.push_back(h.second.t - it->second.offset_at(h.second.t));
					ref_sigma = std::max(ref_sigma, h.second.sigma);
				}
			if (common.empty())
				continue;
			double c = median(common);
			for (const auto &h : m)
				if (!fixed(h.first))
					samples[h.first].push_back(
						sample{c, h.second.t - c, std::sqrt(h.second.sigma * h.second.sigma + ref_sigma * ref_sigma)});
		}
		size_t before = placed.size();
		for (const auto &sm : samples)
			placed[sm.first] = fit_offset(sm.second, report);
		if (placed.size() == before && round >= 2)
			break;
	}
	for (auto &p : placed) {
		if (p.first != ref && cr.hosts.count(p.first))
			continue; // placed before, by better facts
		host_clock hc = p.second;
		const auto &sm = samples[p.first];
		hc.anchors = p.first == ref ? seen[ref] : static_cast<int>(sm.size());
		std::vector<double> dev;
		for (const auto &x : sm)
			if (std::fabs(x.c - report) <= 900)
				dev.push_back(std::fabs(x.o - hc.offset_at(x.c)));
		double scatter = dev.size() >= 3 ? 1.4826 * median(dev) : 0;
		hc.uncertainty_s = std::max({min_uncertainty_s, hc.uncertainty_s, scatter});
		hc.offset_s = hc.offset_at(report);
		hc.basis = basis;
		cr.hosts[p.first] = hc;
	}
}

} // namespace

const char *clock_basis_name(clock_basis b)
{
	switch (b) {
	case clock_basis::measured: return "measured";
	case clock_basis::inferred: return "inferred";
	case clock_basis::none: break;
	}
	return "none";
}

clock_result align_clocks(evidence &ev, const clock_options &opts,
			  const std::vector<std::vector<std::pair<int, int64_t>>> &rank_anchors)
{
	clock_result cr;
	resolve_times(ev, opts, cr);

	double report = report_time(ev);
	// The plugin's measurements first; then the logs' moments place the
	// hosts it did not measure, against the measured ones.
	place_hosts(plugin_moments(ev), report, clock_basis::measured, cr);
	std::vector<moment> moments = log_moments(ev);
	for (const auto &a : rank_anchors) {
		std::map<int, std::vector<double>> per_host;
		for (const auto &p : a)
			if (const rank_info *ri = ev.ranks.by_rank(p.first); ri && ri->host >= 0)
				per_host[ri->host].push_back(static_cast<double>(p.second) / 1e6);
		if (per_host.size() >= 2)
			moments.push_back(to_moment(per_host, 0.2));
	}
	place_hosts(moments, report, clock_basis::inferred, cr);
	cr.aligned = cr.hosts.size() >= 2;
	for (size_t h = 0; h < ev.host_count(); h++)
		if (!cr.hosts.count(static_cast<int>(h)))
			cr.hosts[static_cast<int>(h)] = host_clock{0, cr.default_uncertainty_s, 0};

	for (auto &e : ev.events) {
		if (e.raw_us == no_time)
			continue;
		auto it = cr.hosts.find(e.host);
		double off = it == cr.hosts.end() ? 0 : it->second.offset_at(static_cast<double>(e.raw_us) / 1e6);
		e.time_us = e.raw_us - static_cast<int64_t>(std::llround(off * 1e6));
	}
	return cr;
}

} // namespace diag
