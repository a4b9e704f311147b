// Unit tests of denpex-epilog's parts that need no Slurm: configuration,
// %-expansion, the comment, the safe reader, atomic reports, kmsg lines.
// The safe_read cases that drop privileges need root and skip otherwise.
#include "ck_cxx.hh"

#include "../epilog/comment.hh"
#include "../epilog/config.hh"
#include "../epilog/expand.hh"
#include "../epilog/gpu_health_collect.hh"
#include "../epilog/attribution.hh"
#include "../epilog/bounded_child.hh"
#include "../epilog/worker_record.hh"
#include "denpex_diag.h"
#include "../epilog/kmsg.hh"
#include "../epilog/own_files.hh"
#include "../epilog/report.hh"
#include "../epilog/safe_read.hh"
#include "../epilog/spool_trust.hh"

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace denpex::epilog;

// Compares through named strings: ck_assert_str_eq keeps a pointer past the
// temporary's lifetime.
#define CK_STR_EQ(a, b)                                                        \
	do {                                                                   \
		std::string a_ = (a), b_ = (b);                                \
		ck_assert_str_eq(a_.c_str(), b_.c_str());                      \
	} while (0)

namespace {

int rm_entry(const char *path, const struct stat *, int, struct FTW *)
{
	remove(path);
	return 0;
}

std::vector<std::string> tmpdirs;

void remove_tmpdirs()
{
	for (const std::string &d : tmpdirs)
		nftw(d.c_str(), rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

// A fresh directory, removed when the test's process exits.
std::string make_tmpdir()
{
	char t[] = "/tmp/check_epilog.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(t));
	chmod(t, 0755);
	if (tmpdirs.empty())
		atexit(remove_tmpdirs);
	tmpdirs.push_back(t);
	return t;
}

void put(const std::string &path, const std::string &data, mode_t mode = 0644)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data.data(), data.size()), (ssize_t)data.size());
	fchmod(fd, mode);
	close(fd);
}

std::string slurp(const std::string &path)
{
	std::string out;
	int fd = open(path.c_str(), O_RDONLY);
	if (fd < 0)
		return out;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		out.append(buf, (size_t)n);
	close(fd);
	return out;
}

bool exists(const std::string &path)
{
	struct stat st;
	return lstat(path.c_str(), &st) == 0;
}

bool any_contains(const copy_report &r, const std::string &src, const std::string &what)
{
	for (const auto &s : r.skipped)
		if (s.src.find(src) != std::string::npos && s.reason.find(what) != std::string::npos)
			return true;
	return false;
}

// Reads as nobody when root (so root-only files are unreadable), else as us.
user_cred test_cred()
{
	return cred_for_job(65534, 65534);
}

} // namespace

// ---------------------------------------------------------------- config

START_TEST(config_defaults_when_missing)
{
	config_result r = config_load("/nonexistent/denpex.yaml");
	ck_assert(r.errors.empty());
	ck_assert(!r.file_found);
	ck_assert_str_eq(r.cfg.spool_dir.c_str(), "/var/spool/denpex");
	ck_assert_uint_eq(r.cfg.deadline_s, 60);
	ck_assert(r.cfg.comment_field == comment_field::comment);
}
END_TEST

START_TEST(config_parses_every_key)
{
	const char *y = "spool_dir: /s\nstate_dir: /st\nreport_dir: /r\nconf_dir: /c\n"
			"deadline_s: 30\nnode_wait_s: 5\nread_timeout_s: 3\n"
			"max_bytes_per_file: 2M\nmax_total_bytes: 1G\nkernel_max_bytes: 64K\n"
			"kernel_slack_s: 10\ncomment_field: admin_comment\ncomment_max_bytes: 100\n"
			"diagnose_states: [failed, TIMEOUT]\nkernel_log: none\n"
			"diagnose_in: slurmctld\nkeep_state: true\nkeep_spool: true\nmax_state_bytes: 2G\n";
	config_result r = config_parse_string(y, "t.yaml");
	for (auto &e : r.errors)
		fprintf(stderr, "%s\n", e.c_str());
	ck_assert(r.errors.empty());
	const config &c = r.cfg;
	ck_assert_str_eq(c.spool_dir.c_str(), "/s");
	ck_assert_str_eq(c.state_dir.c_str(), "/st");
	ck_assert_str_eq(c.report_dir.c_str(), "/r");
	ck_assert_str_eq(c.conf_dir.c_str(), "/c");
	ck_assert_uint_eq(c.deadline_s, 30);
	ck_assert_uint_eq(c.node_wait_s, 5);
	ck_assert_uint_eq(c.read_timeout_s, 3);
	ck_assert_uint_eq(c.max_bytes_per_file, 2u << 20);
	ck_assert_uint_eq(c.max_total_bytes, 1ull << 30);
	ck_assert_uint_eq(c.max_state_bytes, 2ull << 30);
	ck_assert(c.keep_spool);
	ck_assert_uint_eq(c.kernel_max_bytes, 64u << 10);
	ck_assert_uint_eq(c.kernel_slack_s, 10);
	ck_assert(c.comment_field == comment_field::admin_comment);
	ck_assert_uint_eq(c.comment_max_bytes, 100);
	ck_assert_uint_eq(c.diagnose_states.size(), 2);
	ck_assert(config_state_wanted(c, "FAILED"));
	ck_assert(!config_state_wanted(c, "CANCELLED"));
	ck_assert(c.kernel_log == kernel_source::none);
	ck_assert(c.diagnose_in == diagnose_site::slurmctld);
	ck_assert(c.keep_state);
}
END_TEST

