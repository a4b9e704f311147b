// GPU-health readers (DCGM, nvidia-smi) on fixtures shaped on public
// examples, their garbage, the corroboration step, and the metrics state
// under concurrent writers.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "ck_cxx.hh"
#include "deciding/corroboration.hh"
#include "reading/gpu_health_readers.hh"
#include "rendering/metrics.hh"

#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace diag;

namespace {

std::string fixture(const std::string &name)
{
	std::ifstream f(std::string(TEST_DATADIR) + "/dcgm/" + name, std::ios::binary);
	ck_assert_msg(f.good(), "fixture %s missing", name.c_str());
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

gpu_health read_fixture(const std::string &name, bool expect_ok, std::string *why_out = nullptr)
{
	std::string text = fixture(name);
	gpu_health_format f = sniff_gpu_health(text.substr(0, 65536));
	ck_assert_msg(f != gpu_health_format::none, "%s not sniffed", name.c_str());
	gpu_health h;
	std::string why;
	bool ok = false;
	DIAG_CK_NOTHROW(ok = read_gpu_health(f, text, name, "node02", h, why));
	ck_assert_msg(ok == expect_ok, "%s: read %d, why '%s'", name.c_str(), ok, why.c_str());
	if (!ok)
		ck_assert_msg(!why.empty(), "%s: no reason given", name.c_str());
	if (why_out)
		*why_out = why;
	return h;
}

const gpu_observation *find(const gpu_health &h, gpu_counter c, const std::string &bus, int index = -1)
{
	for (const auto &o : h.obs)
		if (o.counter == c && (bus.empty() || o.bus_id == bus) && (index < 0 || o.gpu_index == index))
			return &o;
	return nullptr;
}

// The largest value of a counter on a GPU (nvidia-smi gives SRAM and DRAM).
double max_value(const gpu_health &h, gpu_counter c, const std::string &bus)
{
	double m = -1;
	for (const auto &o : h.obs)
		if (o.counter == c && o.bus_id == bus)
			m = std::max(m, o.value);
	return m;
}

// A gpu_hardware verdict blaming 0000:5d:00 on node02 with Xid 79, as the
// diagnosis leaves it (first event: an Xid line with its pci capture).
verdict hw_verdict(evidence &ev, const std::string &confidence)
{
	event e;
	e.cls = failure_class::gpu_hardware;
	e.xid = 79;
	e.captures = {{"pci", "0000:5D:00"}};
	e.host = ev.intern_host("node02");
	ev.events.push_back(e);
	verdict v;
	v.cls = failure_class::gpu_hardware;
	v.first_event = 0;
	v.first_host = "node02";
	v.has_first = true;
	v.confidence = confidence;
	return v;
}

} // namespace

START_TEST(bus_ids_normalize)
{
	DIAG_CK_STR_EQ(normalize_bus_id("00000000:5D:00.0"), "0000:5d:00");
	DIAG_CK_STR_EQ(normalize_bus_id("0000:5d:00"), "0000:5d:00");
	DIAG_CK_STR_EQ(normalize_bus_id("5d:00.0"), "0000:5d:00");
	DIAG_CK_STR_EQ(normalize_bus_id("00000001:5D:00.0"), "0001:5d:00");
	DIAG_CK_STR_EQ(normalize_bus_id("10000000:5D:00.0"), "");
	DIAG_CK_STR_EQ(normalize_bus_id("GPU-1234"), "");
	DIAG_CK_STR_EQ(normalize_bus_id(""), "");
}
END_TEST

START_TEST(dcgm_exporter_fixture)
{
	gpu_health h = read_fixture("dcgm-exporter.prom", true);
	const gpu_observation *x = find(h, gpu_counter::xid, "0000:5d:00");
	ck_assert_ptr_nonnull(x);
	ck_assert(x->value == 79);
	DIAG_CK_STR_EQ(x->host, "node02");
	ck_assert_int_eq(x->gpu_index, 3);
	const gpu_observation *clean = find(h, gpu_counter::xid, "0000:1b:00");
	ck_assert_ptr_nonnull(clean);
	ck_assert(clean->value == 0);
	ck_assert_ptr_nonnull(find(h, gpu_counter::row_remap_failure, "0000:5d:00"));
	ck_assert(find(h, gpu_counter::row_remap_failure, "0000:5d:00")->value == 1);
	ck_assert_ptr_null(find(h, gpu_counter::retired_pending, ""));
}
END_TEST

START_TEST(dcgmi_fixtures)
{
	gpu_health s = read_fixture("dcgmi-stats.txt", true);
	ck_assert_ptr_nonnull(find(s, gpu_counter::xid, "", 3));
	ck_assert(find(s, gpu_counter::xid, "", 3)->value == 1);
	ck_assert(find(s, gpu_counter::xid, "", 0)->value == 0);
	ck_assert(find(s, gpu_counter::ecc_dbe, "", 0)->value == 0);
	gpu_health d = read_fixture("dcgmi-diag.json", true);
	ck_assert_ptr_nonnull(find(d, gpu_counter::diag_result, "", 3));
	ck_assert(find(d, gpu_counter::diag_result, "", 3)->value == 1);
	ck_assert(find(d, gpu_counter::diag_result, "", 0)->value == 0);
	DIAG_CK_STR_EQ(find(d, gpu_counter::diag_result, "", 3)->detail, "GPU Memory");
}
END_TEST

START_TEST(nvidia_smi_fixtures)
{
	gpu_health t = read_fixture("nvidia-smi-q.txt", true);
	ck_assert(max_value(t, gpu_counter::ecc_dbe, "0000:5d:00") == 2);
	ck_assert(max_value(t, gpu_counter::ecc_dbe, "0000:1b:00") == 0);
	ck_assert(find(t, gpu_counter::row_remap_pending, "0000:5d:00")->value == 1);
	ck_assert(find(t, gpu_counter::row_remap_failure, "0000:5d:00")->value == 0);
	gpu_health x = read_fixture("nvidia-smi-q.xml", true);
	ck_assert(max_value(x, gpu_counter::ecc_dbe, "0000:5d:00") == 3);
	ck_assert(find(x, gpu_counter::row_remap_failure, "0000:5d:00")->value == 1);
	ck_assert(find(x, gpu_counter::row_remap_failure, "0000:1b:00")->value == 0);
	// N/A is no value: not an observation.
	ck_assert_ptr_null(find(x, gpu_counter::retired_pending, ""));
}
END_TEST

START_TEST(garbage_gives_a_note)
{
	for (const char *g : {"garbage.prom", "garbage-diag.json", "garbage.xml", "garbage-q.txt", "garbage-stats.txt"}) {
		std::string why;
		read_fixture(g, false, &why);
	}
	// Not DCGM at all: not sniffed as such.
	ck_assert(sniff_gpu_health("[Mon Oct 26 03:51:27 2026] NVRM: Xid (PCI:0000:5d:00): 79\n") == gpu_health_format::none);
	ck_assert(sniff_gpu_health("# HELP node_cpu_seconds_total x\nnode_cpu_seconds_total 1\n") == gpu_health_format::none);
	// A job log with an nvidia-smi dump inside stays a log.
	ck_assert(sniff_gpu_health("step 1 loss 2.3\n\n==============NVSMI LOG==============\n") == gpu_health_format::none);
	ck_assert(sniff_gpu_health("\n==============NVSMI LOG==============\n") == gpu_health_format::nvidia_smi_text);
	// Binary and cut-off input never throws.
	std::string bin(4096, '\0');
	for (size_t i = 0; i < bin.size(); i++)
		bin[i] = static_cast<char>(i * 131);
	for (auto f : {gpu_health_format::dcgm_exporter, gpu_health_format::dcgmi_stats, gpu_health_format::dcgmi_diag_json,
		       gpu_health_format::nvidia_smi_text, gpu_health_format::nvidia_smi_xml}) {
		gpu_health h;
		std::string why;
		bool ok = true;
		DIAG_CK_NOTHROW(ok = read_gpu_health(f, bin, "bin", "", h, why));
		ck_assert(!ok);
		ck_assert(!why.empty());
	}
}
END_TEST

START_TEST(corroboration_agrees_and_contradicts)
{
	gpu_health agree = read_fixture("dcgm-exporter.prom", true);
	evidence ev1;
	verdict v1 = hw_verdict(ev1, "medium");
	corroborate(v1, ev1, agree);
	DIAG_CK_STR_EQ(v1.gpu_bus, "0000:5d:00");
	ck_assert_int_eq(v1.gpu_xid, 79);
	ck_assert_int_ge(v1.corroboration.size(), 1);
	ck_assert(v1.corroboration[0].agrees);
	ck_assert_msg(v1.corroboration[0].detail.find("Xid 79") != std::string::npos, "%s", v1.corroboration[0].detail.c_str());
	DIAG_CK_STR_EQ(v1.confidence, "high");

	// The same GPU with no Xid: contradicts, confidence one step down.
	gpu_health none;
	gpu_observation o;
	o.source = "dcgm";
	o.tool = "dcgm-exporter";
	o.bus_id = "0000:5d:00";
	o.host = "node02";
	o.counter = gpu_counter::xid;
	o.value = 0;
	none.obs.push_back(o);
	evidence ev2;
	verdict v2 = hw_verdict(ev2, "high");
	corroborate(v2, ev2, none);
	ck_assert_int_eq(v2.corroboration.size(), 1);
	ck_assert(!v2.corroboration[0].agrees);
	DIAG_CK_STR_EQ(v2.confidence, "medium");

	// Another node's or GPU's counters say nothing.
	gpu_health other = none;
	other.obs[0].host = "node07";
	evidence ev3;
	verdict v3 = hw_verdict(ev3, "high");
	corroborate(v3, ev3, other);
	ck_assert_int_eq(v3.corroboration.size(), 0);
	DIAG_CK_STR_EQ(v3.confidence, "high");

	// Not a hardware verdict: DCGM is never the cause.
	evidence ev4;
	verdict v4;
	v4.cls = failure_class::cuda_oom;
	v4.confidence = "high";
	corroborate(v4, ev4, agree);
	ck_assert_int_eq(v4.corroboration.size(), 0);
	ck_assert(v4.cls == failure_class::cuda_oom);
}
END_TEST

START_TEST(metrics_concurrent_writers_lose_no_count)
{
	char tmpl[] = "/tmp/denpex-metrics-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	std::string dir = tmpl;
	const std::string v = "{\"schema\":1,\"class\":\"gpu_hardware\",\"first\":{\"host\":\"node02\"},"
			      "\"next_action\":{\"kind\":\"drain_node\"},\"gpu\":{\"host\":\"node02\",\"bus_id\":\"0000:5d:00\",\"xid\":79}}";
	const int writers = 8, each = 25;
	for (int w = 0; w < writers; w++) {
		pid_t p = fork();
		ck_assert_int_ge(p, 0);
		if (p == 0) {
			for (int i = 0; i < each; i++) {
				std::string err;
				if (!metrics_record(dir, v, 1.5, false, 30, err))
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int w = 0; w < writers; w++) {
		int st = 0;
		wait(&st);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	std::ifstream f(dir + "/denpex.prom");
	std::stringstream ss;
	ss << f.rdbuf();
	std::string prom = ss.str();
	std::string want = "denpex_failures_total{class=\"gpu_hardware\",next_action=\"drain_node\",node=\"node02\"} " +
			   std::to_string(writers * each) + "\n";
	ck_assert_msg(prom.find(want) != std::string::npos, "%s", prom.c_str());
	ck_assert(prom.find("denpex_gpu_hardware_verdicts_total{node=\"node02\",gpu=\"0000:5d:00\",xid=\"79\"} " +
			    std::to_string(writers * each) + "\n") != std::string::npos);
	ck_assert(prom.find("denpex_epilog_duration_seconds_count " + std::to_string(writers * each) + "\n") != std::string::npos);
	ck_assert(prom.find("denpex_epilog_duration_seconds_bucket{le=\"1\"} 0\n") != std::string::npos);
	ck_assert(prom.find("denpex_epilog_duration_seconds_bucket{le=\"2\"} " + std::to_string(writers * each) + "\n") != std::string::npos);
	std::string cmd = "rm -rf '" + dir + "'";
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(metrics_labels_escaped_and_not_a_verdict_refused)
{
	metrics_state s;
	std::string err;
	ck_assert(metrics_add_verdict(s, "{\"schema\":1,\"class\":\"unknown\",\"first\":{\"host\":\"a\\\"b\\\\c\\nd\"},\"next_action\":{\"kind\":\"investigate\"}}", 0, err));
	std::string t = metrics_exposition(s);
	ck_assert_msg(t.find("node=\"a\\\"b\\\\c\\nd\"") != std::string::npos, "%s", t.c_str());
	ck_assert(!metrics_add_verdict(s, "{\"class\":1}", 0, err));
	ck_assert(!metrics_add_verdict(s, "not json", 0, err));
	// A state round-trips.
	metrics_add_epilog_run(s, 7, true);
	metrics_state back;
	ck_assert(metrics_state_from_json(metrics_state_to_json(s), back, err));
	DIAG_CK_STR_EQ(metrics_exposition(back), metrics_exposition(s));
}
END_TEST

int main()
{
	Suite *s = suite_create("gpu_health");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, bus_ids_normalize);
	tcase_add_test(tc, dcgm_exporter_fixture);
	tcase_add_test(tc, dcgmi_fixtures);
	tcase_add_test(tc, nvidia_smi_fixtures);
	tcase_add_test(tc, garbage_gives_a_note);
	tcase_add_test(tc, corroboration_agrees_and_contradicts);
	tcase_add_test(tc, metrics_concurrent_writers_lose_no_count);
	tcase_add_test(tc, metrics_labels_escaped_and_not_a_verdict_refused);
	suite_add_tcase(s, tc);
	return diag_ck_run(s);
}
