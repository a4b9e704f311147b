#include "rendering/explain.hh"

#include "aligning/host_aliases.hh"
#include "deciding/diagnose.hh"

#include <set>

namespace diag {

namespace {

bool job_level_class(failure_class c)
{
	return c == failure_class::time_limit || c == failure_class::preemption || c == failure_class::user_cancel ||
	       c == failure_class::node_failure;
}

std::string who(int rank, const std::string &host)
{
	if (rank >= 0 && !host.empty())
		return "rank " + std::to_string(rank) + " on " + host;
	if (rank >= 0)
		return "rank " + std::to_string(rank);
	if (!host.empty())
		return "a rank on " + host;
	return "a rank";
}

std::string class_phrase(const event *e, failure_class c, const knowledge &kn)
{
	// (A Python exception the reading found to be another kind's, an
	// assertion that values were finite: the rule's words no longer fit.)
	const bool reclassed = e && e->r && e->r->cls == failure_class::python_exception && e->cls != e->r->cls &&
			       e->cls != failure_class::unknown;
	if (e && e->r && !e->r->summary.empty() && !reclassed) {
		return fill_template(e->r->summary, [&](const std::string &name) { return e->capture(name); });
	}
	switch (c) {
	case failure_class::gpu_hardware:
		if (e && e->xid >= 0) {
			const xid_info *x = kn.xid(e->xid);
			return "hit GPU Xid " + std::to_string(e->xid) + (x && !x->name.empty() ? " (" + x->name + ")" : "");
		}
		return "hit a GPU hardware fault";
	case failure_class::cuda_oom: return "ran out of GPU memory";
	case failure_class::host_oom: return "was killed for lack of host memory";
	case failure_class::network: return "hit a network/transport error";
	case failure_class::collective_hang: return "stopped participating in collectives";
	case failure_class::python_exception: {
		std::string exc = e ? e->capture("exc") : "";
		return exc.empty() ? "raised an exception" : "raised " + exc;
	}
	case failure_class::nan_inf: return "produced NaN/Inf values";
	case failure_class::cuda_error: return "hit a CUDA error";
	case failure_class::segfault: return "crashed in native code";
	case failure_class::filesystem: return "hit a filesystem error";
	case failure_class::launch_failure: return "failed to start";
	case failure_class::time_limit: return "the job reached its time limit";
	case failure_class::preemption: return "the job was preempted";
	case failure_class::user_cancel: return "the job was cancelled";
	case failure_class::node_failure: return "a node of the job failed";
	case failure_class::unknown: return "no recognisable cause in the logs";
	}
	return "";
}

} // namespace

std::string iso_time(int64_t us)
{
	if (us == no_time)
		return "";
	char buf[40];
	format_utc_ms(us, buf, sizeof(buf));
	return buf;
}

void word_verdict(const explain_input &x, verdict &v)
{
	const evidence &ev = x.ev;
	const decision &d = x.d;
	const event *first = d.first;
	failure_class cls = d.cls;
	bool singled = d.rank_singled_out;
	v.cls = cls;
	v.has_first = singled;
	v.first_rank = singled ? d.first_rank : -1;
	v.first_host = singled && d.first_host >= 0 ? ev.host_name(d.first_host) : "";
	if (!v.first_host.empty())
		v.first_host_aliases = host_aliases(ev, d.first_host);
	if (first && first->file != UINT32_MAX)
		v.first_event = static_cast<long>(first - ev.events.data());
	if (first) {
		v.first_time = iso_time(first->time_us);
		v.first_source = first->file == UINT32_MAX ? ev.job.state_source : ev.where(*first);
		v.first_line = first->text;
	}
	v.confidence = d.confidence;

	// Victims: every other rank that shows a victim symptom.
	std::set<int> victims;
	for (const auto &e : ev.events) {
		if (e.dropped || e.rank < 0 || e.rank == v.first_rank)
			continue;
		if (e.role == event_role::victim || e.kind == rule_kind::watchdog)
			victims.insert(e.rank);
	}
	v.victims.assign(victims.begin(), victims.end());

	std::string phrase = class_phrase(first, cls, x.kn);
	v.cause = phrase;
	// (A hang singled out by its node alone has no why of its own.)
	const std::string stopped = "stopped making progress" + (d.hang_why.empty() ? std::string() : ": " + d.hang_why);
	if (cls == failure_class::collective_hang && !first && singled)
		v.cause = stopped;
	if (job_level_class(cls) && cls != failure_class::node_failure)
		v.summary = phrase;
	else if (cls == failure_class::node_failure)
		v.summary = d.first_host >= 0 ? "node " + ev.host_name(d.first_host) + " failed" : phrase;
	else if (cls == failure_class::collective_hang && !first) {
		v.summary = singled ? who(d.first_rank, v.first_host) + " " + stopped
				    : (d.hang_reporting > 1   ? std::to_string(d.hang_reporting) + " ranks timed out in collectives"
				       : d.hang_reporting == 1 ? std::string("1 rank timed out in a collective")
							       : std::string("the job stopped making progress")) +
					      (d.hang_seq >= 0 ? " (SeqNum=" + std::to_string(d.hang_seq) + ")" : std::string()) +
					      "; the logs do not single out the rank that stopped";
	} else if (cls == failure_class::unknown && !singled) {
		v.summary = phrase;
	} else if (d.common_mode > 0) {
		v.summary = std::to_string(d.common_mode) + " ranks at once" +
			    (d.first_host >= 0 ? " on " + ev.host_name(d.first_host) : std::string()) + ": " + phrase;
	} else {
		bool rule_phrase = first && first->r && !first->r->summary.empty();
		v.summary = (singled ? who(d.first_rank, v.first_host) : std::string("a rank")) +
			    (rule_phrase ? ": " : " ") + phrase;
	}
	if (!v.victims.empty() && singled && d.common_mode == 0)
		v.summary += "; " + std::to_string(v.victims.size()) + " other rank" + (v.victims.size() == 1 ? "" : "s") +
			     (d.hang_reporting > 0 ? " timed out or failed after it" : " failed after it");

	for (const auto &s : d.suspects)
		v.suspects.push_back(verdict_suspect{s.rank, s.host >= 0 ? ev.host_name(s.host) : "", s.why});
	for (const auto &r : d.refused)
		v.refused.push_back(verdict_refused{r.file, r.why});
	if (d.nan_known) {
		v.has_nan = true;
		v.nan_cause = d.nan_cause;
		v.nan_step = d.nan_step;
	}
	for (const auto &n : d.notes)
		v.notes.push_back(n);
}

} // namespace diag
