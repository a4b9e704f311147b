// Which events still bear on how the job ended: not those from before the
// job (an earlier job's kernel messages), not those the job survived (the
// same writer kept making progress afterwards).
#include "deciding/context.hh"

#include <algorithm>
#include <climits>

namespace diag {

namespace {

// Kernel messages this long before the job's first sign of life belong to
// an earlier job.
constexpr int64_t kernel_lead_us = 15 * 60 * us_per_s;
constexpr int64_t kernel_tail_us = 5 * 60 * us_per_s;

void job_window(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	int64_t lo = ev.job.start_us, hi = ev.job.end_us;
	if (lo == no_time || hi == no_time) {
		int64_t mn = INT64_MAX, mx = INT64_MIN;
		for (const auto &e : ev.events) {
			if (e.time_us == no_time || ev.sources()[e.file].kind == source_kind::kernel_log)
				continue;
			mn = std::min(mn, e.time_us);
			mx = std::max(mx, e.time_us);
		}
		if (mn != INT64_MAX) {
			if (lo == no_time)
				lo = mn;
			if (hi == no_time)
				hi = mx;
		}
	}
	cx.job_start_us = lo;
	cx.job_end_us = hi;
}

void drop_stale_kernel_events(diagnosis_context &cx)
{
	if (cx.job_start_us == no_time || cx.job_end_us == no_time)
		return; // nothing to bound the window with: keep all
	for (auto &e : cx.ev.events) {
		if (cx.ev.sources()[e.file].kind != source_kind::kernel_log || e.time_us == no_time)
			continue;
		if (e.time_us < cx.job_start_us - kernel_lead_us || e.time_us > cx.job_end_us + kernel_tail_us)
			e.dropped = true;
	}
}

// A failure that the same writer logged and then carried on from (training
// progress printed afterwards) was caught: it is not what killed the job.
void mark_survived(diagnosis_context &cx)
{
	evidence &ev = cx.ev;
	for (auto &e : ev.events) {
		// Unprefixed lines share one writer: another rank's progress after
		// them says nothing about whether this one carried on.
		if (e.role != event_role::initiating || e.kind == rule_kind::job_end || !e.writer_known ||
		    ev.sources()[e.file].kind == source_kind::kernel_log)
			continue;
		auto it = ev.last_progress.find(writer_key(e.file, e.key));
		if (it != ev.last_progress.end() && it->second > e.line + 1)
			e.decoy = true;
	}
}

} // namespace

void pass_relevance(diagnosis_context &cx)
{
	job_window(cx);
	drop_stale_kernel_events(cx);
	mark_survived(cx);
}

} // namespace diag
