// Unit tests for the flight-recorder reader: the restricted unpickler at the
// opcode level, dump decoding (pickle and JSON), and the cross-rank analysis
// on the fixtures written by tests/fr_writer.py.
#include "ck_cxx.hh"

#include "fr/fr_analysis.hh"
#include "fr/fr_dump.hh"
#include "fr/fr_pickle.hh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

using namespace diag;
using namespace std::string_literals;

namespace {

const std::string datadir = std::string(TEST_DATADIR) + "/fr";

// A pickle from a byte string; "\x80\x02" is prepended as PROTO 2.
pickle_result pk(const std::string &body, const pickle_limits &lim = {})
{
	return pickle_load(std::string("\x80\x02", 2) + body, lim);
}

std::string u8(unsigned v) { return std::string(1, static_cast<char>(v)); }

std::string le32(uint32_t v)
{
	std::string s;
	for (int k = 0; k < 4; k++)
		s += static_cast<char>((v >> (8 * k)) & 0xff);
	return s;
}

std::string short_str(const std::string &s) { return "\x8c" + u8(s.size()) + s; }

bool contains(const std::string &hay, const std::string &needle)
{
	return hay.find(needle) != std::string::npos;
}

fr_collection load_dir(const char *name)
{
	return fr_load_paths({datadir + "/" + name});
}

} // namespace

// ---- pickle opcodes ----

START_TEST(t_pickle_dict)
{
	// {"a": 5, "b": None} as Python writes it.
	auto r = pk("}q\x00("s + short_str("a") + "K\x05" + short_str("b") + "Nu.");
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	ck_assert(r.value.is_dict());
	ck_assert_uint_eq(r.value.size(), 2);
	ck_assert_int_eq(r.value.get("a")->i, 5);
	ck_assert(r.value.get("b")->is_none());
	ck_assert_ptr_null(r.value.get("c"));
}
END_TEST

START_TEST(t_pickle_ints)
{
	auto r = pk(std::string("(J") + le32(0xffffffffu) + "M\xff\xff" +
		    "\x8a\x08\x00\x00\x64\xa7\xb3\xb6\xe0\x0d"s + // LONG1 1e18
		    std::string("\x8a\x00", 2) + "\x8a\x01\xff" + "\x8b" + le32(2) + "\x00\x01"s +
		    "I01\nI00\nI-123\nL99L\n\x88\x89l.");
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	const auto &v = r.value.items;
	ck_assert_uint_eq(v.size(), 12);
	ck_assert_int_eq(v[0].i, -1);
	ck_assert_int_eq(v[1].i, 65535);
	ck_assert_int_eq(v[2].i, 1000000000000000000LL);
	ck_assert_int_eq(v[3].i, 0);
	ck_assert_int_eq(v[4].i, -1);
	ck_assert_int_eq(v[5].i, 256);
	ck_assert(v[6].kind == pickle_kind::boolean && v[6].b);
	ck_assert(v[7].kind == pickle_kind::boolean && !v[7].b);
	ck_assert_int_eq(v[8].i, -123);
	ck_assert_int_eq(v[9].i, 99);
	ck_assert(v[10].b && !v[11].b);
}
END_TEST

START_TEST(t_pickle_big_int_rejected)
{
	auto r = pk(std::string("\x8a\x09", 2) + std::string(9, '\x01') + ".");
	ck_assert(!r.ok());
	ck_assert_msg(contains(r.error, "LONG1") && contains(r.error, "64 bits"), "%s",
		      r.error.c_str());
	r = pk("\x8b" + le32(0x80000000u) + ".");
	ck_assert(!r.ok());
	r = pk("I99999999999999999999\n.");
	ck_assert_msg(!r.ok() && contains(r.error, "too large"), "%s", r.error.c_str());
}
END_TEST

START_TEST(t_pickle_floats_strings)
{
	std::string s = "(G\x3f\xf8\x00\x00\x00\x00\x00\x00"s // 1.5
			"F2.5\n"
			"X" + le32(3) + "abc" +
			"\x8d" + std::string("\x02\0\0\0\0\0\0\0", 8) + "hi" +
			"Vcaf\\u00e9\n" +
			"C\x02\x00\x01"s + "B" + le32(1) + "z" +
			"U\x03old" + "T" + le32(2) + "ok" +
			"\x8e" + std::string("\x01\0\0\0\0\0\0\0", 8) + "q" +
			"X" + le32(2) + "\xff\xfe" + // invalid UTF-8
			"l.";
	auto r = pk(s);
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	const auto &v = r.value.items;
	ck_assert_uint_eq(v.size(), 11);
	ck_assert(v[0].kind == pickle_kind::floating && v[0].f == 1.5);
	ck_assert(v[1].f == 2.5);
	ck_assert_str_eq(v[2].s.c_str(), "abc");
	ck_assert_str_eq(v[3].s.c_str(), "hi");
	ck_assert_str_eq(v[4].s.c_str(), "caf\xc3\xa9");
	ck_assert(v[5].kind == pickle_kind::bytes && v[5].s == std::string("\x00\x01", 2));
	ck_assert(v[6].kind == pickle_kind::bytes && v[6].s == "z");
	ck_assert(v[7].is_str() && v[7].s == "old");
	ck_assert(v[8].s == "ok");
	ck_assert(v[9].kind == pickle_kind::bytes && v[9].s == "q");
	ck_assert_str_eq(v[10].s.c_str(), "\xef\xbf\xbd\xef\xbf\xbd");
}
END_TEST

