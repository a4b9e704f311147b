// How sure the verdict is: high only for a timed fault of the rank it names
// with nothing the clocks cannot order beside it; lowered, with the reason
// in the notes, where the evidence is borrowed, tied or weak.
#include "deciding/context.hh"

#include <algorithm>

namespace diag {

void pass_confidence(diagnosis_context &cx)
{
	decision &d = cx.d;
	if (!d.from_initiator)
		return; // structure only: decide set it
	const event *b = cx.best.e;
	bool tie_other_rank = std::any_of(d.ties.begin(), d.ties.end(), [&](const candidate &t) {
		return t.e->rank != d.first_rank || t.e->cls != d.cls;
	});
	if (job_level(d.cls))
		d.confidence = cx.have_job_end_line && cx.have_sacct ? "high" : "medium";
	else if (d.first_rank >= 0 && d.borrowed_rank < 0 && !tie_other_rank && !b->inherited_time && b->time_us != no_time)
		d.confidence = "high";
	else if (d.first_rank >= 0 || d.first_host >= 0)
		d.confidence = "medium";
	else
		d.confidence = "low";
	if (d.first && d.first->role == event_role::initiating && b->weight < 50 && d.confidence == "high")
		d.confidence = "medium";
	if (d.common_mode > 0)
		d.confidence = "medium";
	if (std::any_of(d.ties.begin(), d.ties.end(), [&](const candidate &t) { return t.e->rank != d.first_rank; }))
		d.notes.push_back(
			"another rank's fault is within the clocks' uncertainty of the first one; both are in the evidence");
}

} // namespace diag
