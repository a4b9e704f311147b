// Where a NaN appeared first. When every rank reports a non-finite loss at
// once (an all-reduced loss), the origin is the rank that is different: the
// only one with a local sign (a local grad norm, an anomaly-mode backward
// error, a loss scale falling to its minimum). And which of three causes
// the logs point to: a bad sample (a line names one), mixed-precision
// overflow (the loss scale sequence), a failing GPU (an Xid or ECC error on
// that rank's node); else unknown.
#include "deciding/context.hh"
#include "deciding/exits.hh"

#include <iterator>
#include <map>
#include <set>

namespace diag {

namespace {

std::string rule_of(const event &e)
{
	return e.r ? e.r->id : e.rule_id;
}

// The earliest non-finite event with a sign local to its rank (capture
// nan_local) among those admit lets in, where all of them are one rank's;
// null where there is none or two ranks show one.
template <class Admit>
const event *sole_local_sign(const diagnosis_context &cx, Admit admit)
{
	const event *local = nullptr;
	for (const auto &c : cx.cands) {
		const event &e = *c.e;
		if (e.cls != failure_class::nan_inf || e.rank < 0 || e.capture("nan_local").empty() || !admit(e))
			continue;
		if (local && local->rank != e.rank)
			return nullptr;
		if (!local || earlier_event(e, *local))
			local = &e;
	}
	return local;
}

// Every rank reported it, but at the step its own line names: one rank
// alone at the earliest, two or more at later steps, is where it appeared
// (a local loss a rank logs before the reduced one spreads). Decides and
// returns true where one is.
bool alone_at_the_earliest_step(diagnosis_context &cx)
{
	decision &d = cx.d;
	std::map<long long, std::set<int>> ranks_at;
	std::map<int, const event *> first_of;
	for (const auto &c : cx.cands) {
		long long step;
		if (c.e->cls != failure_class::nan_inf || c.e->rank < 0 || !parse_uint_str(c.e->capture("step"), step))
			continue;
		ranks_at[step].insert(c.e->rank);
		const event *&f = first_of[c.e->rank];
		if (!f || earlier_event(*c.e, *f))
			f = c.e;
	}
	if (ranks_at.size() < 2 || ranks_at.begin()->second.size() != 1)
		return false;
	const int r = *ranks_at.begin()->second.begin();
	std::set<int> later;
	for (auto it = std::next(ranks_at.begin()); it != ranks_at.end(); ++it)
		later.insert(it->second.begin(), it->second.end());
	later.erase(r);
	if (later.size() < 2)
		return false;
	const event *origin = first_of[r];
	d.first = origin;
	d.first_rank = r;
	d.first_host = origin->host;
	d.common_mode = 0;
	d.common_many_hosts = false;
	d.rank_singled_out = true;
	d.notes.push_back("every rank reported the non-finite value; rank " + std::to_string(r) + " alone did at step " +
			  std::to_string(ranks_at.begin()->first) + ", the others later");
	return true;
}

// The one rank whose NaN sign no other rank shares.
void find_origin(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.first_rank >= 0 && d.common_mode == 0) {
		// A first rank chosen on a reduced loss it reported (rank 0 logs
		// it for all), where one other rank shows a local sign no later
		// (its clock says, or neither has one): that rank is where it
		// appeared.
		if (!d.first || d.first->cls != failure_class::nan_inf || !d.first->capture("nan_local").empty())
			return;
		const event *local =
			sole_local_sign(cx, [&](const event &e) { return e.rank != d.first_rank; });
		if (!local || (local->time_us != no_time && d.first->time_us != no_time &&
			       local->time_us > d.first->time_us + static_cast<int64_t>(local->time_unc_s * 1e6) + 1000000))
			return;
		d.notes.push_back("rank " + std::to_string(local->rank) + " shows where the non-finite value appeared (" +
				  rule_of(*local) + "); rank " + std::to_string(d.first_rank) + "'s " + rule_of(*d.first) +
				  " reports the loss it reduced");
		d.first = local;
		d.first_rank = local->rank;
		d.first_host = local->host;
		d.rank_singled_out = true;
		return;
	}
	if (alone_at_the_earliest_step(cx))
		return;
	std::map<std::string, std::set<int>> ranks_by_rule;
	std::map<std::string, const event *> first_by_rule;
	for (const auto &c : cx.cands) {
		if (c.e->cls != failure_class::nan_inf || c.e->rank < 0)
			continue;
		std::string id = rule_of(*c.e);
		ranks_by_rule[id].insert(c.e->rank);
		const event *&f = first_by_rule[id];
		if (!f || earlier_event(*c.e, *f))
			f = c.e;
	}
	if (ranks_by_rule.size() < 2 && d.common_mode == 0)
		return;
	const event *origin = nullptr;
	int singles = 0;
	for (const auto &r : ranks_by_rule)
		if (r.second.size() == 1) {
			singles++;
			origin = first_by_rule[r.first];
		}
	if (singles > 1) {
		// Several ranks each alone in their sign (rank 0 alone logs the
		// reduced loss): the one rank whose sign is local to it.
		origin = sole_local_sign(cx, [&](const event &e) { return ranks_by_rule[rule_of(e)].size() == 1; });
	}
	if (!origin)
		return;
	d.first = origin;
	d.first_rank = origin->rank;
	d.first_host = origin->host;
	d.common_mode = 0;
	d.common_many_hosts = false;
	d.rank_singled_out = true;
	d.notes.push_back("every rank reported the non-finite value; rank " + std::to_string(origin->rank) +
			  " alone shows where it appeared (" + rule_of(*origin) + ")");
}

void find_cause(diagnosis_context &cx)
{
	decision &d = cx.d;
	const evidence &ev = cx.ev;
	bool gpu = false, overflow = false, bad_sample = false;
	for (const auto &e : ev.events) {
		if (e.dropped)
			continue;
		// Any Xid or ECC report of that node, a warning-level one too.
		if (e.cls == failure_class::gpu_hardware && e.role != event_role::victim && d.first_host >= 0 &&
		    e.host == d.first_host)
			gpu = true;
		if (!e.capture("loss_scale").empty())
			overflow = true;
		if (!e.capture("sample").empty() || !e.capture("sample_idx").empty())
			bad_sample = true;
		if (e.cls == failure_class::nan_inf && d.nan_step < 0 && (e.rank == d.first_rank || d.first_rank < 0)) {
			long long step;
			std::string s = e.capture("step");
			if (!s.empty() && parse_uint_str(s, step))
				d.nan_step = step;
		}
	}
	d.nan_known = true;
	int causes = gpu + overflow + bad_sample;
	d.nan_cause = gpu ? "gpu" : overflow ? "overflow" : bad_sample ? "bad_sample" : "unknown";
	if (causes > 1)
		d.notes.push_back("the NaN's cause is ambiguous: the logs show more than one of GPU fault, overflow and bad sample");
}

} // namespace