START_TEST(t_pickle_containers)
{
	// [ (1,), (1,2), (1,2,3), (), {k: v} via DICT, set via ADDITEMS,
	//   frozenset via FROZENSET, tuple via TUPLE, list via LIST ]
	std::string s = "]q\x00("s "K\x01\x85" "K\x01K\x02\x86" "K\x01K\x02K\x03\x87" ")" +
			std::string("(") + short_str("k") + "K\x07" + "d" +
			"\x8f(K\x01K\x02\x90" + "(K\x03\x91" + "(K\x04K\x05t" + "(K\x06l" + "e.";
	auto r = pk(s);
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	const auto &v = r.value.items;
	ck_assert_uint_eq(v.size(), 9);
	ck_assert(v[0].kind == pickle_kind::tuple && v[0].size() == 1);
	ck_assert(v[1].size() == 2 && v[2].size() == 3 && v[3].size() == 0);
	ck_assert_int_eq(v[4].get("k")->i, 7);
	ck_assert(v[5].kind == pickle_kind::list && v[5].size() == 2);
	ck_assert(v[6].kind == pickle_kind::list && v[6].items[0].i == 3);
	ck_assert(v[7].kind == pickle_kind::tuple && v[7].items[1].i == 5);
	ck_assert(v[8].kind == pickle_kind::list && v[8].items[0].i == 6);
}
END_TEST

START_TEST(t_pickle_stack_ops)
{
	// APPEND, SETITEM, POP, POP_MARK, DUP
	auto r = pk("]K\x01" "a" "K\x09" "0" "(K\x02K\x03" "1" "2" "\x86.");
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	ck_assert(r.value.kind == pickle_kind::tuple);
	ck_assert_uint_eq(r.value.size(), 2);
	ck_assert_int_eq(r.value.items[0].items[0].i, 1);
	ck_assert_uint_eq(r.value.items[1].size(), 1);
	r = pk("}" + short_str("x") + "K\x02s.");
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	ck_assert_int_eq(r.value.get("x")->i, 2);
	// A later SETITEM for the same key wins, as in Python.
	r = pk("}(" + short_str("x") + "K\x01" + short_str("x") + "K\x02u.");
	ck_assert_int_eq(r.value.get("x")->i, 2);
}
END_TEST

START_TEST(t_pickle_memo)
{
	// The memoized list is appended to after it was fetched: both views see it.
	auto r = pk("(]q\x01h\x01K\x05" "a" "r" + le32(70000) + "j" + le32(70000) + "p3\ng3\n\x94" +
		    "h\x00"s + "l.");
	ck_assert(!r.ok()); // memo key 0 was never stored
	ck_assert_msg(contains(r.error, "memo key 0"), "%s", r.error.c_str());

	r = pk("(]q\x01h\x01K\x05" "a" "r" + le32(70000) + "j" + le32(70000) + "p3\ng3\n\x94" + "l.");
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	const auto &v = r.value.items;
	ck_assert_uint_eq(v.size(), 4);
	for (const auto &x : v) {
		ck_assert(x.kind == pickle_kind::list);
		ck_assert_uint_eq(x.size(), 1);
		ck_assert_int_eq(x.items[0].i, 5);
	}
}
END_TEST

START_TEST(t_pickle_cycle_and_bombs)
{
	// l = []; l.append(l)
	auto r = pk("]q\x00h\x00"s "a.");
	ck_assert(!r.ok());
	ck_assert_msg(contains(r.error, "cycle"), "%s", r.error.c_str());
	// Each level is a list of 10 references to the previous: 10^8 values.
	std::string s = "]q\x00"s;
	for (int k = 1; k <= 8; k++) {
		s += "(";
		for (int j = 0; j < 10; j++)
			s += "h" + u8(k - 1);
		s += "lq" + u8(k);
	}
	r = pk(s + ".");
	ck_assert(!r.ok());
	ck_assert_msg(contains(r.error, "expanded"), "%s", r.error.c_str());
	// Deep nesting.
	pickle_limits lim;
	lim.max_depth = 10;
	std::string deep;
	for (int k = 0; k < 20; k++)
		deep += "(";
	deep += "]";
	for (int k = 0; k < 20; k++)
		deep += "l";
	r = pk(deep + ".", lim);
	ck_assert_msg(!r.ok() && contains(r.error, "deeper"), "%s", r.error.c_str());
	// Strings and input size.
	lim = {};
	lim.max_string = 4;
	r = pk("X" + le32(5) + "hello.", lim);
	ck_assert_msg(!r.ok() && contains(r.error, "size limit"), "%s", r.error.c_str());
	r = pk("X" + le32(0x7fffffff) + "hi.");
	ck_assert(!r.ok());
	lim = {};
	lim.max_input = 8;
	r = pk("X" + le32(5) + "hello.", lim);
	ck_assert_msg(!r.ok() && contains(r.error, "over the limit"), "%s", r.error.c_str());
	lim = {};
	lim.max_memo = 2;
	r = pk("Nq\x00q\x01q\x02."s, lim);
	ck_assert_msg(!r.ok() && contains(r.error, "memo"), "%s", r.error.c_str());
}
END_TEST

