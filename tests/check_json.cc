// The verdict contract: JSON field names and types (schema 1), nulls when
// no rank is singled out, strict UTF-8 from any bytes in every rendering,
// the comment line.
#include "ck_bundle.hh"
#include "rendering/utf8.hh"
#include "rendering/verdict.hh"

#include <jansson.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace diag;

namespace {

verdict sample()
{
	verdict v;
	v.job_id = "1234";
	v.cls = failure_class::cuda_oom;
	v.summary = "rank 11 on node03 ran out of GPU memory; 15 other ranks failed after it";
	v.cause = "ran out of GPU memory";
	v.has_first = true;
	v.first_rank = 11;
	v.first_host = "node03";
	v.first_time = "2026-10-26T03:51:31.222Z";
	v.first_source = "job.out:18211";
	v.first_line = "[rank11]: torch.OutOfMemoryError: CUDA out of memory.";
	v.victims = {0, 1, 2};
	v.action = action_kind::reduce_memory;
	v.action_text = "reduce the batch size";
	v.confidence = "high";
	v.evidence.push_back(evidence_line{11, "node03", v.first_time, event_role::initiating, "cuda.oom", "job.out:18211", "x"});
	v.clock["node03"] = clock_entry{-4.81, 0.05};
	return v;
}

json_t *parse(const std::string &s)
{
	json_error_t err;
	json_t *j = json_loads(s.c_str(), 0, &err);
	ck_assert_msg(j != nullptr, "invalid JSON: %s", err.text);
	return j;
}

const std::string fffd = "\xef\xbf\xbd";

std::string repeat(const std::string &s, int n)
{
	std::string out;
	while (n-- > 0)
		out += s;
	return out;
}

// What jansson accepts is what a JSON consumer can read.
bool jansson_takes(const std::string &s)
{
	json_t *j = json_stringn(s.data(), s.size());
	json_decref(j);
	return j != nullptr;
}

} // namespace

START_TEST(utf8_replaces_every_ill_formed_byte)
{
	struct {
		const char *in;
		int bad; // bytes that must each become one U+FFFD
	} cases[] = {
		{"\xc0\xaf", 2},             // overlong '/'
		{"\xc1\xbf", 2},             // overlong, lead C1
		{"\xe0\x80\xaf", 3},         // overlong, three bytes
		{"\xf0\x80\x80\xaf", 4},     // overlong, four bytes
		{"\xed\xa0\x80", 3},         // surrogate D800
		{"\xed\xbf\xbf", 3},         // surrogate DFFF
		{"\xf4\x90\x80\x80", 4},     // above 10FFFF
		{"\xf5\x80\x80\x80", 4},     // lead above F4
		{"\xff\xfe", 2},
		{"\xe2\x82", 2},             // cut short
		{"\x80", 1},                 // stray continuation
	};
	for (const auto &c : cases) {
		std::string in = std::string("a") + c.in + "z";
		std::string out = valid_utf8(in);
		ck_assert_msg(out == "a" + repeat(fffd, c.bad) + "z", "case with %d bad bytes: got %zu bytes", c.bad,
			      out.size());
		ck_assert(jansson_takes(out));
	}
	// Well-formed text, the edges included, is left as it is.
	const char *good[] = {"plain", "caf\xc3\xa9", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbd",
			      "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xe2\x82\xac"};
	for (const char *g : good)
		DIAG_CK_STR_EQ(valid_utf8(g), g);
}
END_TEST

START_TEST(json_keeps_a_line_with_a_surrogate)
{
	// jansson refuses a surrogate or an overlong form: without the strict
	// layer the key was silently left out of the verdict.
	verdict v = sample();
	v.first_line = "[rank11]: bad \xed\xa0\x80 and \xc0\xaf end";
	v.first_host = "node\xed\xb0\x80";
	v.evidence[0].line = v.first_line;
	v.clock["n\xf8"] = clock_entry{0.5, 0.1};
	json_t *j = parse(verdict_to_json(v, false));
	json_t *first = json_object_get(j, "first");
	ck_assert_ptr_nonnull(json_object_get(first, "line"));
	const std::string want_line = "[rank11]: bad " + repeat(fffd, 3) + " and " + repeat(fffd, 2) + " end";
	const std::string want_host = "node" + repeat(fffd, 3);
	ck_assert_str_eq(json_string_value(json_object_get(first, "line")), want_line.c_str());
	ck_assert_str_eq(json_string_value(json_object_get(first, "host")), want_host.c_str());
	json_t *ev0 = json_array_get(json_object_get(j, "evidence"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(ev0, "line")),
			 json_string_value(json_object_get(first, "line")));
	ck_assert_int_eq(json_object_size(json_object_get(j, "clock")), 2);
	json_decref(j);
}
END_TEST

