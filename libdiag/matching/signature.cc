#include "matching/signature.hh"

#include "config/yaml_doc.hh"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <set>

namespace diag {

namespace {

struct kind_name {
	const char *name;
	rule_kind kind;
};
constexpr kind_name kind_names[] = {
	{"plain", rule_kind::plain},       {"traceback", rule_kind::traceback},
	{"exception", rule_kind::exception}, {"rank_map", rule_kind::rank_map},
	{"job_end", rule_kind::job_end},   {"task_exit", rule_kind::task_exit},
	{"progress", rule_kind::progress}, {"xid", rule_kind::xid},
	{"watchdog", rule_kind::watchdog}, {"boot_time", rule_kind::boot_time},
	{"handled", rule_kind::handled},   {"rank_tag", rule_kind::rank_tag},
	{"startup", rule_kind::startup},   {"zone_name", rule_kind::zone_name},
	{"init_trail", rule_kind::init_trail},
};

std::string where(const std::string &path, int line)
{
	return path + ":" + std::to_string(line) + ": ";
}

bool scalar_list(const ynode *n, std::vector<std::string> &out)
{
	if (!n)
		return true;
	if (n->kind == ynode::scalar) {
		out.push_back(n->value);
		return true;
	}
	if (n->kind != ynode::sequence)
		return false;
	for (const auto &it : n->items) {
		if (it.kind != ynode::scalar)
			return false;
		out.push_back(it.value);
	}
	return true;
}

} // namespace

bool rule_set::load_dir(const std::string &dir, std::string &err)
{
	return load_layer(dir, "shipped", false, err);
}

bool rule_set::load_layer(const std::string &dir, const std::string &layer, bool optional, std::string &err)
{
	DIR *d = opendir(dir.c_str());
	if (!d) {
		if (optional && errno == ENOENT)
			return true;
		err = dir + ": cannot open the signature directory";
		return false;
	}
	std::vector<std::string> names;
	while (struct dirent *e = readdir(d)) {
		std::string n = e->d_name;
		if (n.size() > 5 && n.compare(n.size() - 5, 5, ".yaml") == 0 && n[0] != '.')
			names.push_back(n);
	}
	closedir(d);
	std::sort(names.begin(), names.end());
	if (names.empty() && !optional) {
		err = dir + ": no *.yaml signature files";
		return false;
	}
	for (const auto &n : names)
		if (!load_file(dir + "/" + n, err, layer))
			return false;
	return true;
}

bool rule_set::load_file(const std::string &path, std::string &err, const std::string &layer)
{
	auto doc = load_yaml_file(path, err);
	if (!doc)
		return false;
	return add_rules(*doc, path, layer, err);
}

bool rule_set::load_string(std::string_view text, const std::string &name, std::string &err)
{
	auto doc = load_yaml_string(text, name, err);
	if (!doc)
		return false;
	return add_rules(*doc, name, "shipped", err);
}

bool rule_set::add_rules(const ynode &doc, const std::string &path, const std::string &layer, std::string &err)
{
	const ynode *family = doc.get("family");
	const ynode *rules = doc.get("rules");
	if (!family || !family->is_scalar()) {
		err = where(path, doc.line) + "missing 'family'";
		return false;
	}
	if (!rules || rules->kind != ynode::sequence) {
		err = where(path, doc.line) + "missing 'rules' (a list)";
		return false;
	}
	std::vector<rule> added;
	for (const auto &rn : rules->items) {
		rule r;
		r.family = family->value;
		r.file = path;
		r.line = rn.line;
		r.layer = layer;
		auto bad = [&](const std::string &why) {
			err = where(path, rn.line) + (r.id.empty() ? std::string() : "rule " + r.id + ": ") + why;
			return false;
		};
		if (rn.kind != ynode::mapping)
			return bad("a rule must be a mapping");
		static const std::set<std::string> known = {
			"id", "class", "role", "kind", "literal", "pattern", "caseless", "priority",
			"weight", "sources", "summary", "samples", "not_samples", "note", "scope", "rank_of", "literal_at"};
		for (const auto &e : rn.entries)
			if (!known.count(e.first))
				return bad("unknown key '" + e.first + "'");
		const ynode *id = rn.get("id");
		if (!id || !id->is_scalar())
			return bad("missing 'id'");
		r.id = id->value;
		if (r.id.rfind(r.family + ".", 0) != 0)
			return bad("id must start with the family '" + r.family + ".'");
		const rule *lower = find(r.id);
		if ((lower && lower->layer == layer) ||
		    std::any_of(added.begin(), added.end(), [&](const rule &o) { return o.id == r.id; }))
			return bad("duplicate id" + (lower && lower->layer == layer
							     ? " (also " + lower->file + ":" + std::to_string(lower->line) + ")"
							     : std::string()));
		if (lower)
			r.overrides = lower->file + ":" + std::to_string(lower->line);
		const ynode *cls = rn.get("class");
		auto c = cls && cls->is_scalar() ? class_from_name(cls->value) : std::nullopt;
		if (!c)
			return bad("missing or unknown 'class'");
		r.cls = *c;
		const ynode *role = rn.get("role");
		auto ro = role && role->is_scalar() ? role_from_name(role->value) : std::nullopt;
		if (!ro)
			return bad("missing or unknown 'role' (initiating, victim or context)");
		r.role = *ro;
		if (const ynode *k = rn.get("kind")) {
			bool found = false;
			for (const auto &kn : kind_names)
				if (k->is_scalar() && k->value == kn.name) {
					r.kind = kn.kind;
					found = true;
				}
			if (!found)
				return bad("unknown 'kind'");
		}
		if (!scalar_list(rn.get("literal"), r.literals))
			return bad("'literal' must be a string or a list of strings");
		for (const auto &l : r.literals)
			if (l.empty())
				return bad("empty literal");
		if (const ynode *at = rn.get("literal_at")) {
			if (!at->is_scalar() || (at->value != "line_start" && at->value != "anywhere"))
				return bad("'literal_at' must be line_start or anywhere");
			r.literal_at_line_start = at->value == "line_start";
			if (r.literal_at_line_start && r.literals.empty())
				return bad("'literal_at: line_start' needs a 'literal'");
		}
		const ynode *pat = rn.get("pattern");
		if (!pat || !pat->is_scalar())
			return bad("missing 'pattern'");
		r.pattern = pat->value;
		bool caseless = yaml_bool(rn.get("caseless")).value_or(false);
		if (rn.get("caseless") && !yaml_bool(rn.get("caseless")))
			return bad("'caseless' must be true or false");
		regex_error rerr;
		auto rx = regex::compile(r.pattern, caseless, rerr);
		if (!rx)
			return bad("pattern does not compile at offset " + std::to_string(rerr.offset) + ": " + rerr.message);
		r.rx = std::move(*rx);
		if (r.kind == rule_kind::zone_name &&
		    std::none_of(r.rx.names().begin(), r.rx.names().end(), [](const auto &n) { return n.first == "zone"; }))
			return bad("a zone_name rule needs a 'zone' capture (the zone's abbreviation, looked up in zones.yaml)");
		if (rn.get("priority")) {
			auto p = yaml_int(rn.get("priority"));
			if (!p)
				return bad("'priority' must be an integer");
			r.priority = static_cast<int>(*p);
		}
		if (rn.get("weight")) {
			auto w = yaml_int(rn.get("weight"));
			if (!w || *w < 0 || *w > 100)
				return bad("'weight' must be an integer 0..100");
			r.weight = static_cast<int>(*w);
		}
		if (const ynode *s = rn.get("sources")) {
			std::vector<std::string> names;
			if (!scalar_list(s, names))
				return bad("'sources' must be a list");
			r.sources = 0;
			for (const auto &n : names) {
				if (n == "log")
					r.sources |= src_log;
				else if (n == "nccl")
					r.sources |= src_nccl;
				else if (n == "kernel")
					r.sources |= src_kernel;
				else
					return bad("unknown source '" + n + "' (log, nccl, kernel)");
			}
		}
		if (const ynode *sc = rn.get("scope")) {
			if (!sc->is_scalar() || (sc->value != "rank" && sc->value != "node" && sc->value != "job"))
				return bad("'scope' must be rank, node or job");
			r.scope = sc->value == "rank" ? rule::fault_scope::rank
				  : sc->value == "node" ? rule::fault_scope::node : rule::fault_scope::job;
		}
		if (const ynode *ro = rn.get("rank_of")) {
			if (!ro->is_scalar() || (ro->value != "job" && ro->value != "engine"))
				return bad("'rank_of' must be job or engine");
			if (r.kind != rule_kind::rank_tag)
				return bad("'rank_of' is for rank_tag rules");
			r.engine_rank = ro->value == "engine";
		}
		if (const ynode *s = rn.get("summary"); s && s->is_scalar())
			r.summary = s->value;
		if (!scalar_list(rn.get("samples"), r.samples) || r.samples.empty())
			return bad("needs 'samples': at least one line the pattern must match");
		for (const auto &s : r.samples) {
			if (!r.rx.search(s))
				return bad("sample does not match the pattern: \"" + s + "\"");
			if (!r.literals.empty() &&
			    std::none_of(r.literals.begin(), r.literals.end(), [&](const std::string &l) {
				    return r.literal_at_line_start ? s.rfind(l, 0) == 0 : s.find(l) != std::string::npos;
			    }))
				return bad(std::string("sample does not ") + (r.literal_at_line_start ? "begin with" : "contain") +
					   " the literal, so the prefilter would hide it: \"" + s + "\"");
		}
		std::vector<std::string> nots;
		if (!scalar_list(rn.get("not_samples"), nots))
			return bad("'not_samples' must be a list");
		for (const auto &s : nots)
			if (r.rx.search(s))
				return bad("not_sample matches the pattern: \"" + s + "\"");
		added.push_back(std::move(r));
	}
	for (auto &r : added) {
		// A rule of a higher layer takes the place of the one it replaces:
		// the order (ties of priority) stays the shipped one.
		auto same = std::find_if(rs_rules.begin(), rs_rules.end(), [&](const rule &o) { return o.id == r.id; });
		if (same != rs_rules.end()) {
			r.index = same->index;
			*same = std::move(r);
		} else {
			r.index = static_cast<uint32_t>(rs_rules.size());
			rs_rules.push_back(std::move(r));
		}
	}
	return true;
}

namespace {
constexpr uint32_t no_rule = UINT32_MAX;

// The literals that hold no other of the list: the scan for fault lines
// finds lines, and a line that holds a literal holds each literal inside
// it (a third of the fault literals, "CUDA out of memory" for "out of
// memory": Vectorscan's scan about 15% faster). Order kept.
std::vector<std::string> without_superstrings(const std::vector<std::string> &literals)
{
	std::vector<std::vector<const std::string *>> by_first(256);
	for (const auto &l : literals)
		by_first[static_cast<unsigned char>(l[0])].push_back(&l);
	std::vector<std::string> kept;
	for (const auto &b : literals) {
		bool holds = false;
		for (size_t i = 0; i < b.size() && !holds; i++)
			for (const std::string *a : by_first[static_cast<unsigned char>(b[i])])
				if (a->size() < b.size() && b.compare(i, a->size(), *a) == 0) {
					holds = true;
					break;
				}
		if (!holds)
			kept.push_back(b);
	}
	return kept;
}
} // namespace

rule_set rule_set::copy_for_thread() const
{
	rule_set c = *this;
	for (rule &r : c.rs_rules)
		r.rx = r.rx.own_copy();
	return c;
}

void rule_set::finalize()
{
	rs_prefilter = literal_set();
	rs_literal_rule.clear();
	rs_literal_mark.clear();
	rs_literal_progress.clear();
	rs_always.clear();
	rs_line_heads.clear();
	for (const auto &r : rs_rules) {
		if (r.literals.empty())
			rs_always.push_back(r.index);
		if (r.literal_at_line_start)
			continue; // numbered after the scan's literals, below
		for (const auto &l : r.literals)
			if (rs_prefilter.add(l) >= 0) {
				rs_literal_rule.push_back(r.index);
				rs_literal_mark.push_back(0);
				rs_literal_progress.push_back(r.kind == rule_kind::progress);
			}
	}
	static const std::pair<const char *, unsigned> markers[] = {
		{"it/s", marker_rate}, {"s/it", marker_rate}, {"[rank", marker_rank}, {"[RANK", marker_rank}};
	for (const auto &m : markers) {
		rs_prefilter.add(m.first);
		rs_literal_rule.push_back(no_rule);
		rs_literal_mark.push_back(static_cast<uint8_t>(m.second));
		rs_literal_progress.push_back(0);
	}
	rs_prefilter.build();
	for (const auto &r : rs_rules)
		if (r.literal_at_line_start)
			for (const auto &l : r.literals) {
				rs_line_heads.emplace_back(l, static_cast<uint32_t>(rs_literal_rule.size()));
				rs_literal_rule.push_back(r.index);
				rs_literal_mark.push_back(0);
				rs_literal_progress.push_back(r.kind == rule_kind::progress);
			}
	// Progress lines are most of a log and only each writer's last one
	// matters (it is found from the tail); rank_tag and startup rules only
	// say more about a line another rule matched.
	std::vector<std::string> fault_literals;
	std::set<std::string> fault_seen;
	for (const auto &r : rs_rules)
		if (r.kind != rule_kind::progress && r.kind != rule_kind::rank_tag && r.kind != rule_kind::startup &&
		    !r.literal_at_line_start)
			for (const auto &l : r.literals)
				if (!l.empty() && fault_seen.insert(l).second)
					fault_literals.push_back(l);
	rs_faults.build(without_superstrings(fault_literals));
	rs_seen.assign(rs_rules.size(), 0);
	rs_generation = 0;
}

std::vector<std::string> rule_set::sample_conflicts()
{
	std::vector<std::string> warnings;
	for (const auto &r : rs_rules) {
		if (r.kind == rule_kind::startup)
			continue; // read beside the rule that wins its lines, by design
		for (const auto &s : r.samples) {
			capture_list caps;
			const rule *w = match(s, r.sources, caps);
			if (w && w != &r)
				warnings.push_back(where(r.file, r.line) + "rule " + r.id + ": sample is won by " + w->id +
						   " (priority " + std::to_string(w->priority) + "): \"" + s + "\"");
		}
	}
	return warnings;
}

void rule_set::candidate(uint32_t lit)
{
	uint32_t ri = rs_literal_rule[lit];
	if (ri != no_rule && rs_seen[ri] != rs_generation) {
		rs_seen[ri] = rs_generation;
		rs_candidates.push_back(ri);
	}
}

const rule *rule_set::match(std::string_view body, unsigned source, capture_list &caps)
{
	if (++rs_generation == 0) {
		std::fill(rs_seen.begin(), rs_seen.end(), 0);
		rs_generation = 1;
	}
	rs_candidates.clear();
	rs_prefilter.scan(body, [&](int lit) { candidate(static_cast<uint32_t>(lit)); });
	for (const auto &lh : rs_line_heads)
		if (body.rfind(lh.first, 0) == 0)
			candidate(lh.second);
	return confirm(body, source, caps);
}

void rule_set::scan_line(std::string_view raw, line_hits &h) const
{
	h.hits.clear();
	h.markers = 0;
	h.rule_hit = !rs_always.empty();
	h.progress_end = h.other_end = 0;
	rs_prefilter.scan_at(raw, [&](int lit, size_t end) {
		size_t id = static_cast<size_t>(lit);
		uint32_t start = static_cast<uint32_t>(end - rs_prefilter.literal_size(lit));
		h.hits.emplace_back(static_cast<uint32_t>(lit), start);
		if (rs_literal_rule[id] != no_rule) {
			h.rule_hit = true;
			uint32_t &latest = rs_literal_progress[id] ? h.progress_end : h.other_end;
			latest = std::max(latest, start + 1);
		}
		h.markers |= rs_literal_mark[id];
	});
	// Where a line-start literal occurs: the body a prefix leaves may start
	// there (match_hits takes it only at the body's first byte).
	for (const auto &lh : rs_line_heads)
		for (size_t at = raw.find(lh.first); at != std::string_view::npos; at = raw.find(lh.first, at + 1)) {
			h.hits.emplace_back(lh.second, static_cast<uint32_t>(at));
			h.rule_hit = true;
			uint32_t &latest = rs_literal_progress[lh.second] ? h.progress_end : h.other_end;
			latest = std::max(latest, static_cast<uint32_t>(at) + 1);
		}
}

const rule *rule_set::match_hits(std::string_view body, size_t body_off, const line_hits &h, unsigned source,
				 capture_list &caps)
{
	if (++rs_generation == 0) {
		std::fill(rs_seen.begin(), rs_seen.end(), 0);
		rs_generation = 1;
	}
	rs_candidates.clear();
	// A literal lies in the body when it starts there (all end in it); one
	// of literal_at: line_start, when it starts the body.
	const uint32_t first_head = rs_line_heads.empty() ? UINT32_MAX : rs_line_heads.front().second;
	for (const auto &hit : h.hits)
		if (hit.first >= first_head ? hit.second == body_off : hit.second >= body_off)
			candidate(hit.first);
	return confirm(body, source, caps);
}

void rule_set::hit_ends(line_hits &h) const
{
	h.progress_end = h.other_end = 0;
	for (const auto &hit : h.hits)
		if (rs_literal_rule[hit.first] != no_rule) {
			uint32_t &latest = rs_literal_progress[hit.first] ? h.progress_end : h.other_end;
			latest = std::max(latest, hit.second + 1);
		}
}

int rule_set::hit_reach(size_t body_off, const line_hits &h) const
{
	// A literal lies in the body when it starts there.
	if (!rs_always.empty() || h.other_end > body_off)
		return 2;
	return h.progress_end > body_off ? 1 : 0;
}

const rule *rule_set::confirm(std::string_view body, unsigned source, capture_list &caps)
{
	for (uint32_t ri : rs_always)
		rs_candidates.push_back(ri);
	if (rs_candidates.empty())
		return nullptr;
	if (rs_candidates.size() > 1)
		std::sort(rs_candidates.begin(), rs_candidates.end(), [&](uint32_t a, uint32_t b) {
			if (rs_rules[a].priority != rs_rules[b].priority)
				return rs_rules[a].priority > rs_rules[b].priority;
			return a < b;
		});
	for (uint32_t ri : rs_candidates) {
		rule &r = rs_rules[ri];
		// A startup rule is read beside the line's own rule (says_startup).
		if (!(r.sources & source) || r.kind == rule_kind::startup)
			continue;
		if (!r.rx.search(body))
			continue;
		caps.items.clear();
		for (const auto &n : r.rx.names())
			if (r.rx.group_set(n.second))
				caps.items.emplace_back(n.first, r.rx.group(body, n.second));
		return &r;
	}
	return nullptr;
}

std::vector<std::string> rule_set::fault_literals() const
{
	return rs_faults.literals();
}

const rule *rule_set::find(std::string_view id) const
{
	for (const auto &r : rs_rules)
		if (r.id == id)
			return &r;
	return nullptr;
}

std::vector<std::string> rule_set::all_literals() const
{
	std::vector<std::string> out;
	for (const auto &r : rs_rules)
		if (!r.literal_at_line_start) // (a test of a line's first bytes, no scan)
			out.insert(out.end(), r.literals.begin(), r.literals.end());
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

bool rule_set::says_handled(std::string_view body)
{
	for (auto &r : rs_rules)
		if (r.kind == rule_kind::handled && r.rx.search(body))
			return true;
	return false;
}

bool rule_set::says_startup(std::string_view body)
{
	for (auto &r : rs_rules)
		if (r.kind == rule_kind::startup && r.rx.search(body))
			return true;
	return false;
}

bool rule_set::shaped_as_exception(std::string_view body)
{
	for (auto &r : rs_rules)
		if (r.kind == rule_kind::exception && r.rx.search(body))
			return true;
	return false;
}

int rule_set::rank_in_text(std::string_view body, std::string *host, bool under_actor)
{
	for (auto &r : rs_rules) {
		if (r.kind != rule_kind::rank_tag || (under_actor && r.engine_rank) || !r.rx.search(body))
			continue;
		int rank = -1;
		std::string_view h;
		for (const auto &n : r.rx.names()) {
			if (!r.rx.group_set(n.second))
				continue;
			std::string_view v = r.rx.group(body, n.second);
			if (n.first == "host") {
				h = v;
			} else if (n.first == "rank" && !v.empty() && v.size() < 8) {
				long long x = 0;
				for (char c : v)
					x = x * 10 + (c - '0');
				rank = static_cast<int>(x);
			}
		}
		if (rank >= 0) {
			if (host)
				host->assign(h);
			return rank;
		}
	}
	return -1;
}

} // namespace diag
