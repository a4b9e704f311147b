// Signatures: the loader's refusals (with file:line and reason), the
// prefilter, priorities, the shipped rule set covering every class, and
// the site's layer above it (rules added, shipped rules replaced by id).
#include "config.h"
#include "ck_cxx.hh"
#include "ck_bundle.hh"
#include "deciding/knowledge.hh"
#include "matching/compiled_cache.hh"
#include "matching/literal_set.hh"
#include "matching/regex.hh"
#include "matching/signature.hh"
#include "pipeline.hh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <unistd.h>

using namespace diag;

namespace {

std::string write_yaml(const std::string &text)
{
	char path[] = "/tmp/denpex-sig-XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
	close(fd);
	return path;
}

// Loads one rule file and returns the loader's error ("" when it loaded).
std::string load_error(const std::string &text)
{
	std::string path = write_yaml(text);
	rule_set rs;
	std::string err;
	bool ok = rs.load_file(path, err);
	unlink(path.c_str());
	return ok ? "" : err;
}

// Loads one rule file that must load, and finalizes the set.
void load_rules(const std::string &text, rule_set &rs)
{
	std::string path = write_yaml(text);
	std::string err;
	bool ok = rs.load_file(path, err);
	unlink(path.c_str());
	ck_assert_msg(ok, "%s", err.c_str());
	rs.finalize();
}

const char *good_rule = "family: t\n"
			"rules:\n"
			"  - id: t.boom\n"
			"    class: python_exception\n"
			"    role: initiating\n"
			"    literal: Boom\n"
			"    pattern: '(?<exc>BoomError): (?<what>.*)'\n"
			"    samples: ['BoomError: it broke']\n";

// Every file of every real-log and example case: real text to scan.
void for_each_case_file(const std::function<void(FILE *)> &use)
{
	for (const char *dir : {TEST_DATADIR "/realworld", TEST_DATADIR "/example"}) {
		DIR *d = opendir(dir);
		ck_assert_msg(d, "%s", dir);
		while (struct dirent *cs = readdir(d)) {
			if (cs->d_name[0] == '.')
				continue;
			std::string sub = std::string(dir) + "/" + cs->d_name;
			DIR *sd = opendir(sub.c_str());
			if (!sd)
				continue;
			while (struct dirent *f = readdir(sd)) {
				FILE *fp = f->d_name[0] == '.' ? nullptr : fopen((sub + "/" + f->d_name).c_str(), "r");
				if (!fp)
					continue;
				use(fp);
				fclose(fp);
			}
			closedir(sd);
		}
		closedir(d);
	}
}

} // namespace

START_TEST(loader_accepts_good_rule)
{
	DIAG_CK_STR_EQ(load_error(good_rule), "");
}
END_TEST

START_TEST(loader_refuses_sample_that_does_not_match)
{
	std::string y = good_rule;
	y.replace(y.find("it broke"), 8, "x");
	y.replace(y.find("BoomError: x"), 9, "BoomErrr");
	std::string err = load_error(y);
	ck_assert_msg(err.find(":3: rule t.boom: sample does not match") != std::string::npos, "%s", err.c_str());
}
END_TEST

START_TEST(loader_refuses_sample_without_literal)
{
	std::string y = good_rule;
	y.replace(y.find("literal: Boom"), 13, "literal: Bang");
	std::string err = load_error(y);
	ck_assert_msg(err.find("does not contain the literal") != std::string::npos, "%s", err.c_str());
}
END_TEST

START_TEST(loader_refuses_bad_pattern_class_role_key)
{
	std::string y = good_rule;
	y.replace(y.find("(?<exc>"), 7, "(?<exc");
	ck_assert(load_error(y).find("does not compile at offset") != std::string::npos);
	y = good_rule;
	y.replace(y.find("python_exception"), 16, "python_oops");
	ck_assert(load_error(y).find("unknown 'class'") != std::string::npos);
	y = good_rule;
	y.replace(y.find("initiating"), 10, "culprit");
	ck_assert(load_error(y).find("'role'") != std::string::npos);
	y = std::string(good_rule) + "    colour: red\n";
	ck_assert(load_error(y).find("unknown key 'colour'") != std::string::npos);
	y = std::string(good_rule) + "    not_samples: ['BoomError: nope']\n";
	ck_assert(load_error(y).find("not_sample matches") != std::string::npos);
	ck_assert(load_error("family: t\nrules: [").find(":") != std::string::npos);
	y = std::string(good_rule) + "    rank_of: engine\n";
	ck_assert(load_error(y).find("'rank_of' is for rank_tag rules") != std::string::npos);
	y = std::string(good_rule) + "    rank_of: world\n";
	ck_assert(load_error(y).find("'rank_of' must be job or engine") != std::string::npos);
}
END_TEST

