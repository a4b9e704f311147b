// Which lines show the verdict: the first fault, what ties with it, what
// supports it, the structure of a hang, and the earliest victim of each
// kind; and the clock offsets of the hosts.
#include "rendering/explain.hh"

#include "deciding/diagnose.hh"

#include <algorithm>
#include <set>

namespace diag {

namespace {

evidence_line to_line(const evidence &ev, const event &e)
{
	evidence_line l;
	l.rank = e.rank;
	l.host = e.host >= 0 ? ev.host_name(e.host) : "";
	l.time = iso_time(e.time_us);
	l.role = e.role;
	l.rule = e.r ? e.r->id : e.rule_id;
	l.source = ev.where(e);
	l.line = e.text;
	return l;
}

} // namespace

void pick_evidence(const explain_input &x, const event *recovery, verdict &v)
{
	const evidence &ev = x.ev;
	const decision &d = x.d;
	const event *first = d.first;
	if (first && first->file != UINT32_MAX)
		v.evidence.push_back(to_line(ev, *first));
	else if (first)
		v.evidence.push_back(evidence_line{-1, "", iso_time(first->time_us), event_role::initiating, first->rule_id,
						   ev.job.state_source, first->text});
	for (const auto &t : d.ties) {
		if (v.evidence.size() >= 4)
			break;
		if (t.e != first && t.e->file != UINT32_MAX)
			v.evidence.push_back(to_line(ev, *t.e));
	}
	for (const auto &t : d.support)
		if (v.evidence.size() < 5 && t.e->file != UINT32_MAX)
			v.evidence.push_back(to_line(ev, *t.e));
	if (recovery)
		v.evidence.push_back(to_line(ev, *recovery));
	if (!first && d.cls == failure_class::collective_hang) {
		// The suspect's own last words, if any, and the flight recorder's.
		for (const auto &e : ev.events)
			if (!e.dropped && e.rank == d.first_rank && d.first_rank >= 0 && e.kind == rule_kind::watchdog) {
				v.evidence.push_back(to_line(ev, e));
				break;
			}
		for (const auto &l : x.fr.lines) {
			if (v.evidence.size() >= 6)
				break;
			v.evidence.push_back(evidence_line{-1, "", "", event_role::context, "fr.analysis", x.fr.source, l});
		}
	}
	std::vector<const event *> vics;
	for (const auto &e : ev.events)
		if (!e.dropped && (e.role == event_role::victim || e.kind == rule_kind::watchdog) && e.rank != v.first_rank)
			vics.push_back(&e);
	std::stable_sort(vics.begin(), vics.end(), [](const event *a, const event *b) {
		int64_t ta = a->time_us == no_time ? INT64_MAX : a->time_us;
		int64_t tb = b->time_us == no_time ? INT64_MAX : b->time_us;
		return ta != tb ? ta < tb : a->order < b->order;
	});
	std::set<std::string> shown_rules;
	for (const event *e : vics) {
		if (v.evidence.size() >= 8)
			break;
		std::string id = e->r ? e->r->id : e->rule_id;
		if (shown_rules.insert(id).second)
			v.evidence.push_back(to_line(ev, *e));
	}

	for (const auto &h : x.clk.hosts) {
		if (h.first < 0 || static_cast<size_t>(h.first) >= ev.host_count())
			continue;
		v.clock[ev.host_name(h.first)] =
			clock_entry{h.second.offset_s, h.second.anchors ? h.second.uncertainty_s : x.clk.default_uncertainty_s};
	}
}

} // namespace diag