START_TEST(config_metrics_and_dcgm_keys)
{
	config_result d = config_parse_string("report_dir: /r\n", "d.yaml");
	ck_assert(d.cfg.metrics_dir.empty());
	ck_assert(d.cfg.dcgm_sources.empty());
	config_result r = config_parse_string("metrics_dir: /var/lib/prometheus/node-exporter\n"
					      "dcgm: [dcgmi, nvidia-smi, prometheus]\n"
					      "dcgmi_path: /opt/dcgm/bin/dcgmi\nnvidia_smi_path: /opt/nv/nvidia-smi\n"
					      "prometheus_url: http://prom:9090\ndcgm_timeout_s: 7\n",
					      "m.yaml");
	for (auto &e : r.errors)
		fprintf(stderr, "%s\n", e.c_str());
	ck_assert(r.errors.empty());
	ck_assert_str_eq(r.cfg.metrics_dir.c_str(), "/var/lib/prometheus/node-exporter");
	ck_assert(config_dcgm(r.cfg, "dcgmi") && config_dcgm(r.cfg, "nvidia-smi") && config_dcgm(r.cfg, "prometheus"));
	ck_assert_str_eq(r.cfg.dcgmi_path.c_str(), "/opt/dcgm/bin/dcgmi");
	ck_assert_str_eq(r.cfg.nvidia_smi_path.c_str(), "/opt/nv/nvidia-smi");
	ck_assert_str_eq(r.cfg.prometheus_url.c_str(), "http://prom:9090");
	ck_assert_uint_eq(r.cfg.dcgm_timeout_s, 7);
	config_result b = config_parse_string("metrics_dir: rel\ndcgm: [dcgmi, magic]\ndcgmi_path: dcgmi\n"
					      "prometheus_url: ftp://x\ndcgm_timeout_s: 600\n",
					      "b.yaml");
	ck_assert_uint_eq(b.errors.size(), 5);
	ck_assert(b.cfg.metrics_dir.empty());
	ck_assert(b.cfg.dcgm_sources.empty());
	ck_assert_str_eq(b.cfg.dcgmi_path.c_str(), "/usr/bin/dcgmi");
	ck_assert_uint_eq(b.cfg.dcgm_timeout_s, 5);
	ck_assert(config_parse_string("dcgm: off\n", "o.yaml").cfg.dcgm_sources.empty());
}
END_TEST