// Patterns share one match data per thread: each keeps its own last
// match's groups all the same, whatever matched or failed after it, and a
// pattern with more groups than any before it still has them all.
START_TEST(regex_keeps_its_own_groups)
{
	regex_error err;
	auto a = regex::compile("rank (\\d+)", false, err);
	auto b = regex::compile("(node)(\\d+)", false, err);
	std::string many = "(a)";
	for (int i = 0; i < 70; i++)
		many += "(b)?";
	auto c = regex::compile(many + "(z)", false, err);
	ck_assert(a && b && c);
	std::string s1 = "rank 12 died", s2 = "on node7", s3 = "az";
	ck_assert(a->search(s1));
	ck_assert(b->search(s2));
	ck_assert(!a->search("no number here"));
	// (Check's string asserts keep a pointer past the statement: no
	// temporaries.)
	ck_assert(a->group(s1, 1) == "12");
	ck_assert(b->group(s2, 2) == "7");
	ck_assert(c->search(s3));
	ck_assert(!c->group_set(2));
	ck_assert(c->group(s3, 72) == "z");
	ck_assert(!c->group_set(73));
	regex copy = *b;
	ck_assert(copy.search("node42"));
	ck_assert(b->group(s2, 2) == "7");
}
END_TEST

START_TEST(literal_set_overlaps)
{
	literal_set ls;
	int he = ls.add("he"), she = ls.add("she"), hers = ls.add("hers");
	ck_assert_int_eq(ls.add(""), -1);
	ls.build();
	std::multiset<int> found;
	ls.scan("ushers", [&](int id) { found.insert(id); });
	ck_assert_uint_eq(found.count(he), 1);
	ck_assert_uint_eq(found.count(she), 1);
	ck_assert_uint_eq(found.count(hers), 1);
	found.clear();
	ls.scan("nothing at all", [&](int id) { found.insert(id); });
	ck_assert_uint_eq(found.size(), 0);
}
END_TEST

START_TEST(literal_set_reports_where_literals_end)
{
	literal_set ls;
	int he = ls.add("he"), hers = ls.add("hers");
	ls.build();
	std::multiset<std::pair<int, size_t>> found;
	ls.scan_at("ushers he", [&](int id, size_t end) { found.insert({id, end}); });
	ck_assert_uint_eq(found.count({he, 4}), 1);
	ck_assert_uint_eq(found.count({hers, 6}), 1);
	ck_assert_uint_eq(found.count({he, 9}), 1);
	ck_assert_uint_eq(found.size(), 3);
}
END_TEST

// The trigram filter finds exactly what the Aho-Corasick DFA finds, on the
// shipped literals: over every rule's samples, every line of the test
// fixtures, and random text built from pieces of literals (near misses).
// A literal that begins a line (a terminal's two-byte "^C"): found at the
// start of the line's body only, by match and by match_hits alike, and
// kept out of the scan, whose trigram filter stays on.
START_TEST(line_start_literal_matches_at_the_body_start_only)
{
	const std::string y = "family: t\n"
			      "rules:\n"
			      "  - id: t.echo\n"
			      "    class: user_cancel\n"
			      "    role: context\n"
			      "    literal: '^C'\n"
			      "    literal_at: line_start\n"
			      "    pattern: '^\\^C'\n"
			      "    samples: ['^Cdone']\n"
			      "  - id: t.boom\n"
			      "    class: python_exception\n"
			      "    role: initiating\n"
			      "    literal: Boom\n"
			      "    pattern: 'BoomError'\n"
			      "    priority: 10\n"
			      "    samples: ['BoomError: x']\n";
	DIAG_CK_STR_EQ(load_error(y), "");
	std::string bad = y;
	bad.replace(bad.find("['^Cdone']"), 10, "['x ^C']");
	bad.replace(bad.find("'^\\^C'"), 6, "'\\^C'");
	ck_assert_msg(load_error(bad).find("does not begin with the literal") != std::string::npos, "%s",
		      load_error(bad).c_str());
	bad = y;
	bad.replace(bad.find("line_start"), 10, "line_end");
	ck_assert(load_error(bad).find("'literal_at' must be line_start or anywhere") != std::string::npos);

	rule_set rs;
	load_rules(y, rs);
	capture_list caps;
	const rule *echo = rs.find("t.echo");
	ck_assert_ptr_eq(rs.match("^CTraceback", src_all, caps), echo);
	ck_assert_ptr_eq(rs.match("x ^C", src_all, caps), nullptr);
	ck_assert_ptr_eq(rs.match("^CBoomError: x", src_all, caps), rs.find("t.boom"));
	line_hits h;
	const std::string line = "node07: ^C";
	rs.scan_line(line, h);
	ck_assert(h.rule_hit);
	ck_assert_ptr_eq(rs.match_hits(std::string_view(line).substr(8), 8, h, src_all, caps), echo);
	ck_assert_ptr_eq(rs.match_hits(line, 0, h, src_all, caps), nullptr);
	ck_assert_ptr_eq(rs.match_hits(std::string_view(line).substr(7), 7, h, src_all, caps), nullptr);
	for (const auto &l : rs.all_literals())
		ck_assert_msg(l != "^C", "the line-start literal is listed for the scan");
	for (const auto &l : rs.fault_literals())
		ck_assert_msg(l != "^C", "the line-start literal is in the fault scan");
}
END_TEST

