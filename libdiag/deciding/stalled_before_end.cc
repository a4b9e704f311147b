// A job whose steps stopped long before its log did, with nothing in the
// logs to say why: it hung. Its ranks stepped every few minutes, then the
// log went on for half an hour or more without a step or an error (a
// signal from outside, the scheduler's closing banner) until it was
// stopped. Said only where nothing else explains the end (the class is
// still unknown and no rank went first), and with low confidence: the
// silence says the job stopped making progress, not why.
#include "deciding/context.hh"
#include "reading/timestamp.hh"

#include <algorithm>
#include <climits>
#include <map>
#include <string>

namespace diag {

void pass_stalled_before_end(diagnosis_context &cx)
{
	decision &d = cx.d;
	const evidence &ev = cx.ev;
	if (d.cls != failure_class::unknown || d.first || d.first_rank >= 0 || !d.suspects.empty())
		return;
	// Per file: its writers' last progress, by time (stamped on the line
	// itself) and by line. Times compare within one file only.
	std::map<uint32_t, int64_t> progress_us;
	std::map<uint32_t, uint64_t> progress_line;
	for (const auto &p : ev.last_progress_us) {
		auto f = static_cast<uint32_t>(p.first >> 32);
		auto it = progress_us.find(f);
		progress_us[f] = it == progress_us.end() ? p.second : std::max(it->second, p.second);
	}
	for (const auto &p : ev.last_progress) {
		auto f = static_cast<uint32_t>(p.first >> 32);
		progress_line[f] = std::max(progress_line[f], p.second);
	}
	int64_t longest = 0;
	for (const auto &p : progress_us) {
		if (p.first >= ev.sources().size())
			continue;
		const source_file &sf = ev.sources()[p.first];
		if (sf.kind != source_kind::job_log || sf.last_stamp.kind == ts_kind::none ||
		    sf.last_stamp_line <= progress_line[p.first])
			continue;
		const int64_t end = file_local_us(sf.last_stamp);
		if (end != INT64_MIN && end - p.second >= hang_silence_us)
			longest = std::max(longest, end - p.second);
	}
	if (longest == 0)
		return;
	const long long minutes = longest / (60LL * 1000000);
	d.cls = failure_class::collective_hang;
	d.confidence = "low";
	d.hang_why = "the job stopped making progress " + std::to_string(minutes) +
		     " minutes before its log ended, with no error in between";
	hang_view behind = ranks_behind_in_steps(ev);
	if (behind.suspects.size() == 1) {
		d.first_rank = behind.suspects[0];
		d.rank_singled_out = true;
		d.hang_why = behind.why;
	}
	d.notes.push_back("no error explains the end, but the job's last step came " + std::to_string(minutes) +
			  " minutes before its log ended: it hung");
}

} // namespace diag
