// The verdict page and its timeline picture: every log byte escaped, rows
// per rank up to a point and per node or band of nodes beyond, the
// initiating mark on the first rank's row, and the C API's report page.
#include "ck_cxx.hh"
#include "denpex_diag.h"
#include "pipeline.hh"
#include "rendering/markup_escape.hh"
#include "rendering/report_html.hh"
#include "rendering/timeline_svg.hh"

#include <jansson.h>

#include <cstddef>
#include <cstring>
#include <string>

using namespace diag;

namespace {

size_t count(const std::string &s, const std::string &what)
{
	size_t n = 0;
	for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size()))
		n++;
	return n;
}

std::string attr_after(const std::string &s, const std::string &anchor, const std::string &attr)
{
	size_t p = s.find(anchor);
	if (p == std::string::npos)
		return "(no " + anchor + ")";
	p = s.find(attr + "=\"", p);
	if (p == std::string::npos)
		return "(no " + attr + ")";
	p += attr.size() + 2;
	return s.substr(p, s.find('"', p) - p);
}

// A job of n ranks, per_node to a node, every rank a victim of a watchdog
// timeout a few seconds after rank `first` lost its GPU.
void synthetic(evidence &ev, verdict &v, int n, int per_node, int first)
{
	for (int r = 0; r < n; r++) {
		char host[32];
		snprintf(host, sizeof(host), "gpu%04d", r / per_node);
		rank_info ri;
		ri.rank = r;
		ri.host = ev.intern_host(host);
		ev.ranks.add(ri);
		event e;
		e.rank = r;
		e.host = ri.host;
		e.rule_id = r == first ? "gpu.xid" : "watchdog.collective_timeout";
		e.kind = r == first ? rule_kind::xid : rule_kind::watchdog;
		e.role = r == first ? event_role::initiating : event_role::victim;
		e.time_us = 1790000000000000LL + (r == first ? 0 : 4000000 + r * 1000);
		e.raw_us = e.time_us;
		e.text = "rank <" + std::to_string(r) + ">";
		ev.events.push_back(e);
		if (r == first)
			v.first_event = static_cast<long>(ev.events.size() - 1);
		else
			v.victims.push_back(r);
	}
	v.has_first = true;
	v.first_rank = first;
}

std::string example_dir() { return std::string(TEST_DATADIR) + "/example/multinode-xid"; }

} // namespace

START_TEST(escape_markup_and_quotes)
{
	DIAG_CK_STR_EQ(markup_escape("<script>a&b</script> \"x\" 'y'"),
		       "&lt;script&gt;a&amp;b&lt;/script&gt; &quot;x&quot; &#39;y&#39;");
}
END_TEST

START_TEST(escape_replaces_bad_bytes_never_drops)
{
	// A stray continuation byte, an overlong '/', a surrogate, a cut sequence: one U+FFFD a byte.
	std::string out = markup_escape(std::string("a\x80" "b\xc0\xaf" "c\xed\xa0\x80" "d\xe2\x82", 12));
	DIAG_CK_STR_EQ(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "d\xef\xbf\xbd\xef\xbf\xbd");
	// Valid multi-byte text stays; controls become visible pictures; tab and newline stay.
	DIAG_CK_STR_EQ(markup_escape("caf\xc3\xa9 \xf0\x9f\x94\xa5\t\n"), "caf\xc3\xa9 \xf0\x9f\x94\xa5\t\n");
	DIAG_CK_STR_EQ(markup_escape(std::string("\x01\x1b\x7f", 3)), "\xe2\x90\x81\xe2\x90\x9b\xe2\x90\xa1");
	DIAG_CK_STR_EQ(markup_escape(std::string("a\0b", 3)), "a\xe2\x90\x80" "b");
}
END_TEST

START_TEST(svg_rank_rows_when_few)
{
	evidence ev;
	verdict v;
	synthetic(ev, v, 16, 8, 11);
	std::string svg = timeline_svg(ev, v);
	ck_assert_uint_eq(count(svg, "<g class=\"row"), 16);
	ck_assert_uint_eq(count(svg, "class=\"victim\""), 15);
	DIAG_CK_STR_EQ(attr_after(svg, "<g class=\"initiating\"", "data-rank"), "11");
	DIAG_CK_STR_EQ(attr_after(svg, "<g class=\"row first\"", "data-ranks"), "11");
	// Event text reaches the tooltips escaped.
	ck_assert(svg.find("rank <") == std::string::npos);
	ck_assert(svg.find("rank &lt;3&gt;") != std::string::npos);
}
END_TEST