START_TEST(literal_filter_agrees_with_dfa)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(TEST_CONFDIR "/signatures", err), "%s", err.c_str());
	literal_set ls;
	std::vector<std::string> lits = rs.all_literals();
	for (const auto &l : lits)
		ls.add(l);
	ls.build(true);
	ck_assert(ls.uses_filter());
	auto same = [&](const std::string &text) {
		std::multiset<std::pair<int, size_t>> a, b;
		ls.scan_at(text, [&](int id, size_t end) { a.insert({id, end}); });
		ls.dfa_scan(text, [&](int id, size_t end) { b.insert({id, end}); });
		ck_assert_msg(a == b, "filter found %zu hits, DFA %zu, in \"%s\"", a.size(), b.size(), text.c_str());
		return a.size();
	};
	size_t hits = 0, texts = 0;
	for (size_t i = 0; i < rs.size(); i++)
		for (const auto &smp : rs.at(i).samples) {
			hits += same(smp);
			texts++;
		}
	ck_assert_uint_gt(hits, texts / 2);
	size_t lines = 0;
	for_each_case_file([&](FILE *fp) {
		char line[8192];
		while (fgets(line, sizeof line, fp)) {
			same(line);
			lines++;
		}
	});
	ck_assert_uint_gt(lines, 100);
	unsigned seed = 12345;
	auto rnd = [&] { return seed = seed * 1103515245 + 12345, (seed >> 8) & 0xffff; };
	for (int t = 0; t < 20000; t++) {
		std::string text;
		int pieces = 1 + static_cast<int>(rnd() % 6);
		for (int k = 0; k < pieces; k++) {
			const std::string &l = lits[rnd() % lits.size()];
			size_t from = rnd() % l.size(), len = 1 + rnd() % l.size();
			text += l.substr(from, len);
			if (rnd() % 3 == 0)
				text += static_cast<char>(rnd() % 256);
		}
		same(text);
	}
}
END_TEST