// A GPU fault on a node that then only produced NaNs (no CUDA error, no
// crash): the run died of the NaN; the GPU is its cause.
void gpu_behind_the_nan(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.cls != failure_class::gpu_hardware || !d.first || d.first_host < 0)
		return;
	const event *nan = nullptr;
	for (const auto &c : cx.cands) {
		const event &e = *c.e;
		if (e.host != d.first_host || e.dropped || e.decoy)
			continue;
		if (e.cls == failure_class::cuda_error || e.cls == failure_class::segfault)
			return;
		if (e.cls == failure_class::nan_inf && (!nan || earlier_event(e, *nan)))
			nan = &e;
	}
	if (!nan)
		return;
	d.cls = failure_class::nan_inf;
	d.notes.push_back("a GPU fault on " + cx.ev.host_name(d.first_host) +
			  " was followed only by non-finite values there: the NaN ended the run");
	d.first = nan;
	d.first_rank = nan->rank >= 0 ? nan->rank : d.first_rank;
	d.common_mode = 0;
	d.common_many_hosts = false;
}

// Mixed-precision overflow is the job's, not a rank's: the overflow flag
// is all-reduced, every rank skips the step and the loss scale falls on
// all of them at once. Where the NaN line itself names no rank and no rank
// showed a sign of its own (find_origin), the rank borrowed from how the
// processes ended (the first the launcher saw exit) says nothing.
void overflow_is_everyones(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (d.nan_cause != "overflow" || !d.first || d.first->rank >= 0 || d.borrowed_rank < 0 ||
	    d.first_rank != d.borrowed_rank)
		return;
	d.notes.push_back("the loss scale fell on every rank at once (mixed-precision overflow): rank " +
			  std::to_string(d.first_rank) + ", the first the launcher saw exit, is not singled out");
	d.first_rank = -1;
	d.borrowed_rank = -1;
	d.first_host = -1;
	d.rank_singled_out = false;
}

void pass_nan_origin(diagnosis_context &cx)
{
	gpu_behind_the_nan(cx);
	if (cx.d.cls != failure_class::nan_inf)
		return;
	find_origin(cx);
	find_cause(cx);
	overflow_is_everyones(cx);
}

} // namespace diag