START_TEST(t_pickle_forbidden)
{
	struct {
		const char *body;
		size_t len;
		const char *name;
	} cases[] = {
		{"cos\nsystem\n", 11, "GLOBAL"},
		{"\x93", 1, "STACK_GLOBAL"},
		{"R", 1, "REDUCE"},
		{"b", 1, "BUILD"},
		{"ios\nsystem\n", 11, "INST"},
		{"o", 1, "OBJ"},
		{"\x81", 1, "NEWOBJ"},
		{"\x92", 1, "NEWOBJ_EX"},
		{"\x82\x01", 2, "EXT1"},
		{"\x83\x01\x00", 3, "EXT2"},
		{"\x84\x01\x00\x00\x00", 5, "EXT4"},
		{"P1\n", 3, "PERSID"},
		{"Q", 1, "BINPERSID"},
		{"\x97", 1, "NEXT_BUFFER"},
		{"\x98", 1, "READONLY_BUFFER"},
	};
	for (const auto &c : cases) {
		// Behind a valid value, so the check is not "stack empty".
		auto r = pk("N" + std::string(c.body, c.len) + ".");
		ck_assert_msg(!r.ok(), "%s accepted", c.name);
		ck_assert_msg(contains(r.error, std::string(c.name) + " (0x") &&
				      contains(r.error, "offset 3") && contains(r.error, "forbidden"),
			      "%s: %s", c.name, r.error.c_str());
		ck_assert_uint_eq(r.offset, 3);
	}
	auto r = pk("\xff.");
	ck_assert_msg(!r.ok() && contains(r.error, "unknown opcode"), "%s", r.error.c_str());
	r = pk("S'x'\n.");
	ck_assert_msg(!r.ok() && contains(r.error, "STRING"), "%s", r.error.c_str());
	r = pickle_load(std::string("\x80\x06N.", 4));
	ck_assert_msg(!r.ok() && contains(r.error, "protocol"), "%s", r.error.c_str());
}
END_TEST

START_TEST(t_pickle_malformed)
{
	const char *bad[] = {
		"a",          // APPEND on an empty stack
		"]N(a.",      // APPEND inside an empty mark frame
		"}K\x01" "a.",   // APPEND to a dict
		"]K\x01K\x02s.", // SETITEM on a list
		"e.",         // APPENDS without MARK
		"(K\x01K\x02K\x03" "d.", // odd DICT
		"\x86.",      // TUPLE2 on empty
		".",          // STOP on empty
		"(.",         // STOP in an empty mark frame
		"K",          // truncated argument
		"N",          // no STOP
		"I12",        // no newline
		"Ixyz\n.",    // not a number
		"Fnope\n.",   // not a float
		"(e.",        // APPENDS with no target
	};
	for (const char *b : bad) {
		auto r = pk(b);
		ck_assert_msg(!r.ok(), "accepted: %s", b);
	}
	// Every prefix of a real pickle is an error, never a crash.
	std::string good = "\x80\x02}q\x00("s + short_str("entries") + "]q\x01(}q\x02(" +
			   short_str("record_id") + "J" + le32(7) + "u\x85q\x03" + "eu.";
	auto r = pickle_load(good);
	ck_assert_msg(r.ok(), "%s", r.error.c_str());
	for (size_t n = 0; n < good.size(); n++) {
		auto t = pickle_load(good.substr(0, n));
		ck_assert_msg(!t.ok(), "prefix %zu accepted", n);
	}
	// Trailing bytes after STOP are ignored, as pickle.load does.
	r = pickle_load(good + "garbage");
	ck_assert(r.ok());
}
END_TEST

// ---- dump decoding ----

START_TEST(t_rank_from_name)
{
	ck_assert_int_eq(*fr_rank_from_name("/x/comm_lib_trace_rank_12"), 12);
	ck_assert_int_eq(*fr_rank_from_name("nccl_trace_rank_0"), 0);
	ck_assert_int_eq(*fr_rank_from_name("d/_dump_7.json"), 7);
	ck_assert_int_eq(*fr_rank_from_name("rank3.pkl"), 3);
	ck_assert(!fr_rank_from_name("rank_3.pipe"));
	ck_assert(!fr_rank_from_name("/x/trace"));
	ck_assert(!fr_rank_from_name("r_99999999999"));
}
END_TEST

START_TEST(t_sniff)
{
	ck_assert(fr_sniff(std::string("\x80\x02}q\x00(", 6)));
	ck_assert(fr_sniff(std::string("\x80\x04\x95\x10\0\0\0\0\0\0\0}", 12)));
	ck_assert(!fr_sniff(std::string("\x80\x02]", 3)));
	ck_assert(fr_sniff("  {\"pg_config\": {}}"));
	ck_assert(fr_sniff("{\"comm_lib_version\": \"2\", \"entries\": [{\"collective_seq_id\": 1"));
	ck_assert(!fr_sniff("{\"message\": {}}"));
	ck_assert(!fr_sniff("[rank0]: hello"));
}
END_TEST

