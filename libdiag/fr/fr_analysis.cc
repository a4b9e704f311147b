// Flight-recorder analysis: see fr_analysis.hh.
#include "fr/fr_analysis.hh"

#include "rendering/utf8.hh"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace diag {

namespace {

std::string prefix_of(std::string_view base)
{
	size_t end = base.size();
	while (end > 0 && base[end - 1] >= '0' && base[end - 1] <= '9')
		end--;
	return std::string(base.substr(0, end));
}

// The first bytes of a regular file, without following links or blocking
// on FIFOs. false when it is not a readable regular file.
bool read_head(const std::string &path, std::string &out, bool no_follow)
{
	int fd = open(path.c_str(),
		      O_RDONLY | O_CLOEXEC | O_NONBLOCK | (no_follow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	out.resize(4096);
	ssize_t n;
	do
		n = read(fd, &out[0], out.size());
	while (n < 0 && errno == EINTR);
	close(fd);
	out.resize(n > 0 ? static_cast<size_t>(n) : 0);
	return true;
}

void add_loaded(fr_collection &c, const std::string &path, const fr_load_options &opt)
{
	fr_dump_result r = fr_load_dump(path, opt);
	if (r.dump) {
		c.dumps.push_back(std::move(*r.dump));
		return;
	}
	fr_unreadable u;
	u.path = path;
	u.rank = fr_rank_from_name(path).value_or(-1);
	u.error = r.error;
	c.unreadable.push_back(std::move(u));
}

std::string join_ints(const std::vector<int64_t> &v)
{
	std::string s = "[";
	for (size_t k = 0; k < v.size(); k++) {
		if (k)
			s += ", ";
		s += std::to_string(v[k]);
	}
	return s + "]";
}

std::string render_sizes(const std::vector<std::vector<int64_t>> &v)
{
	std::string s = "[";
	for (size_t k = 0; k < v.size(); k++) {
		if (k)
			s += ", ";
		s += join_ints(v[k]);
	}
	return s + "]";
}

std::string render_strs(const std::vector<std::string> &v)
{
	std::string s = "[";
	for (size_t k = 0; k < v.size(); k++) {
		if (k)
			s += ", ";
		s += v[k];
	}
	return s + "]";
}

std::string who(const std::vector<int> &v)
{
	return (v.size() == 1 ? "rank " : "ranks ") + fr_rank_list(v);
}

// Ops whose shapes may legitimately differ across ranks: all_to_all(v),
// coalesced groups, gather/scatter (only the root has the list).
bool sizes_comparable(std::string_view op)
{
	auto has = [&](const char *s) { return op.find(s) != std::string_view::npos; };
	if (has("all_to_all") || has("alltoall") || has("coalesced"))
		return false;
	if (has("gather") && !has("all"))
		return false;
	if (has("scatter") && !has("reduce"))
		return false;
	return true;
}

struct vote {
	int rank;
	std::string value;
};

// The majority value (ties: the value of the lowest rank) and the ranks
// that differ from it.
std::string majority(const std::vector<vote> &votes, std::vector<const vote *> &odd)
{
	std::map<std::string, std::pair<size_t, int>> count; // value -> (n, lowest rank)
	for (const vote &v : votes) {
		auto &c = count[v.value];
		if (c.first == 0 || v.rank < c.second)
			c.second = v.rank;
		c.first++;
	}
	const std::string *best = nullptr;
	size_t best_n = 0;
	int best_rank = 0;
	for (const auto &[val, c] : count) {
		if (!best || c.first > best_n || (c.first == best_n && c.second < best_rank)) {
			best = &val;
			best_n = c.first;
			best_rank = c.second;
		}
	}
	odd.clear();
	if (!best)
		return "";
	for (const vote &v : votes)
		if (v.value != *best)
			odd.push_back(&v);
	return *best;
}

struct pg_acc {
	std::string name, desc;
	std::vector<int> ranks;
	bool ranks_known = false;
	std::map<int, std::map<int64_t, const fr_entry *>> coll; // rank -> seq -> newest entry
	std::map<int, std::vector<const fr_entry *>> p2p;
	std::map<int, int64_t> local_id; // rank -> pg_id, for pg_status
	std::set<int> with_entries;
};

struct rank_view {
	const std::map<int64_t, const fr_entry *> *e = nullptr;
	int64_t last_enq = -1, last_done = -1;
	bool known = false; // false: its ring wrapped and holds nothing of this PG
};

void analyze_pg(pg_acc &g, const std::map<int, const fr_dump *> &by_rank,
		const std::set<int> &wrapped, const fr_analyze_options &opt, fr_pg_report &out,
		std::vector<fr_anchor> &anchors)
{
	static const std::map<int64_t, const fr_entry *> no_entries;
	out.name = g.name;
	out.desc = g.desc;
	out.ranks_known = g.ranks_known;
	out.ranks = g.ranks_known ? g.ranks
				  : std::vector<int>(g.with_entries.begin(), g.with_entries.end());

	std::map<int, rank_view> md; // dumped members
	for (int r : out.ranks) {
		auto d = by_rank.find(r);
		if (d == by_rank.end()) {
			out.ranks_without_dump.push_back(r);
			continue;
		}
		rank_view &v = md[r];
		auto c = g.coll.find(r);
		v.e = c == g.coll.end() ? &no_entries : &c->second;
		for (const auto &[seq, e] : *v.e) {
			v.last_enq = std::max(v.last_enq, seq);
			if (e->state == fr_state::completed)
				v.last_done = std::max(v.last_done, seq);
		}
		bool status = false;
		if (auto id = g.local_id.find(r); id != g.local_id.end()) {
			if (const fr_pg_status *s = d->second->find_status(id->second)) {
				status = true;
				v.last_enq = std::max(v.last_enq, s->last_enqueued);
				v.last_done = std::max(v.last_done, s->last_completed);
			}
		}
		v.known = !v.e->empty() || status || !wrapped.count(r);
	}

	// Comparable window: a rank whose ring wrapped may have lost older seqs.
	std::set<int64_t> seqs;
	int64_t lo = INT64_MIN;
	for (const auto &[r, v] : md) {
		for (const auto &kv : *v.e)
			seqs.insert(kv.first);
		if (wrapped.count(r) && !v.e->empty())
			lo = std::max(lo, v.e->begin()->first);
	}
	seqs.erase(seqs.begin(), seqs.lower_bound(lo));
	if (!seqs.empty()) {
		out.first_seq = *seqs.begin();
		out.last_seq = *seqs.rbegin();
	}

	bool mismatch_seen = false;
	std::vector<fr_anchor> mine;
	for (int64_t s : seqs) {
		std::vector<int> missing, stuck, done, unknown;
		std::vector<vote> ops, sizes, dtypes;
		for (const auto &[r, v] : md) {
			auto it = v.e->find(s);
			if (it == v.e->end()) {
				if (v.known && s > v.last_enq)
					missing.push_back(r);
				else
					unknown.push_back(r);
				continue;
			}
			const fr_entry &e = *it->second;
			(e.state == fr_state::completed ? done : stuck).push_back(r);
			ops.push_back({r, e.profiling_name});
			sizes.push_back({r, render_sizes(e.input_sizes) + " -> " +
						    render_sizes(e.output_sizes)});
			dtypes.push_back({r, render_strs(e.input_dtypes) + " -> " +
						     render_strs(e.output_dtypes)});
		}
		std::vector<const vote *> odd;
		std::string op = majority(ops, odd);
		if (!out.stalled) {
			if (missing.empty() && stuck.empty()) {
				out.last_completed_all = s;
			} else {
				out.stalled = true;
				out.stop_seq = s;
				out.stop_op = op;
				out.missing = missing;
				out.stuck = stuck;
				out.completed = done;
				out.unknown = unknown;
			}
		}
		if (!mismatch_seen && ops.size() >= 2) {
			// Op type first; sizes and dtypes only mean something for one op.
			fr_mismatch_kind kind = fr_mismatch_kind::op_type;
			std::string expected = op;
			if (odd.empty() && sizes_comparable(op)) {
				kind = fr_mismatch_kind::sizes;
				expected = majority(sizes, odd);
			}
			if (odd.empty()) {
				kind = fr_mismatch_kind::dtypes;
				// gather/scatter: only inputs are the same everywhere.
				if (!sizes_comparable(op))
					for (vote &v : dtypes)
						v.value = v.value.substr(0, v.value.find(" -> "));
				expected = majority(dtypes, odd);
			}
			const std::vector<vote> &votes =
				kind == fr_mismatch_kind::op_type ? ops : kind == fr_mismatch_kind::sizes ? sizes : dtypes;
			auto holding = [&votes](const std::string &value) {
				return std::count_if(votes.begin(), votes.end(),
						     [&value](const vote &x) { return x.value == value; });
			};
			for (const vote *v : odd) {
				mismatch_seen = true;
				if (out.mismatches.size() >= opt.mismatch_cap)
					break;
				fr_mismatch m;
				m.seq = s;
				m.kind = kind;
				m.culprit = v->rank;
				m.expected = expected;
				m.found = v->value;
				m.outvoted = holding(m.found) < holding(m.expected);
				out.mismatches.push_back(std::move(m));
			}
		}
		if (done.size() >= 2) {
			fr_anchor a;
			a.pg = g.name;
			a.seq = s;
			a.op = op;
			for (int r : done) {
				const fr_entry &e = *md[r].e->at(s);
				fr_anchor_point p;
				p.rank = r;
				p.created_ns = e.time_created_ns;
				p.completed_ns = e.time_discovered_completed_ns;
				if (p.completed_ns > 0) {
					p.time_ns = p.completed_ns;
					p.source = fr_time_source::discovered_completed;
				} else {
					p.time_ns = p.created_ns;
					p.source = fr_time_source::created;
				}
				a.points.push_back(p);
			}
			mine.push_back(std::move(a));
		}
	}
	size_t keep = std::min(mine.size(), opt.max_anchors_per_pg);
	for (size_t k = mine.size() - keep; k < mine.size(); k++)
		anchors.push_back(std::move(mine[k]));

	for (const auto &[r, list] : g.p2p) {
		if (!md.count(r))
			continue;
		for (const fr_entry *e : list)
			if (e->state != fr_state::completed) {
				out.p2p_pending.push_back(r);
				break;
			}
	}

	for (int r : out.ranks) {
		fr_rank_progress p;
		p.rank = r;
		auto it = md.find(r);
		if (it == md.end()) {
			p.state_at_stop = "no dump";
			out.progress.push_back(p);
			continue;
		}
		p.last_enqueued = it->second.last_enq;
		p.last_completed = it->second.last_done;
		if (!out.stalled) {
			p.state_at_stop = "completed";
		} else if (auto e = it->second.e->find(out.stop_seq); e != it->second.e->end()) {
			p.state_at_stop = std::string(fr_state_name(e->second->state));
		} else {
			bool missing = std::count(out.missing.begin(), out.missing.end(), r) > 0;
			p.state_at_stop = missing ? "missing" : "unknown";
		}
		out.progress.push_back(p);
	}

	std::string s = "pg " + out.name;
	if (!out.desc.empty())
		s += " (" + out.desc + ")";
	s += ", " + std::to_string(out.ranks.size()) + " ranks: ";
	if (seqs.empty()) {
		s += "no collectives recorded";
	} else if (!out.stalled) {
		s += "every recorded collective completed (up to #" +
		     std::to_string(out.last_completed_all) + ")";
	} else {
		s += "stopped at #" + std::to_string(out.stop_seq) + " " + out.stop_op + ": ";
		std::vector<std::string> parts;
		if (!out.missing.empty())
			parts.push_back(who(out.missing) + " never enqueued it");
		if (!out.stuck.empty())
			parts.push_back(who(out.stuck) + (out.stuck.size() == 1 ? " waits" : " wait") +
					" in it");
		if (!out.completed.empty())
			parts.push_back(who(out.completed) + " completed it");
		if (!out.unknown.empty())
			parts.push_back(who(out.unknown) + " enqueued it, evicted from the ring");
		for (size_t k = 0; k < parts.size(); k++)
			s += (k ? "; " : "") + parts[k];
	}
	if (!out.mismatches.empty()) {
		const fr_mismatch &m = out.mismatches.front();
		s += "; " + std::string(fr_mismatch_name(m.kind)) + " mismatch at #" +
		     std::to_string(m.seq) + ": rank " + std::to_string(m.culprit) + " has " +
		     m.found + ", others " + m.expected;
	}
	if (!out.ranks_without_dump.empty())
		s += "; no dump from " + fr_rank_list(out.ranks_without_dump);
	out.summary = std::move(s);
}

void add_suspect(fr_report &r, std::set<int> &seen, int rank, fr_suspect_reason why,
		 const fr_pg_report &pg, int64_t seq, std::string detail)
{
	if (!seen.insert(rank).second)
		return;
	fr_suspect s;
	s.rank = rank;
	s.reason = why;
	s.pg = pg.name;
	s.seq = seq;
	s.detail = std::move(detail);
	r.suspects.push_back(std::move(s));
}

std::string where(const fr_pg_report &pg)
{
	return "#" + std::to_string(pg.stop_seq) + " " + pg.stop_op + " of pg " + pg.name;
}

void find_suspects(fr_report &r)
{
	std::set<int> seen, stuck_any, missing_any;
	for (const fr_pg_report &pg : r.pgs) {
		if (!pg.stalled)
			continue;
		stuck_any.insert(pg.stuck.begin(), pg.stuck.end());
		missing_any.insert(pg.missing.begin(), pg.missing.end());
	}
	// A rank missing somewhere and waiting nowhere is where the wait ends.
	for (const fr_pg_report &pg : r.pgs) {
		if (!pg.stalled)
			continue;
		for (int m : pg.missing) {
			if (stuck_any.count(m))
				continue;
			add_suspect(r, seen, m, fr_suspect_reason::never_enqueued, pg, pg.stop_seq,
				    "rank " + std::to_string(m) + " never enqueued " + where(pg) +
					    (pg.stuck.empty() ? std::string()
							      : "; " + who(pg.stuck) + " wait in it"));
		}
	}
	// Everyone missing somewhere waits elsewhere: a cross-PG deadlock. The
	// rank on the smaller side of the most stalled PGs broke the order.
	if (r.suspects.empty() && !missing_any.empty()) {
		std::map<int, int> count;
		std::map<int, const fr_pg_report *> first;
		for (const fr_pg_report &pg : r.pgs) {
			if (!pg.stalled || pg.missing.empty() || pg.stuck.empty())
				continue;
			const std::vector<int> &odd =
				pg.missing.size() <= pg.stuck.size() ? pg.missing : pg.stuck;
			for (int x : odd) {
				count[x]++;
				first.emplace(x, &pg);
			}
		}
		int best = 0;
		for (const auto &kv : count)
			best = std::max(best, kv.second);
		for (const auto &[rank, n] : count) {
			if (n != best)
				continue;
			const fr_pg_report &pg = *first[rank];
			add_suspect(r, seen, rank, fr_suspect_reason::odd_one_out, pg, pg.stop_seq,
				    "rank " + std::to_string(rank) + " is on the odd side of " +
					    std::to_string(n) +
					    " stalled process groups (cross-group deadlock), first " +
					    where(pg));
		}
	}
	// Completed on most, pending on a few: the few.
	for (const fr_pg_report &pg : r.pgs) {
		if (!pg.stalled || !pg.missing.empty() || pg.completed.empty() ||
		    pg.stuck.size() >= pg.completed.size())
			continue;
		for (int x : pg.stuck)
			add_suspect(r, seen, x, fr_suspect_reason::stuck, pg, pg.stop_seq,
				    "rank " + std::to_string(x) + " did not complete " + where(pg) +
					    ", which ranks " + fr_rank_list(pg.completed) +
					    " completed");
	}
	for (const fr_pg_report &pg : r.pgs) {
		for (const fr_mismatch &m : pg.mismatches)
			if (m.outvoted)
				add_suspect(r, seen, m.culprit, fr_suspect_reason::mismatch, pg, m.seq,
					    "rank " + std::to_string(m.culprit) + " " +
						    std::string(fr_mismatch_name(m.kind)) + " mismatch at #" +
						    std::to_string(m.seq) + " of pg " + pg.name + ": has " +
						    m.found + ", others " + m.expected);
	}
	// A missing dump is evidence, but weak: only when nothing else explains.
	if (r.suspects.empty()) {
		for (const fr_pg_report &pg : r.pgs) {
			if (!pg.stalled || !pg.missing.empty() || pg.ranks_without_dump.empty())
				continue;
			for (int x : pg.ranks_without_dump)
				add_suspect(r, seen, x, fr_suspect_reason::no_dump, pg, pg.stop_seq,
					    "no dump from rank " + std::to_string(x) + "; every rank with a dump waits in " +
						    where(pg));
		}
	}
}

} // namespace

std::string_view fr_mismatch_name(fr_mismatch_kind k)
{
	switch (k) {
	case fr_mismatch_kind::op_type: return "op_type";
	case fr_mismatch_kind::sizes: return "sizes";
	case fr_mismatch_kind::dtypes: return "dtypes";
	}
	return "?";
}

std::string_view fr_suspect_reason_name(fr_suspect_reason r)
{
	switch (r) {
	case fr_suspect_reason::never_enqueued: return "never_enqueued";
	case fr_suspect_reason::odd_one_out: return "odd_one_out";
	case fr_suspect_reason::stuck: return "stuck";
	case fr_suspect_reason::mismatch: return "mismatch";
	case fr_suspect_reason::no_dump: return "no_dump";
	}
	return "?";
}

std::string fr_rank_list(const std::vector<int> &ranks)
{
	std::vector<int> v(ranks);
	std::sort(v.begin(), v.end());
	v.erase(std::unique(v.begin(), v.end()), v.end());
	std::string s;
	for (size_t k = 0; k < v.size();) {
		size_t j = k;
		while (j + 1 < v.size() && v[j + 1] == v[j] + 1)
			j++;
		if (!s.empty())
			s += ",";
		s += std::to_string(v[k]);
		if (j > k)
			s += (j == k + 1 ? "," : "-") + std::to_string(v[j]);
		k = j + 1;
	}
	return s;
}

fr_collection fr_load_paths(const std::vector<std::string> &paths, const fr_load_options &opt)
{
	fr_collection c;
	for (const std::string &p : paths) {
		struct stat st;
		int rc = opt.no_follow ? lstat(p.c_str(), &st) : stat(p.c_str(), &st);
		if (rc == 0 && S_ISDIR(st.st_mode)) {
			DIR *dir = opendir(p.c_str());
			if (!dir) {
				c.unreadable.push_back({p, -1, p + ": " + strerror(errno)});
				continue;
			}
			std::vector<std::string> names;
			while (struct dirent *de = readdir(dir)) {
				if (de->d_name[0] != '.')
					names.push_back(de->d_name);
			}
			closedir(dir);
			std::sort(names.begin(), names.end());
			// Pass 1: what sniffs as a dump. Pass 2: files that share a
			// dump's prefix and end in digits are dumps too, even when cut
			// too short to sniff (pytorch#145125).
			std::set<std::string> prefixes;
			std::vector<bool> is_dump(names.size());
			std::string head;
			for (size_t k = 0; k < names.size(); k++) {
				std::string full = p + "/" + names[k];
				if (read_head(full, head, opt.no_follow) && fr_sniff(head)) {
					is_dump[k] = true;
					prefixes.insert(prefix_of(names[k]));
				}
			}
			for (size_t k = 0; k < names.size(); k++) {
				std::string full = p + "/" + names[k];
				if (!is_dump[k] && (!fr_rank_from_name(names[k]) ||
						    !prefixes.count(prefix_of(names[k]))))
					continue;
				add_loaded(c, full, opt);
			}
		} else {
			add_loaded(c, p, opt);
		}
	}
	return c;
}

fr_report fr_analyze(const std::vector<fr_dump> &dumps, const std::vector<fr_unreadable> &unreadable,
		     const fr_analyze_options &opt)
{
	fr_report r;
	r.unreadable = unreadable;
	std::map<int, const fr_dump *> by_rank;
	std::set<std::string> versions;
	for (const fr_dump &d : dumps) {
		if (d.rank < 0) {
			r.warnings.push_back(d.path + ": no rank in the file name or content; ignored");
			continue;
		}
		if (!by_rank.emplace(d.rank, &d).second) {
			r.warnings.push_back(d.path + ": a second dump for rank " +
					     std::to_string(d.rank) + "; ignored");
			continue;
		}
		if (!d.version.empty())
			versions.insert(d.version);
		// A few per dump are enough to see what was odd.
		for (size_t k = 0; k < d.warnings.size() && k < 4; k++)
			r.warnings.push_back(d.path + ": " + d.warnings[k]);
	}
	r.versions.assign(versions.begin(), versions.end());
	if (versions.size() > 1)
		r.warnings.push_back("dumps disagree on the version: " + render_strs(r.versions));
	for (const auto &kv : by_rank)
		r.ranks_with_dump.push_back(kv.first);

	// Where each rank's entries start (torchfrtrace alignment, optional),
	// and whose ring has wrapped (record ids start at 0).
	int64_t align = INT64_MIN;
	std::set<int> wrapped;
	for (const auto &[rank, d] : by_rank) {
		if (d->entries.empty())
			continue;
		if (d->entries.front().record_id > 0)
			wrapped.insert(rank);
		if (opt.record_id_alignment)
			align = std::max(align, d->entries.front().record_id);
	}

	// Known rank sets per PG name, to place ranks whose pg_config lacks one.
	std::map<std::string, std::set<std::vector<int>>> known;
	for (const auto &kv : by_rank)
		for (const fr_pg_config &p : kv.second->pg_config)
			if (p.ranks_known)
				known[p.name].insert(p.ranks);

	std::map<std::string, pg_acc> groups; // key: name|ranks
	std::vector<std::string> order;
	for (const auto &[rank, d] : by_rank) {
		for (const fr_entry &e : d->entries) {
			if (e.record_id < align)
				continue;
			std::string name = e.pg_name.empty() ? "pg_id:" + std::to_string(e.pg_id)
							     : e.pg_name;
			const fr_pg_config *cfg = d->find_pg(name);
			std::vector<int> ranks;
			bool ranks_known = false;
			if (cfg && cfg->ranks_known) {
				ranks = cfg->ranks;
				ranks_known = true;
			} else if (auto k = known.find(name); k != known.end()) {
				for (const std::vector<int> &set : k->second)
					if (std::binary_search(set.begin(), set.end(), rank)) {
						ranks = set;
						ranks_known = true;
						break;
					}
			}
			std::string key = name + "|" + (ranks_known ? fr_rank_list(ranks) : "?");
			auto [it, fresh] = groups.try_emplace(key);
			pg_acc &g = it->second;
			if (fresh) {
				order.push_back(key);
				g.name = name;
				g.ranks = ranks;
				g.ranks_known = ranks_known;
			}
			if (g.desc.empty())
				g.desc = !e.pg_desc.empty() ? e.pg_desc : cfg ? cfg->desc : "";
			g.with_entries.insert(rank);
			if (e.pg_id >= 0)
				g.local_id[rank] = e.pg_id;
			if (e.is_p2p)
				g.p2p[rank].push_back(&e);
			else if (e.collective_seq_id >= 0)
				g.coll[rank][e.collective_seq_id] = &e; // newest wins
		}
	}
	// Stable, readable order: by PG name (numeric names numerically), then key.
	std::sort(order.begin(), order.end(), [&](const std::string &a, const std::string &b) {
		const pg_acc &x = groups[a], &y = groups[b];
		auto num = [](const std::string &s) {
			return !s.empty() && s.size() < 10 &&
			       s.find_first_not_of("0123456789") == std::string::npos;
		};
		if (num(x.name) && num(y.name) && x.name != y.name)
			return std::stoi(x.name) < std::stoi(y.name);
		return a < b;
	});

	std::set<int> expected(opt.world.begin(), opt.world.end());
	for (const std::string &key : order) {
		fr_pg_report pg;
		analyze_pg(groups[key], by_rank, wrapped, opt, pg, r.anchors);
		if (opt.world.empty() && pg.ranks_known)
			expected.insert(pg.ranks.begin(), pg.ranks.end());
		r.pgs.push_back(std::move(pg));
	}
	for (const fr_unreadable &u : unreadable)
		if (u.rank >= 0 && opt.world.empty())
			expected.insert(u.rank);
	for (int x : expected)
		if (!by_rank.count(x))
			r.ranks_without_dump.push_back(x);

	find_suspects(r);

	if (!r.suspects.empty()) {
		std::vector<int> ranks;
		for (const fr_suspect &s : r.suspects)
			ranks.push_back(s.rank);
		r.summary = "suspect rank" + std::string(ranks.size() > 1 ? "s " : " ") +
			    fr_rank_list(ranks) + ": " + r.suspects.front().detail;
	} else {
		const fr_pg_report *stalled = nullptr;
		for (const fr_pg_report &pg : r.pgs)
			if (pg.stalled && !stalled)
				stalled = &pg;
		if (stalled)
			r.summary = "no rank singled out: every rank with a dump waits in " +
				    where(*stalled) + " (look beyond the collectives: network, GPU)";
		else if (r.pgs.empty())
			r.summary = "no collectives recorded";
		else
			r.summary = "every recorded collective completed on every rank with a dump";
	}
	bool said = !r.suspects.empty() && r.suspects.front().reason == fr_suspect_reason::no_dump;
	if (!r.ranks_without_dump.empty() && !said)
		r.summary += "; no dump from rank " + fr_rank_list(r.ranks_without_dump);
	return r;
}

namespace {

json_t *int_array(const std::vector<int> &v)
{
	json_t *a = json_array();
	for (int x : v)
		json_array_append_new(a, json_integer(x));
	return a;
}

json_t *str(const std::string &s)
{
	std::string v = valid_utf8(s);
	return json_stringn(v.data(), v.size());
}

json_t *seq_or_null(int64_t s)
{
	return s >= 0 ? json_integer(s) : json_null();
}

} // namespace

json_t *fr_report_to_json(const fr_report &r)
{
	json_t *o = json_object();
	json_object_set_new(o, "summary", str(r.summary));
	json_object_set_new(o, "ranks_with_dump", int_array(r.ranks_with_dump));
	json_object_set_new(o, "ranks_without_dump", int_array(r.ranks_without_dump));
	json_t *un = json_array();
	for (const fr_unreadable &u : r.unreadable) {
		json_t *x = json_object();
		json_object_set_new(x, "path", str(u.path));
		json_object_set_new(x, "rank", u.rank >= 0 ? json_integer(u.rank) : json_null());
		json_object_set_new(x, "error", str(u.error));
		json_array_append_new(un, x);
	}
	json_object_set_new(o, "unreadable", un);
	json_t *ver = json_array();
	for (const std::string &v : r.versions)
		json_array_append_new(ver, str(v));
	json_object_set_new(o, "versions", ver);

	json_t *sus = json_array();
	for (const fr_suspect &s : r.suspects) {
		json_t *x = json_object();
		json_object_set_new(x, "rank", json_integer(s.rank));
		json_object_set_new(x, "reason", json_string(std::string(fr_suspect_reason_name(s.reason)).c_str()));
		json_object_set_new(x, "pg", str(s.pg));
		json_object_set_new(x, "seq", seq_or_null(s.seq));
		json_object_set_new(x, "detail", str(s.detail));
		json_array_append_new(sus, x);
	}
	json_object_set_new(o, "suspects", sus);

	json_t *pgs = json_array();
	for (const fr_pg_report &pg : r.pgs) {
		json_t *x = json_object();
		json_object_set_new(x, "name", str(pg.name));
		json_object_set_new(x, "desc", str(pg.desc));
		json_object_set_new(x, "ranks", int_array(pg.ranks));
		json_object_set_new(x, "ranks_known", json_boolean(pg.ranks_known));
		json_object_set_new(x, "ranks_without_dump", int_array(pg.ranks_without_dump));
		json_object_set_new(x, "first_seq", seq_or_null(pg.first_seq));
		json_object_set_new(x, "last_seq", seq_or_null(pg.last_seq));
		json_object_set_new(x, "last_completed_all", seq_or_null(pg.last_completed_all));
		json_object_set_new(x, "stalled", json_boolean(pg.stalled));
		json_object_set_new(x, "stop_seq", seq_or_null(pg.stop_seq));
		json_object_set_new(x, "stop_op", pg.stalled ? str(pg.stop_op) : json_null());
		json_object_set_new(x, "missing", int_array(pg.missing));
		json_object_set_new(x, "stuck", int_array(pg.stuck));
		json_object_set_new(x, "completed", int_array(pg.completed));
		json_object_set_new(x, "unknown", int_array(pg.unknown));
		json_object_set_new(x, "p2p_pending", int_array(pg.p2p_pending));
		json_t *mm = json_array();
		for (const fr_mismatch &m : pg.mismatches) {
			json_t *y = json_object();
			json_object_set_new(y, "seq", json_integer(m.seq));
			json_object_set_new(y, "kind", json_string(std::string(fr_mismatch_name(m.kind)).c_str()));
			json_object_set_new(y, "culprit", json_integer(m.culprit));
			json_object_set_new(y, "expected", str(m.expected));
			json_object_set_new(y, "found", str(m.found));
			json_array_append_new(mm, y);
		}
		json_object_set_new(x, "mismatches", mm);
		json_t *pr = json_array();
		for (const fr_rank_progress &p : pg.progress) {
			json_t *y = json_object();
			json_object_set_new(y, "rank", json_integer(p.rank));
			json_object_set_new(y, "last_enqueued", seq_or_null(p.last_enqueued));
			json_object_set_new(y, "last_completed", seq_or_null(p.last_completed));
			json_object_set_new(y, "state_at_stop", str(p.state_at_stop));
			json_array_append_new(pr, y);
		}
		json_object_set_new(x, "progress", pr);
		json_object_set_new(x, "summary", str(pg.summary));
		json_array_append_new(pgs, x);
	}
	json_object_set_new(o, "pgs", pgs);

	json_t *an = json_array();
	for (const fr_anchor &a : r.anchors) {
		json_t *x = json_object();
		json_object_set_new(x, "pg", str(a.pg));
		json_object_set_new(x, "seq", json_integer(a.seq));
		json_object_set_new(x, "op", str(a.op));
		json_t *pts = json_array();
		for (const fr_anchor_point &p : a.points) {
			json_t *y = json_object();
			json_object_set_new(y, "rank", json_integer(p.rank));
			json_object_set_new(y, "time_ns", json_integer(p.time_ns));
			json_object_set_new(y, "source",
					    json_string(p.source == fr_time_source::discovered_completed
								? "discovered_completed"
								: "created"));
			json_array_append_new(pts, y);
		}
		json_object_set_new(x, "points", pts);
		json_array_append_new(an, x);
	}
	json_object_set_new(o, "anchors", an);
	json_t *w = json_array();
	for (const std::string &s : r.warnings)
		json_array_append_new(w, str(s));
	json_object_set_new(o, "warnings", w);
	return o;
}

std::string fr_report_text(const fr_report &r)
{
	std::string s = r.summary + "\n";
	for (const fr_suspect &x : r.suspects)
		s += "  suspect " + std::to_string(x.rank) + " (" +
		     std::string(fr_suspect_reason_name(x.reason)) + "): " + x.detail + "\n";
	for (const fr_pg_report &pg : r.pgs)
		s += pg.summary + "\n";
	for (const fr_unreadable &u : r.unreadable)
		s += "unreadable: " + u.error + "\n";
	for (const std::string &w : r.warnings)
		s += "warning: " + w + "\n";
	return valid_utf8(s);
}

} // namespace diag