START_TEST(svg_nodes_then_bands_when_many)
{
	timeline_svg_options o;
	{
		evidence ev;
		verdict v;
		synthetic(ev, v, static_cast<int>(o.max_rank_rows) + 1, 8, 5);
		std::string svg = timeline_svg(ev, v, o);
		// One row per node (9 nodes), and the first rank's own row.
		ck_assert_uint_eq(count(svg, "<g class=\"row"), 9 + 1);
	}
	evidence ev;
	verdict v;
	synthetic(ev, v, 4096, 8, 3001);
	std::string svg = timeline_svg(ev, v, o);
	size_t rows = count(svg, "<g class=\"row");
	ck_assert_msg(rows >= 3 && rows <= o.max_node_rows + 2, "%zu rows for 4096 ranks", rows);
	// The first rank's row comes first, then its node, never inside a band.
	DIAG_CK_STR_EQ(attr_after(svg, "<g class=\"row", "data-ranks"), "3001");
	DIAG_CK_STR_EQ(attr_after(svg, "<g class=\"initiating\"", "data-rank"), "3001");
	ck_assert(svg.find(">gpu0375</text>") != std::string::npos);
	ck_assert(svg.find("(13 nodes)") != std::string::npos);
	ck_assert_msg(svg.size() < 200 * 1024, "%zu bytes", svg.size());
}
END_TEST

START_TEST(svg_marks_a_first_rank_named_by_structure)
{
	// A hang: the verdict names the rank the others waited for; it has no
	// fault event of its own, and still gets the mark and its own row.
	evidence ev;
	verdict v;
	synthetic(ev, v, 256, 8, 77);
	ev.events[static_cast<size_t>(v.first_event)].dropped = true;
	v.first_event = -1;
	v.cause = "stopped making progress";
	std::string svg = timeline_svg(ev, v);
	DIAG_CK_STR_EQ(attr_after(svg, "<g class=\"initiating\"", "data-rank"), "77");
	DIAG_CK_STR_EQ(attr_after(svg, "<g class=\"row", "data-ranks"), "77");
	ck_assert(svg.find("stopped making progress") != std::string::npos);
}
END_TEST

START_TEST(svg_without_times_still_draws)
{
	evidence ev;
	verdict v;
	std::string svg = timeline_svg(ev, v);
	ck_assert(svg.rfind("<svg", 0) == 0);
	ck_assert(svg.find("</svg>") != std::string::npos);
}
END_TEST

START_TEST(static_page_has_no_script)
{
	verdict v;
	v.cls = failure_class::gpu_hardware;
	v.summary = "<script>alert(1)</script>";
	page_parts p;
	p.v = &v;
	p.svg = "<svg></svg>";
	std::string html = page_html(p);
	ck_assert_uint_eq(count(html, "<script"), 0);
	ck_assert(html.find("Content-Security-Policy") != std::string::npos);
	ck_assert(html.find(page_css()) != std::string::npos);
	ck_assert(html.find("&lt;script&gt;alert(1)") != std::string::npos);
	p.console = true;
	html = page_html(p);
	ck_assert_uint_eq(count(html, "<script"), 1);
	ck_assert(html.find("<style") == std::string::npos);
}
END_TEST

START_TEST(c_api_report_page_matches_its_json)
{
	std::string dir = example_dir();
	const char *paths[] = {dir.c_str()};
	denpex_options o;
	denpex_options_init(&o);
	o.conf_dir = TEST_CONFDIR;
	char *json = nullptr, *text = nullptr, *line = nullptr, *warn = nullptr, *html = nullptr;
	ck_assert_int_eq(denpex_diagnose_paths_report(paths, 1, &o, &json, &text, &line, &warn, &html), DENPEX_OK);
	ck_assert(html != nullptr && json != nullptr);
	std::string page = html;
	json_error_t err;
	json_t *j = json_loads(json, 0, &err);
	ck_assert(j != nullptr);
	json_t *rank = json_object_get(json_object_get(j, "first"), "rank");
	ck_assert(json_is_integer(rank));
	DIAG_CK_STR_EQ(attr_after(page, "<g class=\"initiating\"", "data-rank"), std::to_string(json_integer_value(rank)));
	ck_assert(page.find("class=\"denpex-timeline\"") != std::string::npos);
	ck_assert(page.find(json_string_value(json_object_get(j, "class"))) != std::string::npos);
	json_decref(j);
	denpex_free(json);
	denpex_free(text);
	denpex_free(line);
	denpex_free(warn);
	denpex_free(html);
}
END_TEST