START_TEST(t_dump_json)
{
	const char *j = R"({"version": "2.10", "rank": 4, "future_key": [1, 2],
		"pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3, 4]"},
			      "5": {"name": "5", "desc": "odd", "ranks": "[]"}},
		"pg_status": {"0": {"last_enqueued_collective": "12", "last_started_collective": "-1",
				    "last_completed_collective": "11"}},
		"entries": [{"record_id": 3, "pg_id": 0, "process_group": ["0", "default_pg"],
			     "collective_seq_id": 12, "profiling_name": "nccl:all_reduce",
			     "time_created_ns": 1780000000000000000, "input_sizes": [[2, 3]],
			     "output_sizes": [[2, 3]], "input_dtypes": ["Float"],
			     "output_dtypes": ["Float"], "time_discovered_started_ns": 0,
			     "time_discovered_completed_ns": 0, "retired": false,
			     "timeout_ms": 600000, "new_field": {"x": 1}},
			    {"record_id": 4, "process_group": ["0", "default_pg"],
			     "collective_seq_id": 13, "time_discovered_completed_ns": 5,
			     "profiling_name": "nccl:recv 4<-1"},
			    7]})";
	auto r = fr_parse_dump(j, "/tmp/fr/dump_9.json");
	ck_assert_msg(r.dump.has_value(), "%s", r.error.c_str());
	const fr_dump &d = *r.dump;
	ck_assert_str_eq(d.format.c_str(), "json");
	ck_assert_int_eq(d.rank, 4); // content wins over the name
	ck_assert_str_eq(d.rank_source.c_str(), "content");
	ck_assert_str_eq(d.version.c_str(), "2.10");
	ck_assert_uint_eq(d.pg_config.size(), 2);
	ck_assert_uint_eq(d.pg_config[0].ranks.size(), 5);
	ck_assert(d.pg_config[0].ranks_known);
	ck_assert(!d.pg_config[1].ranks_known);
	ck_assert_int_eq(d.find_status(0)->last_enqueued, 12);
	ck_assert_int_eq(d.find_status(0)->last_started, -1);
	ck_assert_uint_eq(d.entries.size(), 2);
	const fr_entry &e = d.entries[0];
	ck_assert_str_eq(e.pg_name.c_str(), "0");
	ck_assert_str_eq(e.pg_desc.c_str(), "default_pg");
	ck_assert_int_eq(e.collective_seq_id, 12);
	ck_assert_int_eq(e.input_sizes[0][1], 3);
	ck_assert(e.state == fr_state::unknown); // no state key and no times
	ck_assert_int_eq(e.time_created_ns, 1780000000000000000LL);
	ck_assert(d.entries[1].state == fr_state::completed);
	ck_assert(d.entries[1].is_p2p);
	ck_assert(!e.is_p2p);
	ck_assert_int_eq(d.entries[1].pg_id, -1);
	ck_assert(!d.warnings.empty()); // the non-dict entry
}
END_TEST

START_TEST(t_dump_versions_and_junk)
{
	auto r = fr_parse_dump(R"({"version": "3.0", "entries": []})", "r0");
	ck_assert_msg(!r.dump && contains(r.error, "version"), "%s", r.error.c_str());
	r = fr_parse_dump(R"({"version": "2.4", "something": 1})", "r0");
	ck_assert(!r.dump);
	r = fr_parse_dump(R"({"entries": [)", "r0");
	ck_assert_msg(!r.dump && contains(r.error, "JSON"), "%s", r.error.c_str());
	r = fr_parse_dump("", "r0");
	ck_assert(!r.dump);
	r = fr_parse_dump("[rank0]: hello", "r0");
	ck_assert(!r.dump);
	r = fr_parse_dump(std::string("\x80\x02]q\x00.", 6), "r0");
	ck_assert_msg(!r.dump && contains(r.error, "not a dict"), "%s", r.error.c_str());
	// Missing optional keys: only entries.
	r = fr_parse_dump(R"({"entries": []})", "x/rank_2");
	ck_assert(r.dump.has_value());
	ck_assert_int_eq(r.dump->rank, 2);
	ck_assert_str_eq(r.dump->rank_source.c_str(), "file name");
}
END_TEST

START_TEST(t_dump_pickle_fixture)
{
	auto r = fr_load_dump(datadir + "/hang64/rank_8");
	ck_assert_msg(r.dump.has_value(), "%s", r.error.c_str());
	const fr_dump &d = *r.dump;
	ck_assert_str_eq(d.format.c_str(), "pickle");
	ck_assert_int_eq(d.rank, 8);
	ck_assert_str_eq(d.version.c_str(), "2.9");
	ck_assert_str_eq(d.comm_lib_version.c_str(), "2.27.3");
	ck_assert_uint_eq(d.pg_config.size(), 2); // default + its TP group
	const fr_pg_config *tp = d.find_pg("2");
	ck_assert_ptr_nonnull(tp);
	ck_assert_uint_eq(tp->ranks.size(), 8);
	ck_assert_int_eq(tp->ranks[0], 8);
	ck_assert_uint_eq(d.entries.size(), 6);
	ck_assert(d.entries.front().record_id > 0); // the ring wrapped
	const fr_entry &last = d.entries.back();
	ck_assert_str_eq(last.profiling_name.c_str(), "nccl:all_reduce");
	ck_assert(last.state == fr_state::started);
	ck_assert_int_eq(last.time_discovered_completed_ns, 0); // None
	ck_assert(last.time_discovered_started_ns > 0);
	ck_assert(!last.retired);
	ck_assert_int_eq(last.timeout_ms, 600000);
	ck_assert_str_eq(last.input_dtypes[0].c_str(), "Float");
	bool dur = false;
	for (const fr_entry &e : d.entries)
		dur |= e.duration_ms.has_value();
	ck_assert(dur);
	// Frames are present on TP group 1's entries.
	auto r1 = fr_load_dump(datadir + "/hang64/rank_1");
	ck_assert(r1.dump.has_value());
	bool frames = false;
	for (const fr_entry &e : r1.dump->entries)
		if (!e.frames.empty()) {
			frames = true;
			ck_assert_str_eq(e.frames[0].filename.c_str(), "train.py");
			ck_assert_int_eq(e.frames[0].line, 120);
		}
	ck_assert(frames);
}
END_TEST

