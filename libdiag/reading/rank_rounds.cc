#include "reading/rank_rounds.hh"

#include <algorithm>
#include <utility>

namespace diag {

namespace {

// Bounds: a file's distinct kinds of rank lines, and the text they hash.
constexpr size_t max_kinds = 256;
constexpr size_t max_body = 240;
constexpr size_t max_ranks = 1u << 16;
constexpr size_t sample_len = 100;

// The line with its numbers taken out (a sample id, a step, the rank
// itself when the text names it): lines of one kind hash alike.
uint64_t kind_of(std::string_view body)
{
	uint64_t h = 1469598103934665603ull;
	bool in_number = false;
	size_t end = std::min(body.size(), max_body);
	while (end > 0 && (body[end - 1] == ' ' || body[end - 1] == '\t' || body[end - 1] == '\r'))
		end--;
	for (size_t i = 0; i < end; i++) {
		unsigned char c = static_cast<unsigned char>(body[i]);
		bool digit = c >= '0' && c <= '9';
		if (digit && in_number)
			continue;
		in_number = digit;
		h = (h ^ (digit ? '#' : c)) * 1099511628211ull;
	}
	return h;
}

} // namespace

void rank_rounds::note(std::string_view body, int rank, uint64_t line, const ts_value *ts)
{
	// (Too short to be a kind of its own: a bare number, a bracket.)
	if (rank < 0 || body.size() < 8)
		return;
	uint64_t k = kind_of(body);
	auto it = kinds.find(k);
	if (it == kinds.end()) {
		if (kinds.size() >= max_kinds) {
			kinds_full = true; // (its newest lines no longer all kept)
			return;
		}
		it = kinds.emplace(k, line_kind{}).first;
		// (Its numbers as N: the line of no rank in particular.)
		std::string &sample = it->second.sample;
		for (size_t i = 0; i < body.size() && sample.size() < sample_len; i++) {
			bool digit = body[i] >= '0' && body[i] <= '9';
			if (!digit)
				sample.push_back(body[i]);
			else if (i == 0 || body[i - 1] < '0' || body[i - 1] > '9')
				sample.push_back('N');
		}
	}
	auto &ranks = it->second.ranks;
	if (ranks.size() >= max_ranks && !ranks.count(rank))
		return;
	if (recent.size() < max_ranks || recent.count(rank)) {
		rank_recent &rr = recent[rank];
		for (size_t i = recent_lines - 1; i > 0; i--)
			rr.lines[i] = rr.lines[i - 1];
		recent_line &l = rr.lines[0];
		l.kind = k;
		l.line = line;
		l.us = ts ? file_local_us(*ts) : INT64_MIN;
		l.stamp_kind = ts ? ts->kind : ts_kind::none;
		l.stamp_year = ts && ts->year != 0;
		rr.n = std::min(rr.n + 1, recent_lines);
	}
	rank_lines &r = ranks[rank];
	if (r.count++ == 0)
		r.first = line;
	r.last[2] = r.last[1];
	r.last[1] = r.last[0];
	r.last[0] = line;
	r.last_us[2] = r.last_us[1];
	r.last_us[1] = r.last_us[0];
	r.last_us[0] = ts ? file_local_us(*ts) : INT64_MIN;
	r.stamp_kind = ts ? ts->kind : ts_kind::none;
	r.stamp_year = ts && ts->year != 0;
}

int rank_rounds::most_ranks() const
{
	int most = 0;
	for (const auto &k : kinds) {
		int n = 0;
		for (const auto &r : k.second.ranks)
			n += r.second.count >= 2;
		most = std::max(most, n);
	}
	return most;
}

void rank_rounds::conclude(uint32_t file, std::vector<round_gap> &out) const
{
	for (const auto &k : kinds) {
		const auto &ranks = k.second.ranks;
		// Three ranks at least: with two, which one is behind is a guess.
		if (ranks.size() < 3)
			continue;
		const std::pair<const int, rank_lines> *behind = nullptr;
		for (const auto &r : ranks)
			if (!behind || r.second.last[0] < behind->second.last[0])
				behind = &r;
		// It printed the line in turn before it stopped (not a line that
		// comes once, as a traceback's does).
		if (behind->second.count < 3)
			continue;
		// Each other rank printed it before the one stopped too: their
		// lines were interleaved, in turn (one rank's whole log after
		// another's, each pod's in its section, says nothing of who stopped).
		const uint64_t stopped = behind->second.last[0];
		bool all_went_on = true;
		for (const auto &r : ranks)
			if (&r != behind && !(r.second.count >= 2 && r.second.last[1] > stopped && r.second.first < stopped))
				all_went_on = false;
		if (!all_went_on)
			continue;
		round_gap g;
		g.file = file;
		g.rank = behind->first;
		g.line = stopped;
		g.ranks = static_cast<int>(ranks.size());
		g.sample = k.second.sample;
		for (const auto &r : ranks)
			if (&r != behind && r.second.last_us[0] != INT64_MIN && r.second.last_us[0] > g.others_last_us) {
				g.others_last_us = r.second.last_us[0];
				g.stamp_kind = r.second.stamp_kind;
				g.stamp_year = r.second.stamp_year;
			}
		out.push_back(std::move(g));
	}
}

void rank_rounds::conclude_ahead(uint32_t file, bool is_task, std::vector<ahead_round> &out) const
{
	if (kinds_full)
		return;
	const ahead_round *found = nullptr;
	ahead_round best;
	for (const auto &k : kinds) {
		const auto &ranks = k.second.ranks;
		// Three ranks at least, in step for two rounds at least.
		if (ranks.size() < 3)
			continue;
		const std::pair<const int, rank_lines> *ahead = nullptr;
		int most = 0;
		for (const auto &r : ranks)
			most = std::max(most, r.second.count);
		bool in_step = true;
		for (const auto &r : ranks) {
			if (r.second.count == most) {
				if (ahead)
					in_step = false; // two ahead: a round under way
				ahead = &r;
			} else if (r.second.count != most - 1) {
				in_step = false;
			}
		}
		if (!in_step || !ahead || most < 3)
			continue;
		// Its extra line came after every other's last, and the two rounds
		// before it all had times: their spread is how in step they were.
		const rank_lines &a = ahead->second;
		int64_t spread = 0;
		bool timed = a.last_us[0] != INT64_MIN;
		for (int round = 0; round < 2 && timed; round++) {
			int64_t lo = a.last_us[round + 1], hi = a.last_us[round + 1];
			for (const auto &r : ranks) {
				if (&r == ahead)
					continue;
				const int64_t t = r.second.last_us[round];
				if (t == INT64_MIN || r.second.last[0] > a.last[0]) {
					timed = false;
					break;
				}
				lo = std::min(lo, t);
				hi = std::max(hi, t);
			}
			timed = timed && lo != INT64_MIN;
			if (timed)
				spread = std::max(spread, hi - lo);
		}
		if (!timed)
			continue;
		if (found && best.rank != ahead->first)
			return; // two ranks each ahead in a kind of its own: no one
		if (found && best.line > a.last[0])
			continue;
		best.file = file;
		best.rank = ahead->first;
		best.is_task = is_task;
		best.line = a.last[0];
		best.us = a.last_us[0];
		best.stamp_kind = a.stamp_kind;
		best.stamp_year = a.stamp_year;
		best.spread_us = spread;
		best.rounds = most - 1;
		best.sample = k.second.sample;
		found = &best;
	}
	if (found)
		out.push_back(best);
}

void rank_rounds::conclude_lone_phase(uint32_t file, bool is_task, std::vector<lone_phase> &out) const
{
	// Kinds two ranks or more printed: what the ranks shared.
	auto shared = [&](uint64_t k) {
		auto it = kinds.find(k);
		return it != kinds.end() && it->second.ranks.size() >= 2;
	};
	if (recent.size() < 2 || kinds_full)
		return;
	const std::pair<const int, rank_recent> *lone = nullptr;
	for (const auto &r : recent) {
		const rank_recent &rr = r.second;
		// Its newest lines of kinds only it printed, down to its last
		// shared one (none within its recent lines: it went its own way
		// long before, as a rank that alone logs the training does).
		size_t own = 0;
		while (own < rr.n && !shared(rr.lines[own].kind))
			own++;
		if (own == rr.n)
			return;
		if (own == 0)
			continue;
		if (lone)
			return; // two ranks each on a phase of their own
		lone = &r;
	}
	if (!lone)
		return;
	const recent_line &l = lone->second.lines[0];
	lone_phase p;
	p.file = file;
	p.rank = lone->first;
	p.is_task = is_task;
	p.line = l.line;
	p.us = l.us;
	p.stamp_kind = l.stamp_kind;
	p.stamp_year = l.stamp_year;
	out.push_back(p);
}

} // namespace diag