// dcgmi and nvidia-smi run bounded, without PATH, only from trusted files.
START_TEST(run_tool_is_bounded_and_picky)
{
	std::string out, err;
	uid_t u = getuid();
	gid_t g = getgid();
	if (u == 0)
		u = g = 65534;
	ck_assert(run_tool("/bin/echo", {"hello"}, u, g, 5, 1024, out, err));
	ck_assert_str_eq(out.c_str(), "hello\n");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert(!run_tool("/bin/sleep", {"30"}, u, g, 1, 1024, out, err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_msg(t1.tv_sec - t0.tv_sec < 5, "took %ld s", static_cast<long>(t1.tv_sec - t0.tv_sec));
	ck_assert(err.find("killed") != std::string::npos);
	ck_assert(!run_tool("echo", {}, u, g, 5, 1024, out, err));
	ck_assert(!run_tool("/nonexistent/dcgmi", {}, u, g, 5, 1024, out, err));
	if (getuid() == 0) {
		char path[] = "/tmp/denpex-tool-XXXXXX";
		int fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		ck_assert(write(fd, "#!/bin/sh\necho x\n", 17) == 17);
		close(fd);
		chmod(path, 0777); // anyone could change it: refused
		ck_assert(!run_tool(path, {}, u, g, 5, 1024, out, err));
		ck_assert(err.find("root-owned") != std::string::npos);
		unlink(path);
	}
	// Output is capped.
	ck_assert(run_tool("/bin/cat", {"/proc/self/maps"}, u, g, 5, 10, out, err));
	ck_assert_uint_eq(out.size(), 10);
}
END_TEST

START_TEST(config_garbage_gives_defaults)
{
	const char *bad[] = {"\x01\x02\xff garbage {{{ ::: [", "just a scalar", "- a\n- b\n",
			     "a: {nested: map}\n", "deadline_s: [1, 2\n", "x: &a 1\ny: *a\n"};
	for (const char *b : bad) {
		config_result r = config_parse_string(b, "g.yaml");
		ck_assert_msg(!r.errors.empty(), "no error for %s", b);
		ck_assert_str_eq(r.cfg.report_dir.c_str(), "/var/log/denpex");
		ck_assert_uint_eq(r.cfg.deadline_s, 60);
	}
}
END_TEST

START_TEST(config_bad_values_keep_defaults)
{
	config_result r = config_parse_string("deadline_s: -5\nspool_dir: relative/path\n"
					      "comment_field: both\nmax_total_bytes: 12Q\n"
					      "diagnose_states: [FAILED, BOGUS]\nunknown_key: 1\n"
					      "report_dir: /ok\n",
					      "b.yaml");
	ck_assert_uint_eq(r.errors.size(), 6);
	ck_assert_uint_eq(r.cfg.deadline_s, 60);
	ck_assert_str_eq(r.cfg.spool_dir.c_str(), "/var/spool/denpex");
	ck_assert(r.cfg.comment_field == comment_field::comment);
	ck_assert_uint_eq(r.cfg.max_total_bytes, 256ull << 20);
	ck_assert_uint_eq(r.cfg.diagnose_states.size(), 9); // the defaults, REQUEUED included
	ck_assert_str_eq(r.cfg.report_dir.c_str(), "/ok");
	// Errors name the file and line.
	ck_assert(r.errors[0].find("b.yaml:1: deadline_s") != std::string::npos);
}
END_TEST

START_TEST(config_file_not_regular)
{
	config_result r = config_load("/tmp");
	ck_assert(!r.errors.empty());
	ck_assert_uint_eq(r.cfg.deadline_s, 60);
}
END_TEST

START_TEST(config_shipped_file_parses)
{
	config_result r = config_load(TEST_CONFDIR "/denpex.yaml");
	for (auto &e : r.errors)
		fprintf(stderr, "%s\n", e.c_str());
	ck_assert(r.file_found);
	ck_assert(r.errors.empty());
}
END_TEST

// ---------------------------------------------------------------- expand

START_TEST(expand_patterns)
{
	expand_vars v;
	v.job_id = "123";
	v.user = "alice";
	v.job_name = "train";
	v.node = "node1";
	v.array_job = "120";
	v.array_task = "3";
	CK_STR_EQ(expand_pattern("/d/out-%j.txt", v), "/d/out-123.txt");
	CK_STR_EQ(expand_pattern("%x_%u_%N_%A_%a_%t_%n_%%", v),
			 "train_alice_node1_120_3_0_0_%");
	CK_STR_EQ(expand_pattern("slurm-%8j.out", v), "slurm-00000123.out");
	CK_STR_EQ(expand_pattern("%5x", v), "train");
	CK_STR_EQ(expand_pattern("a%qb%", v), "a%qb%");
	CK_STR_EQ(expand_pattern("/d/out\\%j", v), "/d/out%j");
	CK_STR_EQ(resolve_path("out.txt", "/home/a"), "/home/a/out.txt");
	CK_STR_EQ(resolve_path("/abs", "/home/a"), "/abs");
}
END_TEST

// ---------------------------------------------------------------- comment

START_TEST(comment_strip_and_cap)
{
	std::string s = comment_sanitize("denpex: cuda_oom\x1b[31m rank 3\n on\tnode1:\x7f x | y", 200);
	ck_assert_str_eq(s.c_str(), "denpex: cuda_oom[31m rank 3 on node1: x / y");
	std::string c1 = "a\xc2\x85" "b"; // C1 control NEL
	CK_STR_EQ(comment_sanitize(c1, 100), "ab");
	CK_STR_EQ(comment_sanitize("a\xff\xfe" "b", 100), "ab");
	std::string utf = "r\xc3\xa9sum\xc3\xa9";
	CK_STR_EQ(comment_sanitize(utf, 100), utf);
	// Never cut inside a UTF-8 sequence.
	CK_STR_EQ(comment_sanitize(utf, 2), "r");
	std::string longs(1000, 'x');
	ck_assert_uint_eq(comment_sanitize(longs, 250).size(), 250);
}
END_TEST

START_TEST(comment_verdict_keeps_action)
{
	std::string line = "denpex: collective_hang rank 1 on node1: " + std::string(400, 'c') +
			   " -> investigate";
	std::string v = comment_verdict(line, 120);
	ck_assert_uint_le(v.size(), 120);
	ck_assert(v.rfind("denpex: collective_hang rank 1 on node1: ", 0) == 0);
	const std::string tail = "c... -> investigate";
	ck_assert(v.compare(v.size() - tail.size(), tail.size(), tail) == 0);
	CK_STR_EQ(comment_verdict("denpex: time_limit: hit -> raise_time_limit\n", 120),
		  "denpex: time_limit: hit -> raise_time_limit");
	// No arrow: plain cut.
	ck_assert_uint_eq(comment_verdict(std::string(300, 'x'), 100).size(), 100);
}
END_TEST

START_TEST(comment_append_idempotent)
{
	std::string v = "denpex: cuda_oom rank 3 on node1: OOM -> reduce_memory";
	auto a = comment_compose("", v);
	ck_assert(a.has_value());
	CK_STR_EQ(a->c_str(), v);
	auto b = comment_compose("my run 7", v);
	ck_assert(b.has_value());
	CK_STR_EQ(b->c_str(), ("my run 7; " + v));
	ck_assert(!comment_compose(*b, v).has_value());
	ck_assert(!comment_compose(std::string(comment_field_max, 'u'), v).has_value());
	// A second, different verdict for the same job (a rerun by hand with
	// less evidence) is not added.
	ck_assert(!comment_compose(*b, "denpex: unknown: no cause -> investigate").has_value());
	ck_assert(!comment_compose(v, "denpex: unknown: no cause -> investigate").has_value());
	ck_assert(!comment_compose("x", "").has_value());
}
END_TEST

// ---------------------------------------------------------------- safe_read

START_TEST(safe_read_copies_regular_file)
{
	std::string d = make_tmpdir(), st = make_tmpdir();
	chmod(st.c_str(), 0700);
	put(d + "/log", "hello\nworld\n");
	uint64_t budget = 1 << 20;
	read_limits lim;
	lim.budget = &budget;
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	safe_copy_file(d + "/log", test_cred(), lim, sfd, "job/stdout", rep);
	ck_assert_uint_eq(rep.files.size(), 1);
	CK_STR_EQ(slurp(st + "/job/stdout"), "hello\nworld\n");
	struct stat sb;
	ck_assert_int_eq(stat((st + "/job/stdout").c_str(), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert_uint_eq(budget, (1 << 20) - 12);
	// A second copy to the same name is refused, the first kept.
	copy_report rep2;
	safe_copy_file(d + "/log", test_cred(), lim, sfd, "job/stdout", rep2);
	ck_assert(any_contains(rep2, "log", "already collected"));
	close(sfd);
}
END_TEST

START_TEST(safe_read_refuses_symlink_to_root_only)
{
	if (geteuid() != 0)
		return; // needs root to drop privileges
	std::string d = make_tmpdir(), st = make_tmpdir();
	chmod(st.c_str(), 0700);
	std::string secret = d + "/secret";
	put(secret, "ROOTONLY-SECRET\n", 0600);
	ck_assert_int_eq(symlink(secret.c_str(), (d + "/out").c_str()), 0);
	ck_assert_int_eq(symlink("/etc/shadow", (d + "/shadow").c_str()), 0);
	uint64_t budget = 1 << 20;
	read_limits lim;
	lim.budget = &budget;
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	safe_copy_file(d + "/out", test_cred(), lim, sfd, "a", rep);
	safe_copy_file(d + "/shadow", test_cred(), lim, sfd, "b", rep);
	// Even without a symlink, the user cannot read root's file.
	safe_copy_file(secret, test_cred(), lim, sfd, "c", rep);
	ck_assert_uint_eq(rep.files.size(), 0);
	ck_assert(any_contains(rep, "out", "symbolic link"));
	ck_assert(any_contains(rep, "secret", "denied"));
	ck_assert(!exists(st + "/a") && !exists(st + "/b") && !exists(st + "/c"));
	// A symlinked directory in a tree is not followed either.
	std::string tree = d + "/tree";
	mkdir(tree.c_str(), 0755);
	put(tree + "/ok.log", "fine\n");
	ck_assert_int_eq(symlink("/root", (tree + "/rootdir").c_str()), 0);
	ck_assert_int_eq(symlink(secret.c_str(), (tree + "/s").c_str()), 0);
	copy_report rep2;
	safe_copy_tree(tree, test_cred(), lim, sfd, "spool", rep2);
	ck_assert_uint_eq(rep2.files.size(), 1);
	CK_STR_EQ(slurp(st + "/spool/ok.log"), "fine\n");
	ck_assert(any_contains(rep2, "rootdir", "symbolic link"));
	ck_assert(any_contains(rep2, "/s", "symbolic link"));
	close(sfd);
}
END_TEST

START_TEST(safe_read_refuses_fifo_dir_device)
{
	std::string d = make_tmpdir(), st = make_tmpdir();
	chmod(st.c_str(), 0700);
	ck_assert_int_eq(mkfifo((d + "/fifo").c_str(), 0666), 0);
	mkdir((d + "/dir").c_str(), 0755);
	uint64_t budget = 1 << 20;
	read_limits lim;
	lim.budget = &budget;
	lim.timeout_s = 5;
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	struct timeval a, b;
	gettimeofday(&a, nullptr);
	safe_copy_file(d + "/fifo", test_cred(), lim, sfd, "f", rep);
	safe_copy_file(d + "/dir", test_cred(), lim, sfd, "g", rep);
	safe_copy_file("/dev/zero", test_cred(), lim, sfd, "h", rep);
	safe_copy_file(d + "/missing", test_cred(), lim, sfd, "i", rep);
	gettimeofday(&b, nullptr);
	ck_assert_int_lt(b.tv_sec - a.tv_sec, 3); // no hang on the FIFO
	ck_assert_uint_eq(rep.files.size(), 0);
	ck_assert(any_contains(rep, "fifo", "FIFO"));
	ck_assert(any_contains(rep, "dir", "directory"));
	ck_assert(any_contains(rep, "/dev/zero", "not a regular file"));
	ck_assert(any_contains(rep, "missing", "No such file"));
	// A tree holding a FIFO (the plugin's pipe/ dir) skips it and goes on.
	put(d + "/dir/a.log", "a\n");
	ck_assert_int_eq(mkfifo((d + "/dir/pipe").c_str(), 0666), 0);
	copy_report rep2;
	safe_copy_tree(d + "/dir", test_cred(), lim, sfd, "t", rep2);
	ck_assert_uint_eq(rep2.files.size(), 1);
	ck_assert(any_contains(rep2, "pipe", "FIFO"));
	close(sfd);
}
END_TEST

START_TEST(safe_read_caps_size_head_and_tail)
{
	std::string d = make_tmpdir(), st = make_tmpdir();
	chmod(st.c_str(), 0700);
	// A 5 GB sparse file: only head and tail are read, quickly.
	std::string big = d + "/big.log";
	int fd = open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "HEAD-LINE\n", 10), 10);
	ck_assert_int_eq(ftruncate(fd, 5ll << 30), 0);
	ck_assert_int_eq(pwrite(fd, "TAIL-LINE\n", 10, (5ll << 30) - 10), 10);
	close(fd);
	uint64_t budget = 1 << 30;
	read_limits lim;
	lim.budget = &budget;
	lim.max_bytes_per_file = 64 * 1024;
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	struct timeval a, b;
	gettimeofday(&a, nullptr);
	safe_copy_file(big, test_cred(), lim, sfd, "big", rep);
	gettimeofday(&b, nullptr);
	ck_assert_int_lt(b.tv_sec - a.tv_sec, 3);
	ck_assert_uint_eq(rep.files.size(), 1);
	ck_assert(rep.files[0].truncated);
	std::string got = slurp(st + "/big");
	ck_assert_uint_le(got.size(), 64 * 1024 + 128);
	ck_assert(got.compare(0, 10, "HEAD-LINE\n") == 0);
	ck_assert(got.size() >= 10 && got.compare(got.size() - 10, 10, "TAIL-LINE\n") == 0);
	ck_assert(got.find("bytes omitted]") != std::string::npos);
	unlink(big.c_str());
	// The total budget stops further copies.
	budget = 5;
	copy_report rep2;
	put(d + "/small", "0123456789");
	safe_copy_file(d + "/small", test_cred(), lim, sfd, "small", rep2);
	ck_assert_uint_eq(budget, 0);
	CK_STR_EQ(slurp(st + "/small"), "01234");
	copy_report rep3;
	safe_copy_file(d + "/small", test_cred(), lim, sfd, "small2", rep3);
	ck_assert(any_contains(rep3, "small", "total byte cap"));
	close(sfd);
}
END_TEST

START_TEST(safe_read_tree_names_stay_inside)
{
	std::string d = make_tmpdir(), st = make_tmpdir();
	chmod(st.c_str(), 0700);
	mkdir((d + "/nccl").c_str(), 0755);
	put(d + "/nccl/nccl.node1.42.log", "x\n");
	put(d + "/..hidden", "y\n");
	uint64_t budget = 1 << 20;
	read_limits lim;
	lim.budget = &budget;
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	safe_copy_tree(d, test_cred(), lim, sfd, "spool", rep);
	ck_assert_uint_eq(rep.files.size(), 2);
	ck_assert(exists(st + "/spool/nccl/nccl.node1.42.log"));
	ck_assert(exists(st + "/spool/..hidden"));
	// A vanished or symlinked spool dir is reported, not fatal.
	copy_report rep2;
	safe_copy_tree(d + "/gone", test_cred(), lim, sfd, "spool2", rep2);
	ck_assert_uint_eq(rep2.files.size(), 0);
	ck_assert_uint_eq(rep2.skipped.size(), 1);
	ck_assert_int_eq(symlink(d.c_str(), (d + "/link").c_str()), 0);
	copy_report rep3;
	safe_copy_tree(d + "/link", test_cred(), lim, sfd, "spool3", rep3);
	ck_assert_uint_eq(rep3.files.size(), 0);
	ck_assert(!safe_component("..") && !safe_component("") && !safe_component("a/b") &&
		  safe_component("..x"));
	close(sfd);
}
END_TEST

// ---------------------------------------------------------------- report

START_TEST(report_atomic_private)
{
	std::string d = make_tmpdir() + "/reports/sub";
	std::string err;
	ck_assert_msg(ensure_private_dir(d, 0750, err), "%s", err.c_str());
	ck_assert(write_atomic(d, "7.json", "{}\n", 0640, err));
	ck_assert(write_atomic(d, "7.json", "{\"a\":1}\n", 0640, err));
	CK_STR_EQ(slurp(d + "/7.json"), "{\"a\":1}\n");
	struct stat sb;
	ck_assert_int_eq(stat((d + "/7.json").c_str(), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0640);
	// No temp files left behind.
	ck_assert(!exists(d + "/.7.json"));
	// A world-writable or symlinked report dir is refused.
	std::string w = make_tmpdir();
	chmod(w.c_str(), 0777);
	ck_assert(!ensure_private_dir(w, 0750, err));
	std::string l = make_tmpdir() + "/l";
	ck_assert_int_eq(symlink(d.c_str(), l.c_str()), 0);
	ck_assert(!ensure_private_dir(l, 0750, err));
}
END_TEST

// ---------------------------------------------------------------- kmsg

START_TEST(kmsg_record_format)
{
	// boot at epoch 1000; record at 5.5 s after boot.
	std::string l = kmsg_format("3,812,5500000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n SUBSYSTEM=pci\n",
				    1000.0, 1000, 2000, "node1");
	ck_assert_str_eq(l.c_str(), "1970-01-01T00:16:45.500000+0000 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n");
	ck_assert(kmsg_format("3,1,1000000,-;early\n", 1000.0, 1500, 2000, "n").empty());
	ck_assert(kmsg_format("garbage", 1000.0, 0, 2000, "n").empty());
}
END_TEST

// The task's OOM kill at 100000.7 s (boot at 0), the epilog just after, at
// 100000.75 s, on a node clock moved by 3 h less or more a fraction: the
// window ends after the kill, and not much later (a move truncated to whole
// seconds once ended it at 99999 for -10799.95 s).
START_TEST(kmsg_window_end_keeps_the_last_second)
{
	const char *kill = "3,9,100000700000,-;Out of memory: Killed process 77 (python3)\n";
	for (double moved : {-10799.95, -10799.6, -10800.2, 10800.4, 10799.8, 0.0}) {
		time_t now = static_cast<time_t>(100000.75 + moved); // time(): whole seconds
		time_t end = kmsg_window_end(now, moved);
		ck_assert_msg(!kmsg_format(kill, 0.0, 99000, end, "n").empty(), "moved %.2f: window ends at %lld",
			      moved, static_cast<long long>(end));
		ck_assert_int_le(end, 100003);
	}
}
END_TEST

// ---------------------------------------------------------------- trust

START_TEST(kernel_lines_attributed_to_the_job_only)
{
	job_scope j;
	j.job_id = 42;
	j.uid = 1000;
	j.pids = {4242};
	j.gpu_buses = {"0000:3b:00"};
	j.start = 5000;
	// The job's own cgroup, pid, uid or GPU.
	ck_assert(kernel_line_is_jobs("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
				      "oom_memcg=/slurm/uid_1000/job_42,task_memcg=/slurm/uid_1000/job_42/step_0,"
				      "task=python,pid=777,uid=1000", 4000, j));
	ck_assert(kernel_line_is_jobs("Memory cgroup out of memory: Killed process 4242 (python) total-vm:1kB", 5001, j));
	ck_assert(kernel_line_is_jobs("Out of memory: Killed process 9 (x) total-vm:1kB, UID:1000 pgtables:1kB", 5001, j));
	ck_assert(kernel_line_is_jobs("NVRM: Xid (PCI:0000:3B:00): 79, pid=1, GPU has fallen off the bus.", 4000, j));
	// Another job's cgroup, another GPU, root, an unknown pid: not the job's.
	ck_assert(!kernel_line_is_jobs("oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/slurm/uid_1000/job_41,"
				       "task_memcg=/slurm/uid_1000/job_41/step_0,task=python,pid=4242,uid=1000", 5001, j));
	ck_assert(!kernel_line_is_jobs("NVRM: Xid (PCI:0000:86:00): 79, pid=4242, GPU has fallen off the bus.", 5001, j));
	ck_assert(!kernel_line_is_jobs("Memory cgroup out of memory: Killed process 18502 (secret) total-vm:1kB, UID:0 "
				       "pgtables:1kB", 5001, j));
	ck_assert(!kernel_line_is_jobs("Mem-Info:", 5001, j));
	// The user's earlier job (same uid, before this one started) is not this one.
	ck_assert(!kernel_line_is_jobs("Memory cgroup out of memory: Killed process 9 (python) UID:1000", 4990, j));
	// No GPU list from Slurm: a GPU line is the job's only when it had the node alone.
	job_scope k;
	k.job_id = 43;
	k.uid = 1000;
	k.start = 5000;
	const char *xid = "NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
	ck_assert(!kernel_line_is_jobs(xid, 5001, k));
	k.node_exclusive = true;
	ck_assert(kernel_line_is_jobs(xid, 5001, k));
	ck_assert(!kernel_line_is_jobs(xid, 4990, k));
	CK_STR_EQ(normalize_bus_id("00000000:3B:00.0"), "0000:3b:00");
	CK_STR_EQ(normalize_bus_id("3b:00.1"), "0000:3b:00");
	ck_assert(normalize_bus_id("has").empty());
	// The driver's information files map minor numbers to bus ids.
	std::string d = make_tmpdir();
	ck_assert_int_eq(mkdir((d + "/0000:3b:00.0").c_str(), 0755), 0);
	FILE *f = fopen((d + "/0000:3b:00.0/information").c_str(), "w");
	fputs("Model: \t\t X\nBus Location: \t 0000:3b:00.0\nDevice Minor: \t 2\n", f);
	fclose(f);
	std::vector<std::string> b = gpu_buses_of(d, "2");
	ck_assert_int_eq(b.size(), 1);
	CK_STR_EQ(b[0], "0000:3b:00");
	ck_assert(gpu_buses_of(d, "0,1").empty());
}
END_TEST

START_TEST(own_files_are_listed_and_read_without_following_links)
{
	std::string d = make_tmpdir();
	int dfd = open(d.c_str(), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	for (const char *n : {"a", "b", ".hidden"}) {
		FILE *f = fopen((d + "/" + n).c_str(), "w");
		fputs("0123456789", f);
		fclose(f);
	}
	ck_assert_int_eq(mkdir((d + "/sub").c_str(), 0700), 0);
	ck_assert_int_eq(symlink("/etc/passwd", (d + "/link").c_str()), 0);
	ck_assert_int_eq(symlink(d.c_str(), (d + "/dirlink").c_str()), 0);
	ck_assert_int_eq(mkfifo((d + "/fifo").c_str(), 0600), 0);
	// Every name but . and .., once each; hidden ones on request; bounded.
	ck_assert_int_eq(dir_names(dfd, "", 100).size(), 7);
	ck_assert_int_eq(dir_names(dfd, "", 100, false).size(), 6);
	ck_assert_int_eq(dir_names(dfd, "", 3).size(), 3);
	ck_assert_int_eq(dir_names(dfd, "", 100).size(), 7); // the caller's fd is not used up
	ck_assert(dir_names(dfd, "sub", 100).empty());
	ck_assert(dir_names(dfd, "dirlink", 100).empty()); // a link to a directory is not one
	ck_assert(dir_names(dfd, "missing", 100).empty());
	// Bounded reads; a link is never followed; a FIFO never blocks.
	auto regular = [](const struct stat &st) { return S_ISREG(st.st_mode); };
	DIAG_CK_STR_EQ(*read_own_file(dfd, "a", 4), "0123");
	DIAG_CK_STR_EQ(*read_own_file(dfd, "b", 100, regular), "0123456789");
	ck_assert(!read_own_file(dfd, "link", 100));
	ck_assert(!read_own_file(dfd, "fifo", 100, regular));
	ck_assert(!read_own_file(dfd, "sub", 100, regular));
	ck_assert(!read_own_file(dfd, "missing", 100));
	close(dfd);
	std::string cmd = "rm -rf " + d;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(spool_dir_needs_the_plugins_marker)
{
	if (geteuid() != 0)
		return; // markers are root's
	std::string spool = make_tmpdir();
	std::string jd = spool + "/42";
	ck_assert_int_eq(mkdir(jd.c_str(), 0750), 0);
	ck_assert_int_eq(chown(jd.c_str(), 1000, 1000), 0);
	struct stat st;
	ck_assert_int_eq(stat(jd.c_str(), &st), 0);
	// No marker: not read.
	spool_check c = check_job_spool(spool, 42, 1000, 0, 100, "node1");
	ck_assert(!c.ok);
	// A marker the user wrote (not root's): not read.
	std::string m = jd + "/.denpex-node.node1";
	std::string line = "denpex-spool 1 job=42 uid=1000 restart=0 ino=" + std::to_string(st.st_ino) +
			   " time_ns=200000000000 mono_ns=50000000000\npid=4242 step=0 task=1\n";
	FILE *f = fopen(m.c_str(), "w");
	fputs(line.c_str(), f);
	fclose(f);
	ck_assert_int_eq(chown(m.c_str(), 1000, 1000), 0);
	c = check_job_spool(spool, 42, 1000, 0, 100, "node1");
	ck_assert(!c.ok);
	// Root's: read, with the task pids.
	ck_assert_int_eq(chown(m.c_str(), 0, 0), 0);
	c = check_job_spool(spool, 42, 1000, 0, 100, "node1");
	ck_assert_msg(c.ok, "%s", c.why.c_str());
	ck_assert_int_eq(c.pids.size(), 1);
	ck_assert_int_eq(c.pids[0], 4242);
	ck_assert(!c.other_nodes);
	// Boot was at 150 s on the clock of the job's start (200 s, 50 s after boot).
	ck_assert_double_eq_tol(c.boot_epoch_at_start, 150.0, 1e-6);
	// Another user, another run (requeue), or made before the job started.
	ck_assert(!check_job_spool(spool, 42, 1001, 0, 100, "node1").ok);
	ck_assert(!check_job_spool(spool, 42, 1000, 1, 100, "node1").ok);
	ck_assert(!check_job_spool(spool, 42, 1000, 0, 300, "node1").ok);
	// A marker moved in from another directory (its inode differs).
	ck_assert_int_eq(rename(jd.c_str(), (spool + "/43").c_str()), 0);
	ck_assert_int_eq(mkdir(jd.c_str(), 0750), 0);
	ck_assert_int_eq(chown(jd.c_str(), 1000, 1000), 0);
	ck_assert_int_eq(rename((spool + "/43/.denpex-node.node1").c_str(), m.c_str()), 0);
	ck_assert(!check_job_spool(spool, 42, 1000, 0, 100, "node1").ok);
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(planted_state_dir_is_replaced)
{
	if (geteuid() != 0)
		return;
	std::string parent = make_tmpdir();
	chmod(parent.c_str(), 01777);
	std::string target = make_tmpdir();
	std::string err;
	// A user's directory where ours goes, or a symlink: removed, made afresh.
	std::string sd = parent + "/.epilog";
	ck_assert_int_eq(mkdir(sd.c_str(), 0777), 0);
	ck_assert_int_eq(chown(sd.c_str(), 1000, 1000), 0);
	ck_assert_msg(ensure_private_dir(sd, 0700, err), "%s", err.c_str());
	struct stat st;
	ck_assert_int_eq(lstat(sd.c_str(), &st), 0);
	ck_assert_int_eq(st.st_uid, 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(rmdir(sd.c_str()), 0);
	ck_assert_int_eq(symlink(target.c_str(), sd.c_str()), 0);
	ck_assert_msg(ensure_private_dir(sd, 0700, err), "%s", err.c_str());
	ck_assert_int_eq(lstat(sd.c_str(), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert(exists(target));
	std::string cmd = "rm -rf " + parent + " " + target;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(safe_read_counts_the_cut_lines)
{
	std::string d = make_tmpdir(), st = make_tmpdir();
	std::string f = d + "/long.log";
	FILE *fp = fopen(f.c_str(), "w");
	for (int i = 1; i <= 3000; i++)
		fprintf(fp, "line %d\n", i);
	fclose(fp);
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	uint64_t budget = 1 << 20;
	read_limits lim;
	lim.max_bytes_per_file = 4096;
	lim.budget = &budget;
	safe_copy_file(f, cred_for_job(getuid(), getgid()), lim, sfd, "copy", rep);
	close(sfd);
	ck_assert_int_eq(rep.files.size(), 1);
	const copied_file &c = rep.files[0];
	ck_assert(c.truncated);
	ck_assert_int_ge(c.head_lines, 100);
	ck_assert_int_ge(c.omitted_lines, 2000);
	// Every whole line of the copy's tail maps back to its own number.
	std::string copy = slurp(st + "/copy");
	int64_t lineno = 0, checked = 0;
	size_t p = 0;
	bool first_tail = true;
	while (p < copy.size()) {
		size_t e = copy.find('\n', p);
		std::string l = copy.substr(p, e == std::string::npos ? std::string::npos : e - p);
		lineno++;
		p = e == std::string::npos ? copy.size() : e + 1;
		if (lineno <= c.head_lines + 2)
			continue;
		if (first_tail) { // starts mid-line
			first_tail = false;
			continue;
		}
		int n = 0;
		if (sscanf(l.c_str(), "line %d", &n) == 1) {
			ck_assert_int_eq(lineno + c.omitted_lines - 2, n);
			checked++;
		}
	}
	ck_assert_int_gt(checked, 100);
}
END_TEST

START_TEST(safe_read_skips_holes)
{
	std::string d = make_tmpdir(), st = make_tmpdir();
	std::string f = d + "/sparse.log";
	int fd = open(f.c_str(), O_CREAT | O_WRONLY, 0644);
	ck_assert_int_eq(write(fd, "KeyError: 'x'\n", 14), 14);
	ck_assert_int_eq(ftruncate(fd, 16 << 20), 0);
	close(fd);
	int sfd = open(st.c_str(), O_RDONLY | O_DIRECTORY);
	copy_report rep;
	uint64_t budget = 64 << 20;
	read_limits lim;
	lim.max_bytes_per_file = 32 << 20;
	lim.budget = &budget;
	safe_copy_file(f, cred_for_job(getuid(), getgid()), lim, sfd, "copy", rep);
	close(sfd);
	ck_assert_int_eq(rep.files.size(), 1);
	ck_assert_uint_lt(rep.files[0].bytes, 4096);
	std::string c = slurp(st + "/copy");
	ck_assert(c.rfind("KeyError: 'x'\n", 0) == 0);
	ck_assert(c.find("omitted") != std::string::npos);
}
END_TEST

// A worker's answer by field names: any bytes survive, garbage is refused.
START_TEST(worker_record_round_trip)
{
	std::string all;
	for (int c = 0; c < 256; c++)
		all += static_cast<char>(c);
	worker_record r;
	r.put("bytes", all);
	r.put("empty", "");
	r.put("colon:name", "12:34");
	r.put_int("neg", -42);
	r.put_bool("yes", true);
	auto d = worker_record::decode(r.encode());
	ck_assert(d.has_value());
	ck_assert(d->str("bytes") == all);
	ck_assert(d->has("empty") && d->str("empty").empty());
	std::string colon = d->str("colon:name"); // the macro keeps the pointer: no temporary
	ck_assert_str_eq(colon.c_str(), "12:34");
	ck_assert_int_eq(d->int_of("neg"), -42);
	ck_assert(d->bool_of("yes"));
	ck_assert(!d->has("absent") && d->int_of("absent") == 0);
	for (const char *bad : {"5:abc", "3:abc9:x", "x:abc1:y", "3:abc", "99999999999999:a", "-1:a1:b"})
		ck_assert_msg(!worker_record::decode(bad).has_value(), "accepted %s", bad);
	ck_assert(worker_record::decode("").has_value());
}
END_TEST

START_TEST(job_info_round_trip)
{
	job_info j;
	j.state = "FAILED";
	j.reason = "NonZeroExitCode";
	j.exit_code = 256;
	j.derived_ec = 9;
	j.comment = std::string("user \xff\xfe note; with | and \n");
	j.admin_comment = "adm";
	j.std_out = "/o/%j.out";
	j.std_err = "/e";
	j.work_dir = "/w";
	j.name = "n";
	j.batch_host = "node1";
	j.nodes = "node[1-2]";
	j.start = 1700000000;
	j.end = 1700000100;
	j.array_job_id = 7;
	j.array_task_id = 3;
	j.restart_cnt = 2;
	j.uid = 1234;
	j.gid = 5678;
	j.exclusive = true;
	job_info k;
	std::string err;
	ck_assert(decode_job_info(encode_job_info(j), k, err));
	ck_assert(k.loaded);
	ck_assert(k.state == j.state && k.reason == j.reason && k.comment == j.comment);
	ck_assert(k.admin_comment == j.admin_comment && k.std_out == j.std_out && k.std_err == j.std_err);
	ck_assert(k.work_dir == j.work_dir && k.name == j.name && k.batch_host == j.batch_host && k.nodes == j.nodes);
	ck_assert(k.exit_code == 256 && k.derived_ec == 9 && k.start == j.start && k.end == j.end);
	ck_assert(k.array_job_id == 7 && k.array_task_id == 3 && k.restart_cnt == 2);
	ck_assert(k.uid == 1234 && k.gid == 5678 && k.exclusive);
	worker_record e;
	e.put_bool("loaded", false);
	e.put("error", "Invalid job id specified");
	job_info none;
	ck_assert(!decode_job_info(e.encode(), none, err));
	ck_assert_str_eq(err.c_str(), "Invalid job id specified");
	ck_assert(!none.loaded);
	ck_assert(!decode_job_info("garbage", none, err));
}
END_TEST

// The one bounded pipe reader: EOF, a byte cap, a deadline, a stop.
START_TEST(pipe_reader_is_bounded)
{
	int p[2];
	ck_assert(pipe(p) == 0);
	pid_t w = fork();
	if (w == 0) {
		close(p[0]);
		std::string chunk(4096, 'x');
		for (;;)
			if (write(p[1], chunk.data(), chunk.size()) < 0)
				_exit(0);
	}
	close(p[1]);
	std::string out;
	double t = mono_now();
	ck_assert(!read_pipe_bounded(p[0], mono_now() + 0.5, 10000, out));
	ck_assert_uint_eq(out.size(), 10000);
	ck_assert(mono_now() - t < 3);
	close(p[0]);
	int st;
	ck_assert(reap_child(w, true, 2, &st));

	ck_assert(pipe(p) == 0);
	w = fork();
	if (w == 0) {
		close(p[0]);
		ck_assert(write(p[1], "0123456789", 10) == 10);
		_exit(0);
	}
	close(p[1]);
	out.clear();
	ck_assert(read_pipe_bounded(p[0], mono_now() + 5, 1 << 20, out));
	ck_assert_str_eq(out.c_str(), "0123456789");
	close(p[0]);
	ck_assert(reap_child(w, false, 2, &st) && WIFEXITED(st));

	// A hung worker costs its timeout, then it is killed.
	t = mono_now();
	auto r = run_bounded(0.5, []() {
		sleep(30);
		return std::string("late");
	});
	ck_assert(!r.has_value());
	ck_assert(mono_now() - t < 3);
	ck_assert(run_bounded(5, []() { return std::string("fine"); }).value() == "fine");
	ck_assert(!run_bounded(5, []() -> std::string { throw 1; }).has_value());

	// A stop request ends every wait at once.
	request_stop();
	t = mono_now();
	ck_assert(!run_bounded(20, []() {
			   sleep(30);
			   return std::string("late");
		   }).has_value());
	ck_assert(mono_now() - t < 3);
}
END_TEST

// denpex.yaml through libdiag's loader: entries in order, lines, lists.
START_TEST(conf_parse_flat_mapping)
{
	const char *y = "a: 1\nlist: [x, \"y z\"]\nempty:\nb: two\n";
	denpex_conf_entry *e = nullptr;
	size_t n = 0;
	char *err = nullptr;
	ck_assert_int_eq(denpex_conf_parse(y, strlen(y), "t.yaml", &e, &n, &err), DENPEX_OK);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(e[0].key, "a");
	ck_assert_str_eq(e[0].value, "1");
	ck_assert_int_eq(e[0].line, 1);
	ck_assert(e[1].value == nullptr && e[1].nitems == 2);
	ck_assert_str_eq(e[1].items[1], "y z");
	ck_assert_str_eq(e[2].value, "");
	ck_assert_str_eq(e[3].value, "two");
	ck_assert_int_eq(e[3].line, 4);
	denpex_free(e);
	const char *bad = "a: 1\nb:\n  c: 2\n";
	ck_assert_int_eq(denpex_conf_parse(bad, strlen(bad), "b.yaml", &e, &n, &err), DENPEX_ERR_INPUT);
	ck_assert_msg(err && strstr(err, "b.yaml:3"), "%s", err ? err : "(null)");
	denpex_free(err);
	ck_assert_int_eq(denpex_conf_parse("", 0, "e.yaml", &e, &n, nullptr), DENPEX_OK);
	ck_assert_uint_eq(n, 0);
	denpex_free(e);
	// An ordinary alias is read as its copy.
	const char *alias = "a: &v [x, y]\nb: *v\n";
	ck_assert_int_eq(denpex_conf_parse(alias, strlen(alias), "a.yaml", &e, &n, nullptr), DENPEX_OK);
	ck_assert(n == 2 && e[1].nitems == 2);
	denpex_free(e);
}
END_TEST

// Nested aliases ("billion laughs": 10 levels of 10 copies, 10^10 nodes
// once expanded) are refused, not expanded until memory runs out.
START_TEST(conf_parse_refuses_alias_bombs)
{
	std::string y = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
	for (int i = 1; i < 10; i++) {
		std::string prev = "*l" + std::to_string(i - 1);
		y += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
		for (int k = 0; k < 10; k++)
			y += (k ? ", " : "") + prev;
		y += "]\n";
	}
	denpex_conf_entry *e = nullptr;
	size_t n = 0;
	char *err = nullptr;
	ck_assert_int_eq(denpex_conf_parse(y.data(), y.size(), "bomb.yaml", &e, &n, &err), DENPEX_ERR_INPUT);
	ck_assert_msg(err && strstr(err, "too many nodes"), "%s", err ? err : "(null)");
	denpex_free(err);
}
END_TEST

int main()
{
	Suite *s = suite_create("epilog");
	TCase *tc;
	tc = tcase_create("config");
	tcase_add_test(tc, config_defaults_when_missing);
	tcase_add_test(tc, config_parses_every_key);
	tcase_add_test(tc, config_garbage_gives_defaults);
	tcase_add_test(tc, config_metrics_and_dcgm_keys);
	tcase_add_test(tc, run_tool_is_bounded_and_picky);
	tcase_add_test(tc, worker_record_round_trip);
	tcase_add_test(tc, job_info_round_trip);
	tcase_add_test(tc, pipe_reader_is_bounded);
	tcase_add_test(tc, conf_parse_flat_mapping);
	tcase_add_test(tc, conf_parse_refuses_alias_bombs);
	tcase_add_test(tc, config_bad_values_keep_defaults);
	tcase_add_test(tc, config_file_not_regular);
	tcase_add_test(tc, config_shipped_file_parses);
	suite_add_tcase(s, tc);
	tc = tcase_create("expand");
	tcase_add_test(tc, expand_patterns);
	suite_add_tcase(s, tc);
	tc = tcase_create("comment");
	tcase_add_test(tc, comment_strip_and_cap);
	tcase_add_test(tc, comment_verdict_keeps_action);
	tcase_add_test(tc, comment_append_idempotent);
	suite_add_tcase(s, tc);
	tc = tcase_create("safe_read");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, safe_read_copies_regular_file);
	tcase_add_test(tc, safe_read_refuses_symlink_to_root_only);
	tcase_add_test(tc, safe_read_refuses_fifo_dir_device);
	tcase_add_test(tc, safe_read_caps_size_head_and_tail);
	tcase_add_test(tc, safe_read_tree_names_stay_inside);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, report_atomic_private);
	suite_add_tcase(s, tc);
	tc = tcase_create("kmsg");
	tcase_add_test(tc, kmsg_record_format);
	tcase_add_test(tc, kmsg_window_end_keeps_the_last_second);
	tcase_add_test(tc, kernel_lines_attributed_to_the_job_only);
	tcase_add_test(tc, own_files_are_listed_and_read_without_following_links);
	tcase_add_test(tc, spool_dir_needs_the_plugins_marker);
	tcase_add_test(tc, planted_state_dir_is_replaced);
	tcase_add_test(tc, safe_read_skips_holes);
	tcase_add_test(tc, safe_read_counts_the_cut_lines);
	suite_add_tcase(s, tc);
	return diag_ck_run(s);
}