START_TEST(t_dump_forbidden_fixture)
{
	auto r = fr_load_dump(datadir + "/forbidden/rank_0");
	ck_assert(!r.dump);
	ck_assert_msg(contains(r.error, "GLOBAL") && contains(r.error, "forbidden"), "%s",
		      r.error.c_str());
	r = fr_load_dump(datadir + "/forbidden/rank_1");
	ck_assert(!r.dump);
	ck_assert_msg(contains(r.error, "GLOBAL"), "%s", r.error.c_str());
}
END_TEST

START_TEST(t_dump_truncated_fixture)
{
	auto r = fr_load_dump(datadir + "/truncated8/rank_6");
	ck_assert(!r.dump);
	ck_assert_msg(contains(r.error, "truncated"), "%s", r.error.c_str());
}
END_TEST

START_TEST(t_load_safety)
{
	char dir[] = "/tmp/check_fr_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	std::string d = dir;
	std::string target = datadir + "/nodump8/rank_0";
	ck_assert_int_eq(symlink(target.c_str(), (d + "/rank_0").c_str()), 0);
	auto r = fr_load_dump(d + "/rank_0");
	ck_assert_msg(!r.dump, "followed a symlink");
	fr_load_options follow;
	follow.no_follow = false;
	r = fr_load_dump(d + "/rank_0", follow);
	ck_assert_msg(r.dump.has_value(), "%s", r.error.c_str());
	ck_assert_int_eq(mkfifo((d + "/rank_1.pipe").c_str(), 0600), 0);
	r = fr_load_dump(d + "/rank_1.pipe"); // must not block
	ck_assert(!r.dump);
	fr_load_options small;
	small.max_bytes = 100;
	r = fr_load_dump(target, small);
	ck_assert_msg(!r.dump && contains(r.error, "larger"), "%s", r.error.c_str());
	r = fr_load_dump(d + "/absent");
	ck_assert(!r.dump);
	unlink((d + "/rank_0").c_str());
	unlink((d + "/rank_1.pipe").c_str());
	rmdir(dir);
}
END_TEST

START_TEST(t_load_paths_dir)
{
	// A dump cut to nothing still counts when it shares the others' prefix;
	// FIFOs, logs and links are left alone.
	char dir[] = "/tmp/check_fr_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	std::string d = dir;
	for (int r = 0; r < 3; r++) {
		std::string data;
		FILE *in = fopen((datadir + "/nodump8/rank_" + std::to_string(r)).c_str(), "rb");
		ck_assert_ptr_nonnull(in);
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, in)) > 0)
			data.append(buf, n);
		fclose(in);
		FILE *out = fopen((d + "/rank_" + std::to_string(r)).c_str(), "wb");
		ck_assert_ptr_nonnull(out);
		fwrite(data.data(), 1, data.size(), out);
		fclose(out);
	}
	FILE *f = fopen((d + "/rank_3").c_str(), "wb");
	fclose(f);
	f = fopen((d + "/job.log").c_str(), "w");
	fputs("[rank0]: hello 12\n", f);
	fclose(f);
	ck_assert_int_eq(mkfifo((d + "/rank_4.pipe").c_str(), 0600), 0);
	ck_assert_int_eq(symlink((d + "/rank_0").c_str(), (d + "/rank_5").c_str()), 0);
	fr_collection c = fr_load_paths({d});
	ck_assert_uint_eq(c.dumps.size(), 3);
	// rank_3 (empty) and rank_5 (a link, not followed) are unreadable dumps.
	ck_assert_uint_eq(c.unreadable.size(), 2);
	ck_assert_int_eq(c.unreadable[0].rank, 3);
	ck_assert_int_eq(c.unreadable[1].rank, 5);
	for (const char *n : {"rank_0", "rank_1", "rank_2", "rank_3", "rank_4.pipe", "rank_5", "job.log"})
		unlink((d + "/" + n).c_str());
	rmdir(dir);
}
END_TEST

// ---- analysis on fixtures ----