// The user's cache of compiled matchers (matching/compiled_cache.hh): what
// was stored comes back only under its own key, and only from the user's
// own files: a file or directory others may write, or a symlink, is not
// read. A database read back finds what a compiled one finds; a broken one
// is compiled again.
START_TEST(compiled_cache_is_the_users_own)
{
	char tmpl[] = "/tmp/denpex-cache-XXXXXX";
	ck_assert(mkdtemp(tmpl) != nullptr);
	const char *named = getenv("DENPEX_CACHE_DIR"); // make check's: put back at the end
	const std::string saved_named = named ? named : "";
	const std::string dir = std::string(tmpl) + "/denpex"; // made by store, in a parent of ours
	std::string got;
	ck_assert(!compiled_cache::store(dir + "/deeper", "x.db", "key", "bytes")); // no parent of ours
	ck_assert_int_eq(chmod(tmpl, 0777), 0);
	ck_assert(!compiled_cache::store(dir, "x.db", "key", "bytes")); // a parent anyone writes
	ck_assert_int_eq(chmod(tmpl, 0700), 0);
	ck_assert(!compiled_cache::load(dir, "x.db", "key", got));
	ck_assert(compiled_cache::store(dir, "x.db", "key one", "bytes of one"));
	ck_assert(compiled_cache::load(dir, "x.db", "key one", got));
	ck_assert_str_eq(got.c_str(), "bytes of one");
	ck_assert_int_eq(chmod(tmpl, 01777), 0); // like /tmp: the directory, already ours, serves
	ck_assert(compiled_cache::store(dir, "z.db", "key", "bytes"));
	ck_assert_int_eq(chmod(tmpl, 0700), 0);
	ck_assert(!compiled_cache::load(dir, "x.db", "key two", got)); // another key
	ck_assert(!compiled_cache::load(dir, "x.db", "key on", got));  // a prefix of it
	ck_assert(!compiled_cache::load(dir, "../x.db", "key one", got));
	ck_assert(!compiled_cache::load(dir, "x.db", "key one", got, 4)); // over the bound
	const std::string file = dir + "/x.db";
	ck_assert_int_eq(chmod(file.c_str(), 0620), 0);
	ck_assert(!compiled_cache::load(dir, "x.db", "key one", got)); // writable by the group
	ck_assert_int_eq(chmod(file.c_str(), 0600), 0);
	ck_assert_int_eq(chmod(dir.c_str(), 0777), 0);
	ck_assert(!compiled_cache::load(dir, "x.db", "key one", got)); // a directory anyone writes
	ck_assert(!compiled_cache::store(dir, "y.db", "key", "bytes"));
	ck_assert_int_eq(chmod(dir.c_str(), 0700), 0);
	ck_assert_int_eq(symlink(file.c_str(), (dir + "/link.db").c_str()), 0);
	ck_assert(!compiled_cache::load(dir, "link.db", "key one", got));
	const std::string dirlink = std::string(tmpl) + "/dirlink";
	ck_assert_int_eq(symlink(dir.c_str(), dirlink.c_str()), 0);
	ck_assert(!compiled_cache::load(dirlink, "x.db", "key one", got));
	ck_assert(compiled_cache::load(dir, "x.db", "key one", got));
	FILE *wf = fopen(file.c_str(), "r+");
	ck_assert(wf != nullptr);
	ck_assert_int_eq(fseek(wf, -3, SEEK_END), 0);
	ck_assert_int_eq(fputc('X', wf), 'X'); // "bytes of one" -> "bytes of Xne"
	fclose(wf);
	ck_assert(!compiled_cache::load(dir, "x.db", "key one", got)); // damaged
	ck_assert_int_eq(truncate(file.c_str(), 20), 0);
	ck_assert(!compiled_cache::load(dir, "x.db", "key one", got)); // cut short

	// Where: named, none, or the user's own cache (root: only when named).
	setenv("DENPEX_CACHE_DIR", "/some/dir", 1);
	DIAG_CK_STR_EQ(compiled_cache::directory(), "/some/dir");
	setenv("DENPEX_CACHE_DIR", "relative/dir", 1);
	ck_assert(compiled_cache::directory().empty());
	unsetenv("DENPEX_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	const std::string saved_home = home ? home : "";
	setenv("HOME", "/home/someone", 1);
	DIAG_CK_STR_EQ(compiled_cache::directory(),
		       geteuid() == 0 || geteuid() != getuid() ? "" : "/home/someone/.cache/denpex");
	if (home)
		setenv("HOME", saved_home.c_str(), 1);
	else
		unsetenv("HOME");

#ifdef HAVE_VECTORSCAN
	// The fault scan's database, stored by the first scanner and read back
	// by the next one.
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(TEST_CONFDIR "/signatures", err), "%s", err.c_str());
	rs.finalize();
	const buffer_literals &bl = rs.fault_literal_set();
	std::string text;
	for_each_case_file([&](FILE *fp) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, fp)) > 0 && text.size() < (1u << 20))
			text.append(buf, n);
	});
	auto found = [&] {
		std::vector<size_t> at;
		buffer_literals::scanner sc = bl.make_scanner();
		ck_assert(sc.vectorscan());
		sc.scan(text, [&](size_t start) { at.push_back(start); });
		return at;
	};
	const std::string vdir = std::string(tmpl) + "/vs";
	setenv("DENPEX_CACHE_DIR", vdir.c_str(), 1);
	buffer_literals::forget_databases();
	buffer_literals::database_counts c0 = buffer_literals::vectorscan_counts();
	std::vector<size_t> compiled = found();
	buffer_literals::database_counts c1 = buffer_literals::vectorscan_counts();
	ck_assert_uint_eq(c1.compiled, c0.compiled + 1);
	ck_assert_uint_gt(compiled.size(), 100);
	DIR *dp = opendir(vdir.c_str());
	ck_assert(dp != nullptr);
	std::string stored;
	while (struct dirent *e = readdir(dp))
		if (e->d_name[0] != '.')
			stored = e->d_name;
	closedir(dp);
	ck_assert_msg(!stored.empty(), "nothing stored in %s", vdir.c_str());
	buffer_literals::forget_databases();
	std::vector<size_t> loaded = found();
	buffer_literals::database_counts c2 = buffer_literals::vectorscan_counts();
	ck_assert_uint_eq(c2.loaded, c1.loaded + 1);
	ck_assert_uint_eq(c2.compiled, c1.compiled);
	ck_assert(loaded == compiled);
	// Broken after its key: compiled again (and stored anew).
	const std::string path = vdir + "/" + stored;
	FILE *fp = fopen(path.c_str(), "r+");
	ck_assert(fp != nullptr);
	ck_assert_int_eq(fseek(fp, -64, SEEK_END), 0);
	ck_assert_int_eq(fwrite("garbage garbage garbage garbage garbage garbage garbage garbage!", 1, 64, fp), 64);
	fclose(fp);
	buffer_literals::forget_databases();
	std::vector<size_t> again = found();
	buffer_literals::database_counts c3 = buffer_literals::vectorscan_counts();
	ck_assert_uint_eq(c3.compiled, c2.compiled + 1);
	ck_assert(again == compiled);
	// No cache at all where DENPEX_CACHE_DIR is empty.
	setenv("DENPEX_CACHE_DIR", "", 1);
	buffer_literals::forget_databases();
	ck_assert(found() == compiled);
	ck_assert_uint_eq(buffer_literals::vectorscan_counts().compiled, c3.compiled + 1);
	buffer_literals::forget_databases();
#endif
	if (named)
		setenv("DENPEX_CACHE_DIR", saved_named.c_str(), 1);
	else
		unsetenv("DENPEX_CACHE_DIR");
	std::string rm = std::string("rm -rf ") + tmpl;
	ck_assert_int_eq(system(rm.c_str()), 0);
}
END_TEST