START_TEST(comment_and_text_are_strict_utf8)
{
	verdict v = sample();
	v.cause = "bad \xed\xa0\x80 \xf5 cause";
	v.first_line = "line \xe0\x80\xaf";
	std::string c = verdict_to_comment(v);
	ck_assert_msg(jansson_takes(c), "%s", c.c_str());
	ck_assert(c.find("bad " + repeat(fffd, 3) + " " + fffd + " cause") != std::string::npos);
	std::string t = verdict_to_text(v);
	ck_assert(jansson_takes(t));
	ck_assert(t.find("line " + repeat(fffd, 3)) != std::string::npos);
}
END_TEST

START_TEST(diagnosis_keeps_first_line_with_a_surrogate)
{
	// End to end: the log line that names the fault carries a surrogate.
	ck_bundle b("denpex-utf8");
	b.file("job.out", "[rank3]: step 1 \xed\xa0\x80\n"
			  "[rank3]: torch.OutOfMemoryError: CUDA out of memory. \xed\xa0\x80 Tried to allocate 2.00 GiB\n");
	analysis an;
	ck_init_analysis(an);
	an.add_path(b.dir);
	verdict v = an.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "cuda_oom");
	json_t *j = parse(verdict_to_json(v, false));
	json_t *line = json_object_get(json_object_get(j, "first"), "line");
	ck_assert_msg(json_is_string(line), "first.line vanished");
	ck_assert(std::string(json_string_value(line)).find(repeat(fffd, 3)) != std::string::npos);
	json_decref(j);
}
END_TEST

START_TEST(json_has_contract_fields)
{
	json_t *j = parse(verdict_to_json(sample(), false));
	const char *keys[] = {"schema", "job_id", "class", "summary", "first", "victims", "next_action", "confidence",
			      "evidence", "clock"};
	for (const char *k : keys)
		ck_assert_msg(json_object_get(j, k) != nullptr, "missing %s", k);
	ck_assert_int_eq(json_object_size(j), 10);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "schema")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(j, "job_id")), "1234");
	ck_assert_str_eq(json_string_value(json_object_get(j, "class")), "cuda_oom");
	json_t *first = json_object_get(j, "first");
	ck_assert_int_eq(json_integer_value(json_object_get(first, "rank")), 11);
	ck_assert_str_eq(json_string_value(json_object_get(first, "host")), "node03");
	ck_assert_str_eq(json_string_value(json_object_get(first, "source")), "job.out:18211");
	json_t *vic = json_object_get(j, "victims");
	ck_assert_int_eq(json_integer_value(json_object_get(vic, "count")), 3);
	ck_assert_int_eq(json_array_size(json_object_get(vic, "ranks")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "next_action"), "kind")), "reduce_memory");
	json_t *ev0 = json_array_get(json_object_get(j, "evidence"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(ev0, "role")), "initiating");
	ck_assert_str_eq(json_string_value(json_object_get(ev0, "rule")), "cuda.oom");
	json_t *clk = json_object_get(json_object_get(j, "clock"), "node03");
	ck_assert(json_real_value(json_object_get(clk, "offset_s")) < -4.8);
	json_decref(j);
}
END_TEST

START_TEST(json_nulls_when_nobody_is_singled_out)
{
	verdict v;
	v.cls = failure_class::time_limit;
	v.summary = "the job reached its time limit";
	json_t *j = parse(verdict_to_json(v, true));
	ck_assert(json_is_null(json_object_get(j, "job_id")));
	json_t *first = json_object_get(j, "first");
	ck_assert(json_is_null(json_object_get(first, "rank")));
	ck_assert(json_is_null(json_object_get(first, "host")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "victims"), "count")), 0);
	json_decref(j);
}
END_TEST