START_TEST(c_api_options_grow_without_breaking_older_callers)
{
	std::string dir = example_dir();
	const char *paths[] = {dir.c_str()};
	// A caller built before comment_max_bytes existed: its struct ends
	// before it, and the library must not read past what it was given.
	struct older {
		denpex_options head;
		char guard[16];
	} old_caller;
	memset(&old_caller, 0x5a, sizeof(old_caller));
	denpex_options_init_sized(&old_caller.head, offsetof(denpex_options, comment_max_bytes));
	ck_assert_uint_eq(old_caller.head.size, offsetof(denpex_options, comment_max_bytes));
	ck_assert(old_caller.head.conf_dir == nullptr && old_caller.head.no_follow == 0);
	// Bytes past the given size are not the library's to fill.
	ck_assert_int_eq(reinterpret_cast<unsigned char *>(&old_caller.head.comment_max_bytes)[0], 0x5a);
	old_caller.head.conf_dir = TEST_CONFDIR;
	char *line = nullptr;
	ck_assert_int_eq(denpex_diagnose_paths(paths, 1, &old_caller.head, nullptr, nullptr, &line, nullptr), DENPEX_OK);
	ck_assert(line != nullptr && strlen(line) <= DENPEX_COMMENT_MAX_BYTES);
	std::string full = line;
	denpex_free(line);

	// The comment's length is the caller's to set; the action survives it.
	denpex_options o;
	denpex_options_init(&o);
	ck_assert_uint_eq(o.size, sizeof(o));
	o.conf_dir = TEST_CONFDIR;
	o.comment_max_bytes = 60;
	ck_assert_int_eq(denpex_diagnose_paths(paths, 1, &o, nullptr, nullptr, &line, nullptr), DENPEX_OK);
	std::string cut = line;
	denpex_free(line);
	ck_assert_uint_le(cut.size(), 60);
	ck_assert(full.size() > 60);
	DIAG_CK_STR_EQ(cut.substr(cut.rfind(" -> ")), full.substr(full.rfind(" -> ")));

	// A struct that was never initialised is refused, not read.
	denpex_options raw;
	memset(&raw, 0, sizeof(raw));
	ck_assert_int_eq(denpex_diagnose_paths(paths, 1, &raw, nullptr, nullptr, &line, nullptr), DENPEX_ERR_ARGS);
}
END_TEST

START_TEST(memory_source_reads_like_a_file)
{
	// The console's in-memory path gives the verdict the file path gives.
	std::string path = example_dir() + "/job.out";
	FILE *f = fopen(path.c_str(), "rb");
	ck_assert(f != nullptr);
	std::vector<char> bytes;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		bytes.insert(bytes.end(), buf, buf + n);
	fclose(f);
	pipeline_options po;
	po.conf_dir = TEST_CONFDIR;
	std::string e1, e2;
	analysis a, b;
	ck_assert(a.init(po, e1) && b.init(po, e2));
	a.add_path(path);
	b.add_buffer(std::move(bytes), path);
	verdict va = a.run(), vb = b.run();
	DIAG_CK_STR_EQ(verdict_to_json(va, false), verdict_to_json(vb, false));
}
END_TEST

static Suite *suite()
{
	Suite *s = suite_create("render");
	TCase *t = tcase_create("page");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, escape_markup_and_quotes);
	tcase_add_test(t, escape_replaces_bad_bytes_never_drops);
	tcase_add_test(t, svg_rank_rows_when_few);
	tcase_add_test(t, svg_nodes_then_bands_when_many);
	tcase_add_test(t, svg_marks_a_first_rank_named_by_structure);
	tcase_add_test(t, svg_without_times_still_draws);
	tcase_add_test(t, static_page_has_no_script);
	tcase_add_test(t, c_api_report_page_matches_its_json);
	tcase_add_test(t, c_api_options_grow_without_breaking_older_callers);
	tcase_add_test(t, memory_source_reads_like_a_file);
	suite_add_tcase(s, t);
	return s;
}

int main() { return diag_ck_run(suite()); }