// The fault scan's two scanners, Vectorscan's and the in-house filter's,
// find the same occurrences in the same order of lines, over whole buffers:
// the test data's files joined, and random text of near misses and
// newlines (literals astride lines, at the buffer's ends). Vectorscan
// serves wherever it was built in.
START_TEST(fault_scanners_agree)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(TEST_CONFDIR "/signatures", err), "%s", err.c_str());
	rs.finalize();
	const buffer_literals &bl = rs.fault_literal_set();
	buffer_literals::scanner fast = bl.make_scanner(), filter = bl.make_scanner(false);
#ifdef HAVE_VECTORSCAN
	ck_assert_msg(fast.vectorscan(), "Vectorscan is built in but does not serve");
#endif
	ck_assert(!filter.vectorscan());
	auto same = [&](const std::string &text) {
		std::multiset<size_t> a, b;
		size_t last_a = 0, last_b = 0;
		bool ordered = true;
		// By end: a start's line never comes before the last one's.
		std::vector<size_t> nls;
		for (size_t i = 0; i < text.size(); i++)
			if (text[i] == '\n')
				nls.push_back(i);
		auto line_of = [&](size_t start) {
			return static_cast<size_t>(std::lower_bound(nls.begin(), nls.end(), start) - nls.begin());
		};
		fast.scan(text, [&](size_t start) {
			a.insert(start);
			size_t l = static_cast<size_t>(line_of(start));
			ordered = ordered && l >= last_a;
			last_a = l;
		});
		filter.scan(text, [&](size_t start) {
			b.insert(start);
			size_t l = static_cast<size_t>(line_of(start));
			ordered = ordered && l >= last_b;
			last_b = l;
		});
		ck_assert_msg(a == b, "Vectorscan found %zu occurrences, the filter %zu", a.size(), b.size());
		ck_assert(ordered);
		return a.size();
	};
	std::string joined;
	for_each_case_file([&](FILE *fp) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, fp)) > 0 && joined.size() < (4u << 20))
			joined.append(buf, n);
	});
	ck_assert_uint_gt(same(joined), 500);
	const std::vector<std::string> &lits = bl.literals();
	unsigned seed = 4321;
	auto rnd = [&] { return seed = seed * 1103515245 + 12345, (seed >> 8) & 0xffff; };
	size_t found = 0;
	for (int t = 0; t < 3000; t++) {
		std::string text;
		int pieces = 1 + static_cast<int>(rnd() % 12);
		for (int k = 0; k < pieces; k++) {
			const std::string &l = lits[rnd() % lits.size()];
			size_t from = rnd() % 3 == 0 ? 0 : rnd() % l.size(), len = 1 + rnd() % (l.size() + 2);
			text += l.substr(from, len);
			if (rnd() % 3 == 0)
				text += rnd() % 2 ? '\n' : static_cast<char>(rnd() % 256);
		}
		found += same(text);
	}
	ck_assert_uint_gt(found, 1000);
}
END_TEST

// The fault scan finds a line holding any literal of any rule it serves
// (its own list leaves out literals that hold another of it), and no
// literal of its list holds another.
START_TEST(fault_scan_finds_every_fault_literal)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(TEST_CONFDIR "/signatures", err), "%s", err.c_str());
	rs.finalize();
	for (bool fast : {true, false}) {
		buffer_literals::scanner sc = rs.fault_literal_set().make_scanner(fast);
		size_t checked = 0;
		for (size_t i = 0; i < rs.size(); i++) {
			const rule &r = rs.at(i);
			// (A line-start literal is context read where a file is read
			// whole: see fault_scan_complete.)
			if (r.kind == rule_kind::progress || r.kind == rule_kind::rank_tag || r.kind == rule_kind::startup ||
			    r.literal_at_line_start)
				continue;
			for (const auto &l : r.literals) {
				const std::string text = "before\nx " + l + " y\nafter\n";
				bool on_its_line = false;
				sc.scan(text, [&](size_t start) { on_its_line = on_its_line || (start >= 7 && start < 9 + l.size()); });
				ck_assert_msg(on_its_line, "rule %s: the fault scan misses a line with \"%s\"", r.id.c_str(), l.c_str());
				checked++;
			}
		}
		ck_assert_uint_gt(checked, 300);
	}
	const std::vector<std::string> lits = rs.fault_literals();
	ck_assert_uint_gt(lits.size(), 100);
	for (const auto &a : lits)
		for (const auto &b : lits)
			ck_assert_msg(a == b || b.find(a) == std::string::npos, "\"%s\" holds \"%s\"", b.c_str(), a.c_str());
}
END_TEST