START_TEST(t_hang64_missing_rank)
{
	fr_collection c = load_dir("hang64");
	ck_assert_uint_eq(c.dumps.size(), 64);
	ck_assert_uint_eq(c.unreadable.size(), 0);
	fr_report r = fr_analyze(c);
	ck_assert_uint_eq(r.ranks_with_dump.size(), 64);
	ck_assert_uint_eq(r.ranks_without_dump.size(), 0);
	ck_assert_uint_ge(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 37);
	ck_assert(r.suspects[0].reason == fr_suspect_reason::never_enqueued);
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_uint_eq(r.pgs.size(), 9);
	const fr_pg_report &pg0 = r.pgs[0];
	ck_assert_str_eq(pg0.name.c_str(), "0");
	ck_assert(pg0.stalled);
	ck_assert_int_eq(pg0.stop_seq, 8);
	ck_assert_str_eq(pg0.stop_op.c_str(), "nccl:all_reduce");
	ck_assert_uint_eq(pg0.missing.size(), 1);
	ck_assert_int_eq(pg0.missing[0], 37);
	ck_assert_uint_eq(pg0.stuck.size(), 63); // started, and rank 0 scheduled
	ck_assert_int_eq(pg0.last_completed_all, 7);
	for (size_t k = 1; k < r.pgs.size(); k++)
		ck_assert_msg(!r.pgs[k].stalled, "%s", r.pgs[k].summary.c_str());
	ck_assert_msg(contains(r.summary, "37"), "%s", r.summary.c_str());
	// Anchors: completed collectives on >= 2 ranks, with discovery times.
	ck_assert(!r.anchors.empty());
	bool full = false;
	for (const fr_anchor &a : r.anchors) {
		ck_assert_uint_ge(a.points.size(), 2);
		if (a.pg == "0" && a.points.size() == 64) {
			full = true;
			for (const fr_anchor_point &p : a.points) {
				ck_assert(p.source == fr_time_source::discovered_completed);
				ck_assert(p.time_ns == p.completed_ns && p.completed_ns > p.created_ns);
			}
		}
	}
	ck_assert(full);
	std::string text = fr_report_text(r);
	ck_assert_msg(contains(text, "never enqueued"), "%s", text.c_str());
}
END_TEST

START_TEST(t_deadlock8_stuck_elsewhere)
{
	fr_collection c = load_dir("deadlock8");
	ck_assert_uint_eq(c.dumps.size(), 8);
	ck_assert_str_eq(c.dumps[0].format.c_str(), "json");
	fr_report r = fr_analyze(c);
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 5);
	ck_assert(r.suspects[0].reason == fr_suspect_reason::odd_one_out);
	const fr_pg_report *pg0 = nullptr, *pg2 = nullptr;
	for (const fr_pg_report &p : r.pgs) {
		if (p.name == "0")
			pg0 = &p;
		if (p.name == "2")
			pg2 = &p;
	}
	ck_assert(pg0 && pg2);
	ck_assert(pg0->stalled && pg2->stalled);
	ck_assert(pg0->missing == std::vector<int>{5});
	ck_assert(pg2->stuck == std::vector<int>{5});
	ck_assert((pg2->missing == std::vector<int>{4, 6, 7}));
	// The send/recv pair is not mistaken for collective #4.
	ck_assert_str_eq(pg0->stop_op.c_str(), "nccl:all_reduce");
	ck_assert(pg0->mismatches.empty());
}
END_TEST

START_TEST(t_mismatch32_sizes)
{
	fr_collection c = load_dir("mismatch32");
	fr_report r = fr_analyze(c);
	ck_assert_uint_ge(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 20);
	ck_assert(r.suspects[0].reason == fr_suspect_reason::mismatch);
	ck_assert_uint_eq(r.suspects.size(), 1);
	const fr_pg_report &pg0 = r.pgs[0];
	ck_assert(pg0.stalled);
	ck_assert(pg0.missing.empty());
	ck_assert_uint_eq(pg0.stuck.size(), 32);
	ck_assert_uint_eq(pg0.mismatches.size(), 1);
	ck_assert(pg0.mismatches[0].kind == fr_mismatch_kind::sizes);
	ck_assert_int_eq(pg0.mismatches[0].culprit, 20);
	ck_assert_msg(contains(pg0.mismatches[0].found, "1024") &&
			      contains(pg0.mismatches[0].expected, "2048"),
		      "%s vs %s", pg0.mismatches[0].found.c_str(), pg0.mismatches[0].expected.c_str());
	// reduce_scatter groups: sizes equal within the group, no mismatch.
	for (size_t k = 1; k < r.pgs.size(); k++)
		ck_assert(r.pgs[k].mismatches.empty() && !r.pgs[k].stalled);
}
END_TEST

START_TEST(t_nodump8)
{
	fr_collection c = load_dir("nodump8");
	ck_assert_uint_eq(c.dumps.size(), 7);
	fr_report r = fr_analyze(c);
	ck_assert(r.ranks_without_dump == std::vector<int>{3});
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 3);
	ck_assert(r.suspects[0].reason == fr_suspect_reason::no_dump);
	ck_assert(r.pgs[0].stalled);
	ck_assert(r.pgs[0].missing.empty());
	ck_assert_uint_eq(r.pgs[0].stuck.size(), 7);
	ck_assert(r.pgs[0].ranks_without_dump == std::vector<int>{3});
	// With an expected world that is larger, the extra ranks show too.
	fr_analyze_options o;
	for (int k = 0; k < 10; k++)
		o.world.push_back(k);
	r = fr_analyze(c, o);
	ck_assert((r.ranks_without_dump == std::vector<int>{3, 8, 9}));
}
END_TEST

START_TEST(t_truncated8)
{
	fr_collection c = load_dir("truncated8");
	ck_assert_uint_eq(c.dumps.size(), 7);
	ck_assert_uint_eq(c.unreadable.size(), 1);
	ck_assert_int_eq(c.unreadable[0].rank, 6);
	fr_report r = fr_analyze(c);
	ck_assert(r.ranks_without_dump == std::vector<int>{6});
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 6);
	ck_assert(r.suspects[0].reason == fr_suspect_reason::no_dump);
	ck_assert_uint_eq(r.unreadable.size(), 1);
}
END_TEST