START_TEST(json_additive_fields_only_when_there_is_something_to_say)
{
	verdict v = sample();
	json_t *j = parse(verdict_to_json(v, false));
	ck_assert_ptr_null(json_object_get(j, "suspects"));
	ck_assert_ptr_null(json_object_get(j, "nan"));
	ck_assert_ptr_null(json_object_get(j, "refused"));
	json_decref(j);
	v.suspects.push_back(verdict_suspect{9, "node02", "never enqueued #120 all_reduce"});
	v.suspects.push_back(verdict_suspect{14, "", "no flight-recorder dump"});
	v.has_nan = true;
	v.nan_cause = "overflow";
	v.nan_step = 4120;
	v.refused.push_back(verdict_refused{"fr/rank_5", "forbidden pickle opcode REDUCE"});
	j = parse(verdict_to_json(v, false));
	json_t *s = json_object_get(j, "suspects");
	ck_assert_uint_eq(json_array_size(s), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(s, 0), "rank")), 9);
	ck_assert(json_is_null(json_object_get(json_array_get(s, 1), "host")));
	json_t *n = json_object_get(j, "nan");
	DIAG_CK_STR_EQ(std::string(json_string_value(json_object_get(n, "cause"))), "overflow");
	ck_assert_int_eq(json_integer_value(json_object_get(n, "step")), 4120);
	DIAG_CK_STR_EQ(std::string(json_string_value(json_object_get(json_array_get(json_object_get(j, "refused"), 0), "file"))),
		       "fr/rank_5");
	json_decref(j);
}
END_TEST

START_TEST(json_survives_invalid_utf8)
{
	verdict v = sample();
	// Overlong forms and surrogates too: jansson refuses them and drops the field.
	v.first_line = std::string("bad \xff\xfe bytes \x01 and \xe2\x82 cut \xc0\xaf \xed\xa0\x80");
	v.summary = "caf\xc3\xa9";
	json_t *j = parse(verdict_to_json(v, false));
	std::string line = json_string_value(json_object_get(json_object_get(j, "first"), "line"));
	ck_assert(line.find("bytes") != std::string::npos);
	ck_assert_str_eq(json_string_value(json_object_get(j, "summary")), "caf\xc3\xa9");
	json_decref(j);
}
END_TEST

START_TEST(comment_line_is_short_and_clean)
{
	verdict v = sample();
	std::string c = verdict_to_comment(v);
	ck_assert_msg(c.rfind("denpex: cuda_oom rank 11 on node03: ran out of GPU memory -> reduce_memory", 0) == 0, "%s",
		      c.c_str());
	ck_assert(c.find("-> reduce_memory") != std::string::npos);
	v.cause = std::string(1000, 'x') + "\n|\x1b[31m";
	c = verdict_to_comment(v, 120);
	ck_assert_uint_le(c.size(), 120);
	const std::string tail = " -> reduce_memory";
	ck_assert_msg(c.size() > tail.size() && c.compare(c.size() - tail.size(), tail.size(), tail) == 0,
		      "the action must survive the cap: %s", c.c_str());
	for (char ch : c)
		ck_assert(static_cast<unsigned char>(ch) >= 0x20 && ch != '|');
	v.cause = std::string(115, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9";
	c = verdict_to_comment(v, 160);
	json_t *s = json_stringn(c.data(), c.size()); // rejects a cut UTF-8 sequence
	ck_assert_ptr_nonnull(s);
	json_decref(s);
}
END_TEST

START_TEST(text_form_names_first_rank_and_action)
{
	std::string t = verdict_to_text(sample());
	ck_assert(t.find("rank 11 on node03") != std::string::npos);
	ck_assert(t.find("job.out:18211") != std::string::npos);
	ck_assert(t.find("reduce_memory") != std::string::npos);
	ck_assert(t.find("victims: 3 ranks") != std::string::npos);
}
END_TEST

static Suite *suite()
{
	Suite *s = suite_create("json");
	TCase *t = tcase_create("verdict");
	tcase_add_test(t, json_has_contract_fields);
	tcase_add_test(t, json_nulls_when_nobody_is_singled_out);
	tcase_add_test(t, json_additive_fields_only_when_there_is_something_to_say);
	tcase_add_test(t, json_survives_invalid_utf8);
	tcase_add_test(t, comment_line_is_short_and_clean);
	tcase_add_test(t, text_form_names_first_rank_and_action);
	tcase_add_test(t, utf8_replaces_every_ill_formed_byte);
	tcase_add_test(t, json_keeps_a_line_with_a_surrogate);
	tcase_add_test(t, comment_and_text_are_strict_utf8);
	tcase_add_test(t, diagnosis_keeps_first_line_with_a_surrogate);
	suite_add_tcase(s, t);
	return s;
}

int main() { return diag_ck_run(suite()); }