// One scan of the whole line gives the same rule as a scan of its body,
// wherever the body starts (a literal inside a prefix does not count).
START_TEST(match_hits_agrees_with_match)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(std::string(TEST_CONFDIR) + "/signatures", err), "%s", err.c_str());
	rs.finalize();
	const char *prefixes[] = {"", "12: ", "[rank3]: ", "12: [rank3]:", "Killed: ", "[default0]:loss ",
				  "node01:123:456 [0] NCCL INFO "};
	capture_list c1, c2;
	line_hits h;
	size_t checked = 0;
	for (size_t i = 0; i < rs.size(); i++) {
		for (const auto &sample : rs.at(i).samples) {
			for (const char *p : prefixes) {
				std::string line = std::string(p) + sample;
				rs.scan_line(line, h);
				for (size_t off = 0; off <= std::strlen(p); off++) {
					std::string_view body = std::string_view(line).substr(off);
					const rule *a = rs.match(body, src_all, c1);
					const rule *b = rs.match_hits(body, off, h, src_all, c2);
					ck_assert_ptr_eq(a, b);
					int reach = rs.hit_reach(off, h);
					if (a)
						ck_assert_int_ge(reach, a->kind == rule_kind::progress ? 1 : 2);
					// Hits handed back give the same reach.
					line_hits g = h;
					g.progress_end = g.other_end = 7;
					rs.hit_ends(g);
					ck_assert_int_eq(rs.hit_reach(off, g), reach);
					checked++;
				}
			}
		}
	}
	ck_assert_uint_gt(checked, 100);
	rs.scan_line("loss 2.3 [rank3]: 2.1it/s", h);
	ck_assert_uint_eq(h.markers, marker_rank | marker_rate);
	ck_assert(h.rule_hit);
	rs.scan_line("nothing to see", h);
	ck_assert(!h.rule_hit);
	ck_assert_int_eq(rs.hit_reach(0, h), 0);
	ck_assert_uint_eq(h.markers, 0);
}
END_TEST

START_TEST(priority_decides_between_rules)
{
	std::string y = std::string(good_rule) +
			"  - id: t.generic\n"
			"    class: python_exception\n"
			"    role: initiating\n"
			"    priority: -10\n"
			"    pattern: '(?<exc>\\w+Error):'\n"
			"    samples: ['KeyError: 3']\n";
	rule_set rs;
	load_rules(y, rs);
	capture_list caps;
	const rule *r = rs.match("BoomError: it broke", src_log, caps);
	ck_assert_ptr_nonnull(r);
	DIAG_CK_STR_EQ(r->id, "t.boom");
	DIAG_CK_STR_EQ(std::string(caps.get("what")), "it broke");
	r = rs.match("KeyError: 3", src_log, caps);
	DIAG_CK_STR_EQ(r->id, "t.generic");
	ck_assert_ptr_null(rs.match("all is well", src_log, caps));
}
END_TEST

START_TEST(shipped_rules_load_and_cover_every_class)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(std::string(TEST_CONFDIR) + "/signatures", err), "%s", err.c_str());
	rs.finalize();
	for (const auto &w : rs.sample_conflicts())
		ck_abort_msg("sample conflict: %s", w.c_str());
	knowledge kn;
	ck_assert_msg(kn.load(TEST_CONFDIR, err), "%s", err.c_str());
	std::set<failure_class> reachable = {failure_class::unknown};
	for (size_t i = 0; i < rs.size(); i++)
		if (rs.at(i).role == event_role::initiating || rs.at(i).kind == rule_kind::job_end)
			reachable.insert(rs.at(i).cls);
	for (int x = 0; x < 200; x++)
		if (const xid_info *xi = kn.xid(x))
			reachable.insert(xi->cls);
	for (int c = 0; c < failure_class_count; c++)
		ck_assert_msg(reachable.count(static_cast<failure_class>(c)), "class %s has no initiating rule",
			      std::string(class_name(static_cast<failure_class>(c))).c_str());
	// Xid 154's recovery actions are data too.
	ck_assert(kn.recovery_action(2).has_value());
	ck_assert(kn.xid(79) && kn.xid(79)->cls == failure_class::gpu_hardware);
}
END_TEST

START_TEST(knowledge_names_a_missing_top_level_list)
{
	// A table file without its list is refused, and the error says which.
	ck_bundle conf("denpex-kn");
	conf.file("xid.yaml", "xid: []\n");
	knowledge kn;
	std::string err;
	ck_assert(!kn.load(conf.dir, err));
	ck_assert_msg(err == conf.dir + "/xid.yaml: missing 'xids' list", "%s", err.c_str());
}
END_TEST

START_TEST(startup_rules_say_more_about_a_line_another_rule_matched)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(std::string(TEST_CONFDIR) + "/signatures", err), "%s", err.c_str());
	rs.finalize();
	const char *init = "init.cc:1132 NCCL WARN Cuda failure 'initialization error'";
	capture_list caps;
	const rule *r = rs.match(init, src_nccl, caps);
	ck_assert_ptr_nonnull(r);
	ck_assert(r->kind != rule_kind::startup); // the fault's own rule
	ck_assert(rs.says_startup(init));
	ck_assert(!rs.says_startup("enqueue.cc:1556 NCCL WARN Cuda failure 'invalid argument'"));
	// A line that only names the init code is no event.
	ck_assert_ptr_null(rs.match("init.cc:512 nothing else here", src_nccl, caps));
}
END_TEST

