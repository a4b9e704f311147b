#include "aligning/progress_clock.hh"

#include "reading/timestamp.hh"

namespace diag {

progress_clock::progress_clock(const evidence &ev)
{
	for (const event &e : ev.events) {
		if (e.raw_us == no_time || e.time_us == no_time || e.inherited_time || e.ts.kind == ts_kind::none)
			continue;
		uint64_t fk = (static_cast<uint64_t>(e.file) << 8) | static_cast<unsigned>(e.ts.kind);
		by_file_.emplace(fk, &e);
		by_writer_.emplace(writer_key(e.file, e.key), &e);
	}
}

int64_t progress_clock::time_of(const progress_mark &m, int64_t host_offset_us) const
{
	const event *ref = nullptr;
	auto w = by_writer_.find(writer_key(m.file, m.key));
	if (w != by_writer_.end() && w->second->ts.kind == m.ts.kind)
		ref = w->second;
	if (!ref) {
		auto f = by_file_.find((static_cast<uint64_t>(m.file) << 8) | static_cast<unsigned>(m.ts.kind));
		if (f == by_file_.end())
			return no_time;
		ref = f->second;
	}
	ts_context ctx;
	ctx.reference_us = ref->raw_us;
	ctx.tz_known = true;
	ctx.boot_epoch_us = 0;
	auto a = resolve_timestamp(m.ts, ctx), b = resolve_timestamp(ref->ts, ctx);
	if (!a || !b)
		return no_time;
	int64_t raw = ref->raw_us + (*a - *b);
	int64_t offset = host_offset_us != INT64_MIN ? host_offset_us : ref->raw_us - ref->time_us;
	return raw - offset;
}

} // namespace diag