START_TEST(t_report_json)
{
	fr_report r = fr_analyze(load_dir("hang64"));
	json_t *j = fr_report_to_json(r);
	ck_assert_ptr_nonnull(j);
	json_t *sus = json_object_get(j, "suspects");
	ck_assert_uint_eq(json_array_size(sus), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(sus, 0), "rank")), 37);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(sus, 0), "reason")),
			 "never_enqueued");
	json_t *pgs = json_object_get(j, "pgs");
	ck_assert_uint_eq(json_array_size(pgs), 9);
	json_t *pg0 = json_array_get(pgs, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(pg0, "stop_seq")), 8);
	ck_assert(json_is_true(json_object_get(pg0, "stalled")));
	ck_assert_uint_gt(json_array_size(json_object_get(j, "anchors")), 0);
	char *s = json_dumps(j, JSON_COMPACT);
	ck_assert_ptr_nonnull(s);
	free(s);
	json_decref(j);
}
END_TEST

// ---- analysis on built dumps (edge cases) ----

namespace {

fr_dump mk_dump(int rank, const std::vector<int> &ranks)
{
	fr_dump d;
	d.rank = rank;
	d.version = "2.9";
	fr_pg_config p;
	p.key = p.name = "0";
	p.desc = "default_pg";
	p.ranks = ranks;
	p.ranks_known = true;
	d.pg_config.push_back(p);
	return d;
}

void mk_entry(fr_dump &d, int64_t seq, fr_state st, const char *op = "nccl:all_reduce",
	      int64_t size = 8)
{
	fr_entry e;
	e.record_id = static_cast<int64_t>(d.entries.size());
	e.pg_id = 0;
	e.pg_name = "0";
	e.pg_desc = "default_pg";
	e.collective_seq_id = seq;
	e.profiling_name = op;
	e.time_created_ns = 1000 * seq + d.rank;
	e.input_sizes = e.output_sizes = {{size}};
	e.input_dtypes = e.output_dtypes = {"Float"};
	e.state = st;
	if (st == fr_state::completed)
		e.time_discovered_completed_ns = 1000 * seq + 500;
	d.entries.push_back(e);
}

} // namespace

START_TEST(t_minority_stuck)
{
	// Seq 2 completed on 0-6, rank 7 never saw it finish: 7 is the odd one.
	std::vector<int> world = {0, 1, 2, 3, 4, 5, 6, 7};
	std::vector<fr_dump> ds;
	for (int r : world) {
		fr_dump d = mk_dump(r, world);
		mk_entry(d, 1, fr_state::completed);
		mk_entry(d, 2, r == 7 ? fr_state::started : fr_state::completed);
		ds.push_back(d);
	}
	fr_report r = fr_analyze(ds, {});
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 7);
	ck_assert(r.suspects[0].reason == fr_suspect_reason::stuck);
	// Anchor without discovery times falls back to creation times.
	ds[0].entries[0].time_discovered_completed_ns = 0;
	r = fr_analyze(ds, {});
	bool created = false;
	for (const fr_anchor &a : r.anchors)
		for (const fr_anchor_point &p : a.points)
			if (p.rank == 0 && a.seq == 1)
				created = p.source == fr_time_source::created && p.time_ns == 1000;
	ck_assert(created);
}
END_TEST

// One dump per rank of world, each with collective #1 started: profile
// name `op`, or `odd_op` on rank `odd`.
static std::vector<fr_dump> world_in(const std::vector<int> &world, int odd, const char *odd_op,
				     const char *op)
{
	std::vector<fr_dump> ds;
	for (int r : world) {
		fr_dump d = mk_dump(r, world);
		mk_entry(d, 1, fr_state::started, r == odd ? odd_op : op);
		ds.push_back(d);
	}
	return ds;
}

START_TEST(t_type_mismatch_and_all_stuck)
{
	std::vector<fr_dump> ds = world_in({0, 1, 2, 3}, 2, "nccl:all_gather", "nccl:all_reduce");
	fr_report r = fr_analyze(ds, {});
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 2);
	ck_assert(r.pgs[0].mismatches[0].kind == fr_mismatch_kind::op_type);
	// Everyone waiting, nothing else: no suspect, and the summary says so.
	ds[2].entries[0].profiling_name = "nccl:all_reduce";
	r = fr_analyze(ds, {});
	ck_assert_uint_eq(r.suspects.size(), 0);
	ck_assert_msg(contains(r.summary, "no rank singled out"), "%s", r.summary.c_str());
	// dtype mismatch
	ds[1].entries[0].input_dtypes = {"BFloat16"};
	r = fr_analyze(ds, {});
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 1);
	ck_assert(r.pgs[0].mismatches[0].kind == fr_mismatch_kind::dtypes);
}
END_TEST