START_TEST(rank_tags_read_the_host_a_logger_format_names_beside_the_rank)
{
	rule_set rs;
	std::string err;
	ck_assert_msg(rs.load_dir(std::string(TEST_CONFDIR) + "/signatures", err), "%s", err.c_str());
	rs.finalize();
	std::string host;
	ck_assert_int_eq(rs.rank_in_text("2026-01-22 15:51:02,891 - gpu-a16 - Rank 59 - ERROR - CUDA error", &host), 59);
	DIAG_CK_STR_EQ(host, "gpu-a16");
	ck_assert_int_eq(rs.rank_in_text("[2026-05-19 10:02:29,701][gpu-h03][rank 6][ERROR] step failed", &host), 6);
	DIAG_CK_STR_EQ(host, "gpu-h03");
	// No host field, or a field that is a device, not a host.
	ck_assert_int_eq(rs.rank_in_text("2026-05-19 10:02:29,701 - Rank 3 - INFO - step 12", &host), 3);
	ck_assert(host.empty());
	ck_assert_int_eq(rs.rank_in_text("2026-05-19 10:02:29,701 - GPU0 - Rank 3 - INFO - step 12", &host), 3);
	ck_assert(host.empty());
	ck_assert_int_eq(rs.rank_in_text("[cuda:1] [rank 2] loss nan", &host), 2);
	ck_assert(host.empty());
}
END_TEST

namespace {

// A configuration directory like an installed one: the shipped rules and
// tables of the tree, and a signatures.d/ with the given site files.
struct site_conf {
	std::string dir;
	explicit site_conf(const std::vector<std::pair<std::string, std::string>> &files)
	{
		char tmpl[] = "/tmp/denpex-site-XXXXXX";
		ck_assert_ptr_nonnull(mkdtemp(tmpl));
		dir = tmpl;
		for (const char *n : {"signatures", "xid.yaml", "actions.yaml", "zones.yaml"})
			ck_assert_int_eq(symlink((std::string(TEST_CONFDIR) + "/" + n).c_str(), (dir + "/" + n).c_str()), 0);
		ck_assert_int_eq(mkdir((dir + "/signatures.d").c_str(), 0700), 0);
		for (const auto &f : files) {
			FILE *fp = fopen((dir + "/signatures.d/" + f.first).c_str(), "w");
			ck_assert_ptr_nonnull(fp);
			fputs(f.second.c_str(), fp);
			fclose(fp);
		}
	}
	site_conf(const site_conf &) = delete;
	~site_conf() { std::string cmd = "rm -rf '" + dir + "'"; (void)!system(cmd.c_str()); }
	bool init(analysis &an, std::string &err)
	{
		pipeline_options po;
		po.conf_dir = dir;
		return an.init(po, err);
	}
};

const char *site_added = "family: site\n"
			 "rules:\n"
			 "  - id: site.scratch_quota\n"
			 "    class: filesystem\n"
			 "    role: initiating\n"
			 "    literal: \"SCRATCHQ\"\n"
			 "    pattern: 'SCRATCHQ: quota exceeded on (?<path>\\S+)'\n"
			 "    priority: 50\n"
			 "    weight: 80\n"
			 "    summary: \"went over the site's scratch quota on {path}\"\n"
			 "    samples: [\"SCRATCHQ: quota exceeded on /scratch/u1\"]\n";

// Replaces a shipped rule by its id: another summary, one more literal.
const char *site_override = "family: cuda\n"
			    "rules:\n"
			    "  - id: cuda.oom_text\n"
			    "    class: cuda_oom\n"
			    "    role: initiating\n"
			    "    literal: [\"out of memory\", \"HBM exhausted\"]\n"
			    "    pattern: 'CUDA error: out of memory|HBM exhausted'\n"
			    "    priority: 40\n"
			    "    weight: 85\n"
			    "    summary: \"ran out of GPU memory (site rule)\"\n"
			    "    samples: [\"RuntimeError: CUDA error: out of memory\", \"HBM exhausted on device 3\"]\n";

} // namespace

START_TEST(site_layer_adds_and_replaces_rules)
{
	analysis shipped;
	std::string err;
	pipeline_options po;
	po.conf_dir = TEST_CONFDIR;
	ck_assert_msg(shipped.init(po, err), "%s", err.c_str());
	const rule *orig = shipped.rules().find("cuda.oom_text");
	ck_assert_ptr_nonnull(orig);
	DIAG_CK_STR_EQ(orig->layer, "shipped");

	site_conf sc({{"10-added.yaml", site_added}, {"20-override.yaml", site_override}});
	analysis an;
	ck_assert_msg(sc.init(an, err), "%s", err.c_str());
	ck_assert_uint_eq(an.rules().size(), shipped.rules().size() + 1);
	const rule *added = an.rules().find("site.scratch_quota");
	ck_assert_ptr_nonnull(added);
	DIAG_CK_STR_EQ(added->layer, "site");
	ck_assert(added->overrides.empty());
	const rule *over = an.rules().find("cuda.oom_text");
	ck_assert_ptr_nonnull(over);
	DIAG_CK_STR_EQ(over->layer, "site");
	ck_assert_msg(over->overrides.find("cuda.yaml:") != std::string::npos, "%s", over->overrides.c_str());
	ck_assert(over->file.find("signatures.d/20-override.yaml") != std::string::npos);
	// In the shipped rule's place, so ties of priority fall as before.
	ck_assert_uint_eq(over->index, orig->index);
	ck_assert_ptr_eq(&an.rules().at(over->index), over);
	// The replacement is what matches now.
	an.rules().finalize();
	capture_list caps;
	const rule *m = an.rules().match("HBM exhausted on device 3", src_log, caps);
	ck_assert_ptr_nonnull(m);
	DIAG_CK_STR_EQ(m->id, "cuda.oom_text");
	DIAG_CK_STR_EQ(m->summary, "ran out of GPU memory (site rule)");
	ck_assert_ptr_null(shipped.rules().match("HBM exhausted on device 3", src_log, caps));
}
END_TEST

