#include "fr/fr_bridge.hh"

#include "fr/fr_analysis.hh"


namespace diag {

bool looks_like_fr_json(std::string_view text)
{
	std::string_view head = text.substr(0, 4096);
	return head.find("\"pg_config\"") != std::string_view::npos ||
	       (head.find("\"entries\"") != std::string_view::npos && head.find("\"version\"") != std::string_view::npos);
}

hang_structure analyse_fr_paths(const std::vector<std::string> &paths, evidence &ev)
{
	hang_structure hs;
	fr_load_options lo;
	lo.no_follow = true;
	fr_collection c = fr_load_paths(paths, lo);
	for (const auto &u : c.unreadable) {
		ev.warnings.push_back(u.path + ": flight-recorder dump unreadable: " + u.error);
		// The error repeats the path; the verdict names the file once.
		std::string why = u.error.rfind(u.path + ": ", 0) == 0 ? u.error.substr(u.path.size() + 2) : u.error;
		hs.refused.emplace_back(u.path, why);
	}
	if (c.dumps.empty())
		return hs;
	fr_analyze_options ao;
	for (const auto &r : ev.ranks.all())
		ao.world.push_back(r.first);
	fr_report rep = fr_analyze(c, ao);
	hs.present = true;
	hs.source = paths.size() == 1 ? paths[0] : "flight recorder (" + std::to_string(c.dumps.size()) + " dumps)";
	// Every suspect, most telling first: a rank without a dump (a dead GPU
	// often writes none) stays one beside a rank that never enqueued.
	for (const auto &s : rep.suspects) {
		hs.suspects.push_back(s.rank);
		hs.suspect_why.push_back(s.detail);
		hs.lines.push_back(s.detail);
	}
	if (!rep.summary.empty())
		hs.lines.insert(hs.lines.begin(), rep.summary);
	for (const auto &a : rep.anchors) {
		std::vector<std::pair<int, int64_t>> pts;
		for (const auto &p : a.points)
			pts.emplace_back(p.rank, p.time_ns / 1000);
		hs.anchors.push_back(std::move(pts));
	}
	return hs;
}

} // namespace diag