START_TEST(t_a_tied_mismatch_singles_out_nobody)
{
	// Two ranks in different collectives: they differ, but neither is the
	// odd one out (the lower rank's value would win the tie by accident).
	std::vector<fr_dump> ds = world_in({0, 1}, 1, "nccl:broadcast", "nccl:all_reduce");
	fr_report r = fr_analyze(ds, {});
	ck_assert_uint_eq(r.pgs[0].mismatches.size(), 1); // still reported
	ck_assert(!r.pgs[0].mismatches[0].outvoted);
	ck_assert_uint_eq(r.suspects.size(), 0);
	// A third rank on rank 0's side outvotes rank 1.
	ds = world_in({0, 1, 2}, 1, "nccl:broadcast", "nccl:all_reduce");
	r = fr_analyze(ds, {});
	ck_assert_uint_eq(r.suspects.size(), 1);
	ck_assert_int_eq(r.suspects[0].rank, 1);
}
END_TEST

START_TEST(t_ring_eviction_window)
{
	// Rank 1's ring wrapped and only holds seqs 5..6; rank 0 holds 1..6.
	// Seqs below 5 are not compared, so rank 1 is not "missing" from them.
	std::vector<int> world = {0, 1};
	fr_dump a = mk_dump(0, world), b = mk_dump(1, world);
	for (int s = 1; s <= 6; s++)
		mk_entry(a, s, s == 6 ? fr_state::started : fr_state::completed);
	for (int s = 5; s <= 6; s++)
		mk_entry(b, s, s == 6 ? fr_state::started : fr_state::completed);
	for (fr_entry &e : b.entries)
		e.record_id += 100;
	fr_report r = fr_analyze({a, b}, {});
	ck_assert_int_eq(r.pgs[0].first_seq, 5);
	ck_assert_int_eq(r.pgs[0].stop_seq, 6);
	ck_assert(r.pgs[0].missing.empty());
	ck_assert_uint_eq(r.suspects.size(), 0);
	// pg_status says rank 1 enqueued 7 although its ring lost it: unknown, not missing.
	mk_entry(a, 7, fr_state::started);
	fr_pg_status st;
	st.pg_id = "0";
	st.last_enqueued = 7;
	b.pg_status.push_back(st);
	r = fr_analyze({a, b}, {});
	ck_assert(r.pgs[0].missing.empty());
	// Without it, rank 1 never enqueued 7.
	b.pg_status.clear();
	r = fr_analyze({a, b}, {});
	ck_assert_int_eq(r.pgs[0].stop_seq, 6);
	ck_assert_uint_eq(r.pgs[0].progress.size(), 2);
	ck_assert_int_eq(r.pgs[0].progress[1].last_enqueued, 6);
	// torchfrtrace alignment drops rank 0's entries below record 100.
	fr_analyze_options o;
	o.record_id_alignment = true;
	r = fr_analyze({a, b}, {}, o);
	ck_assert(r.pgs.empty() || r.pgs[0].first_seq >= 5);
}
END_TEST

START_TEST(t_rank_list)
{
	// ck_assert_str_eq keeps the pointer past the full expression: no temporaries.
	std::string a = fr_rank_list({0, 1, 2, 3, 5, 9, 10, 11}), b = fr_rank_list({4, 3}),
		    c = fr_rank_list({});
	ck_assert_str_eq(a.c_str(), "0-3,5,9-11");
	ck_assert_str_eq(b.c_str(), "3,4");
	ck_assert_str_eq(c.c_str(), "");
}
END_TEST

int main()
{
	Suite *s = suite_create("fr");
	TCase *p = tcase_create("pickle");
	tcase_add_test(p, t_pickle_dict);
	tcase_add_test(p, t_pickle_ints);
	tcase_add_test(p, t_pickle_big_int_rejected);
	tcase_add_test(p, t_pickle_floats_strings);
	tcase_add_test(p, t_pickle_containers);
	tcase_add_test(p, t_pickle_stack_ops);
	tcase_add_test(p, t_pickle_memo);
	tcase_add_test(p, t_pickle_cycle_and_bombs);
	tcase_add_test(p, t_pickle_forbidden);
	tcase_add_test(p, t_pickle_malformed);
	suite_add_tcase(s, p);
	TCase *d = tcase_create("dump");
	tcase_add_test(d, t_rank_from_name);
	tcase_add_test(d, t_sniff);
	tcase_add_test(d, t_dump_json);
	tcase_add_test(d, t_dump_versions_and_junk);
	tcase_add_test(d, t_dump_pickle_fixture);
	tcase_add_test(d, t_dump_forbidden_fixture);
	tcase_add_test(d, t_dump_truncated_fixture);
	tcase_add_test(d, t_load_safety);
	tcase_add_test(d, t_load_paths_dir);
	suite_add_tcase(s, d);
	TCase *a = tcase_create("analysis");
	tcase_set_timeout(a, 60);
	tcase_add_test(a, t_hang64_missing_rank);
	tcase_add_test(a, t_deadlock8_stuck_elsewhere);
	tcase_add_test(a, t_mismatch32_sizes);
	tcase_add_test(a, t_nodump8);
	tcase_add_test(a, t_truncated8);
	tcase_add_test(a, t_report_json);
	tcase_add_test(a, t_minority_stuck);
	tcase_add_test(a, t_type_mismatch_and_all_stuck);
	tcase_add_test(a, t_a_tied_mismatch_singles_out_nobody);
	tcase_add_test(a, t_ring_eviction_window);
	tcase_add_test(a, t_rank_list);
	suite_add_tcase(s, a);
	return diag_ck_run(s);
}