START_TEST(site_rule_reaches_the_verdict)
{
	site_conf sc({{"added.yaml", site_added}, {"README", "not a rule file"}});
	char tmpl[] = "/tmp/denpex-sitejob-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	std::string log = std::string(tmpl) + "/job.out";
	FILE *f = fopen(log.c_str(), "w");
	ck_assert_ptr_nonnull(f);
	fputs("[rank0]: step 10 loss 2.0\n[rank5]: SCRATCHQ: quota exceeded on /scratch/u7\n", f);
	fclose(f);
	analysis an;
	std::string err;
	ck_assert_msg(sc.init(an, err), "%s", err.c_str());
	an.add_path(log);
	verdict v = an.run();
	unlink(log.c_str());
	rmdir(tmpl);
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "filesystem");
	ck_assert_int_eq(v.first_rank, 5);
	ck_assert_msg(v.summary.find("scratch quota on /scratch/u7") != std::string::npos, "%s", v.summary.c_str());
}
END_TEST

START_TEST(site_layer_refusals)
{
	std::string err;
	{
		// An id twice within the site's layer is a mistake, not an override.
		site_conf sc({{"a.yaml", site_added}, {"b.yaml", site_added}});
		analysis an;
		ck_assert(!sc.init(an, err));
		ck_assert_msg(err.find("b.yaml:") != std::string::npos && err.find("duplicate id") != std::string::npos, "%s",
			      err.c_str());
	}
	{
		// A site rule is checked against its samples like a shipped one.
		std::string bad = site_added;
		bad.replace(bad.find("exceeded on /scratch"), 8, "exceedXX");
		site_conf sc({{"bad.yaml", bad}, {"README", "not a rule file"}});
		analysis an;
		ck_assert(!sc.init(an, err));
		ck_assert_msg(err.find("bad.yaml:") != std::string::npos && err.find("sample does not match") != std::string::npos,
			      "%s", err.c_str());
	}
	{
		// No signatures.d at all: the shipped rules alone.
		rule_set rs;
		ck_assert_msg(rs.load_dir(std::string(TEST_CONFDIR) + "/signatures", err), "%s", err.c_str());
		size_t n = rs.size();
		ck_assert(rs.load_layer("/nonexistent/denpex/signatures.d", "site", true, err));
		ck_assert_uint_eq(rs.size(), n);
	}
}
END_TEST

static Suite *suite()
{
	Suite *s = suite_create("signatures");
	TCase *t = tcase_create("core");
	tcase_add_test(t, loader_accepts_good_rule);
	tcase_add_test(t, regex_keeps_its_own_groups);
	tcase_add_test(t, knowledge_names_a_missing_top_level_list);
	tcase_add_test(t, loader_refuses_sample_that_does_not_match);
	tcase_add_test(t, loader_refuses_sample_without_literal);
	tcase_add_test(t, loader_refuses_bad_pattern_class_role_key);
	tcase_add_test(t, literal_set_overlaps);
	tcase_add_test(t, literal_set_reports_where_literals_end);
	tcase_add_test(t, fault_scanners_agree);
	tcase_add_test(t, fault_scan_finds_every_fault_literal);
	tcase_add_test(t, compiled_cache_is_the_users_own);
	tcase_add_test(t, line_start_literal_matches_at_the_body_start_only);
	tcase_add_test(t, literal_filter_agrees_with_dfa);
	tcase_add_test(t, match_hits_agrees_with_match);
	tcase_add_test(t, priority_decides_between_rules);
	tcase_add_test(t, shipped_rules_load_and_cover_every_class);
	tcase_add_test(t, startup_rules_say_more_about_a_line_another_rule_matched);
	tcase_add_test(t, rank_tags_read_the_host_a_logger_format_names_beside_the_rank);
	tcase_add_test(t, site_layer_adds_and_replaces_rules);
	tcase_add_test(t, site_rule_reaches_the_verdict);
	tcase_add_test(t, site_layer_refusals);
	suite_add_tcase(s, t);
	return s;
}

int main() { return diag_ck_run(suite()); }
