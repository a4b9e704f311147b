// check_spank.cc - unit tests of spank_denpex.so against tests/spank_stub.c:
// plugstack argument parsing, the --denpex option and $DENPEX, the per-task
// environment decisions (a user's value always wins), the JSON records, the
// spool directory, and whole callback sequences in each context.
// The standard headers come first: check.h defines a macro named fail().
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ck_cxx.hh"
#include "spank_denpex.hh"

extern "C" {
spank_t stub_spank(void);
void stub_reset(void);
void stub_set_context(spank_context_t ctx);
void stub_set_in_task(int in_task);
void stub_set_items_fail(int fail);
void stub_env_set(const char *name, const char *value);
const char *stub_env_get(const char *name);
int stub_env_count(void);
const char *stub_ctl_get(const char *name);
const char *stub_log(void);
int stub_option_cb(const char *name, const char *optarg, int remote);
int stub_option_count(void);
extern uint32_t stub_job_id, stub_step_id, stub_global_id;
extern uid_t stub_uid;
extern gid_t stub_gid;
extern int stub_task_id, stub_exit_status;

int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
int slurm_spank_task_init(spank_t sp, int ac, char **av);
int slurm_spank_task_exit(spank_t sp, int ac, char **av);
int slurm_spank_exit(spank_t sp, int ac, char **av);
}

using namespace denpex;

namespace {

// argv for config_parse / the callbacks, from a list of strings.
struct args {
	std::vector<std::string> a_strings;
	std::vector<char *> a_ptrs;
	args(std::initializer_list<std::string> l) : a_strings(l)
	{
		for (std::string &s : a_strings)
			a_ptrs.push_back(&s[0]);
		a_ptrs.push_back(nullptr);
	}
	int ac() const { return (int)a_strings.size(); }
	char **av() { return a_ptrs.data(); }
};

std::string make_tmpdir()
{
	char tmpl[] = "/tmp/check_spank.XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_msg(d != nullptr, "mkdtemp failed");
	return d;
}

std::string slurp(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

bool exists(const std::string &path)
{
	struct stat st;
	return lstat(path.c_str(), &st) == 0;
}

bool log_has(const char *needle)
{
	return strstr(stub_log(), needle) != nullptr;
}

void setup()
{
	stub_reset();
	stub_uid = getuid();
	stub_gid = getgid();
	options_reset();
}

// Runs init + init_post_opt in the remote context with these plugstack args.
void remote_start(args &a)
{
	stub_set_context(S_CTX_REMOTE);
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
}

} // namespace

// ------------------------------------------------------------ plugstack arguments

START_TEST(test_config_defaults)
{
	plugin_config cfg;
	args a{};
	ck_assert_int_eq(config_parse(&cfg, a.ac(), a.av()), 0);
	ck_assert_str_eq(cfg.pc_spool, "/var/spool/denpex");
	ck_assert_str_eq(cfg.pc_nccl_debug, "INFO");
	ck_assert_str_eq(cfg.pc_nccl_debug_subsys, "INIT,BOOTSTRAP,ENV,NET");
	ck_assert_str_eq(cfg.pc_timestamp_levels, "ALL");
	ck_assert_int_eq(cfg.pc_trace_buffer, 20000);
	ck_assert_int_eq(cfg.pc_default_on, 1);
	ck_assert_int_eq(cfg.pc_timestamps, 1);
	ck_assert_int_eq(cfg.pc_dump_on_timeout, 1);
	ck_assert_int_eq(cfg.pc_dump_pipe, 1);
	ck_assert_int_eq(cfg.pc_error_file, 1);
	ck_assert_int_eq(cfg.pc_rank_map, 1);
	ck_assert_int_eq(cfg.pc_task_exit, 1);
}
END_TEST

START_TEST(test_config_all_keys)
{
	plugin_config cfg;
	args a{"spool=/srv/denpex/", "nccl_debug=warn", "nccl_debug_subsys=^init,coll", "timestamp_levels=WARN",
	       "trace_buffer=0", "default=off", "timestamps=no", "dump_on_timeout=false", "dump_pipe=0",
	       "error_file=off", "rank_map=off", "task_exit=off"};
	ck_assert_int_eq(config_parse(&cfg, a.ac(), a.av()), 0);
	ck_assert_str_eq(cfg.pc_spool, "/srv/denpex");
	ck_assert_str_eq(cfg.pc_nccl_debug, "WARN");
	ck_assert_str_eq(cfg.pc_nccl_debug_subsys, "^INIT,COLL");
	ck_assert_str_eq(cfg.pc_timestamp_levels, "WARN");
	ck_assert_int_eq(cfg.pc_trace_buffer, 0);
	ck_assert_int_eq(cfg.pc_default_on, 0);
	ck_assert_int_eq(cfg.pc_timestamps, 0);
	ck_assert_int_eq(cfg.pc_dump_on_timeout, 0);
	ck_assert_int_eq(cfg.pc_dump_pipe, 0);
	ck_assert_int_eq(cfg.pc_error_file, 0);
	ck_assert_int_eq(cfg.pc_rank_map, 0);
	ck_assert_int_eq(cfg.pc_task_exit, 0);

	args n{"nccl_debug=none", "nccl_debug_subsys=none"};
	ck_assert_int_eq(config_parse(&cfg, n.ac(), n.av()), 0);
	ck_assert_str_eq(cfg.pc_nccl_debug, "");
	ck_assert_str_eq(cfg.pc_nccl_debug_subsys, "");
}
END_TEST

START_TEST(test_config_unknown_key)
{
	setup();
	plugin_config cfg;
	args a{"spool=/tmp", "colour=blue"};
	ck_assert_int_eq(config_parse(&cfg, a.ac(), a.av()), -1);
	ck_assert_msg(log_has("error: denpex: plugstack.conf: bad argument 'colour=blue': unknown key"), "log: %s",
		      stub_log());
}
END_TEST

START_TEST(test_config_bad_values)
{
	const char *bad[] = {"spool=relative/path", "spool=/a/../b", "spool=/a/%j", "nccl_debug=LOUD",
			     "nccl_debug=", "nccl_debug_subsys=INIT;rm", "nccl_debug_subsys=", "trace_buffer=abc",
			     "trace_buffer=-1", "trace_buffer=12x", "trace_buffer=99999999999", "default=maybe",
			     "timestamps=", "dump_on_timeout=2", "novalue", "=on", "timestamp_levels=all levels"};
	for (const char *b : bad) {
		setup();
		plugin_config cfg;
		args a{b};
		ck_assert_msg(config_parse(&cfg, a.ac(), a.av()) == -1, "accepted '%s'", b);
		std::string want = std::string("bad argument '") + b + "'";
		ck_assert_msg(log_has(want.c_str()), "no message naming '%s': %s", b, stub_log());
	}
}
END_TEST

START_TEST(test_onoff)
{
	ck_assert_int_eq(parse_onoff("on"), 1);
	ck_assert_int_eq(parse_onoff("ON"), 1);
	ck_assert_int_eq(parse_onoff("yes"), 1);
	ck_assert_int_eq(parse_onoff("1"), 1);
	ck_assert_int_eq(parse_onoff("off"), 0);
	ck_assert_int_eq(parse_onoff("False"), 0);
	ck_assert_int_eq(parse_onoff("0"), 0);
	ck_assert_int_eq(parse_onoff(""), -1);
	ck_assert_int_eq(parse_onoff("onn"), -1);
	ck_assert_int_eq(parse_onoff(nullptr), -1);
}
END_TEST

// ------------------------------------------------------------ --denpex and $DENPEX

START_TEST(test_option_registered_and_checked)
{
	setup();
	stub_set_context(S_CTX_ALLOCATOR);
	args a{};
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_option_count(), 1);
	ck_assert_int_eq(stub_option_cb("denpex", "maybe", 0), -1);
	ck_assert_msg(log_has("denpex: --denpex=maybe: invalid value, expected on or off"), "log: %s", stub_log());
	ck_assert_int_eq(options_state(), -1);
	ck_assert_int_eq(stub_option_cb("denpex", "off", 0), 0);
	ck_assert_int_eq(options_state(), 0);
	ck_assert_int_eq(stub_option_cb("denpex", "off", 1), 0); // idempotent
	ck_assert_int_eq(options_state(), 0);
	ck_assert_int_eq(stub_option_cb("denpex", "on", 0), 0);
	ck_assert_int_eq(options_state(), 1);
	// slurmd context registers nothing.
	setup();
	stub_set_context(S_CTX_SLURMD);
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_option_count(), 0);
}
END_TEST

START_TEST(test_resolve_enabled)
{
	bool bad = false;
	ck_assert_int_eq(resolve_enabled(-1, nullptr, 1, &bad), 1);
	ck_assert_int_eq(resolve_enabled(-1, nullptr, 0, &bad), 0);
	ck_assert_int_eq(resolve_enabled(-1, "off", 1, &bad), 0);
	ck_assert_int_eq(resolve_enabled(-1, "on", 0, &bad), 1);
	ck_assert_int_eq(resolve_enabled(1, "off", 0, &bad), 1); // the option beats the env
	ck_assert_int_eq(resolve_enabled(0, "on", 1, &bad), 0);
	ck_assert(!bad);
	ck_assert_int_eq(resolve_enabled(-1, "bogus", 1, &bad), 1);
	ck_assert(bad);
	ck_assert_int_eq(resolve_enabled(-1, "", 0, &bad), 0);
	ck_assert(!bad);
}
END_TEST

START_TEST(test_local_handoff)
{
	setup();
	unsetenv("DENPEX");
	stub_set_context(S_CTX_LOCAL);
	args a{"spool=/srv/spool"};
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_str_eq(stub_ctl_get("DENPEX_OPTOUT"), "0");
	ck_assert_str_eq(stub_ctl_get("DENPEX_SPOOL"), "/srv/spool");
	ck_assert_ptr_nonnull(getenv("DENPEX_SRUN_CLOCK_NS"));

	setup();
	stub_set_context(S_CTX_ALLOCATOR);
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_option_cb("denpex", "off", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_str_eq(stub_ctl_get("DENPEX_OPTOUT"), "1");
	ck_assert_ptr_null(stub_ctl_get("DENPEX_SPOOL"));
}
END_TEST

START_TEST(test_local_bad_env_fails_submission)
{
	setup();
	setenv("DENPEX", "bogus", 1);
	stub_set_context(S_CTX_LOCAL);
	args a{};
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), -1);
	ck_assert_msg(log_has("denpex: DENPEX=bogus: invalid value"), "log: %s", stub_log());
	// An explicit --denpex wins over a bad $DENPEX.
	setup();
	stub_set_context(S_CTX_LOCAL);
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_option_cb("denpex", "on", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	// DENPEX=off in the environment opts out.
	setup();
	stub_set_context(S_CTX_LOCAL);
	setenv("DENPEX", "off", 1);
	ck_assert_int_eq(slurm_spank_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_str_eq(stub_ctl_get("DENPEX_OPTOUT"), "1");
	unsetenv("DENPEX");
}
END_TEST

// ------------------------------------------------------------ task environment

static task_ids sample_ids(const std::string &dir)
{
	task_ids ids;
	ids.ti_job = 77;
	ids.ti_step = 0;
	ids.ti_task = 5;
	ids.ti_local_task = 1;
	ids.ti_node_id = 2;
	ids.ti_node = "node3";
	ids.ti_job_dir = dir;
	return ids;
}

START_TEST(test_env_plan_defaults)
{
	setup();
	plugin_config cfg;
	config_defaults(&cfg);
	ck_assert_int_eq(task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("/sp/77"))), 13);
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "INFO");
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_SUBSYS"), "INIT,BOOTSTRAP,ENV,NET");
	// The node name literally (virtual nodes share a host name), NCCL's %p for the pid.
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_FILE"), "/sp/77/nccl/nccl.node3.%p.log");
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_TIMESTAMP_LEVELS"), "ALL");
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_TIMESTAMP_FORMAT"), "[%F %T.%6f] ");
	ck_assert_str_eq(stub_env_get("TORCH_FR_BUFFER_SIZE"), "20000");
	ck_assert_str_eq(stub_env_get("TORCH_NCCL_TRACE_BUFFER_SIZE"), "20000");
	ck_assert_str_eq(stub_env_get("TORCH_FR_DUMP_ON_TIMEOUT"), "1");
	ck_assert_str_eq(stub_env_get("TORCH_NCCL_DUMP_ON_TIMEOUT"), "1");
	ck_assert_str_eq(stub_env_get("TORCH_FR_DUMP_TEMP_FILE"), "/sp/77/fr/rank_");
	ck_assert_str_eq(stub_env_get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE"), "/sp/77/fr/rank_");
	ck_assert_str_eq(stub_env_get("TORCH_NCCL_DEBUG_INFO_PIPE_FILE"), "/sp/77/pipe/rank_");
	ck_assert_str_eq(stub_env_get("TORCHELASTIC_ERROR_FILE"), "/sp/77/torchelastic/error.0.5.json");
	// The 13 plus DENPEX_ENV_SET, which lists them with the hash of each value.
	ck_assert_int_eq(stub_env_count(), 14);
	const std::string mark = stub_env_get(DENPEX_ENV_SET);
	ck_assert(mark.find("NCCL_DEBUG_FILE=" + env_value_hash("/sp/77/nccl/nccl.node3.%p.log")) != std::string::npos);
	ck_assert(mark.find("NCCL_DEBUG=" + env_value_hash("INFO")) != std::string::npos);
}
END_TEST

// A batch script gets the batch step's variables (node1, task 0); srun passes
// them on to every task of its step. They are ours, not the user's: each
// task gets its own node and task id.
START_TEST(test_env_inherited_from_batch_step)
{
	setup();
	plugin_config cfg;
	config_defaults(&cfg);
	task_ids batch = sample_ids("/sp/77");
	batch.ti_step = 0xfffffffbU;
	batch.ti_task = 0;
	batch.ti_node = "node1";
	task_env_apply(stub_spank(), task_env_plan(cfg, batch));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_FILE"), "/sp/77/nccl/nccl.node1.%p.log");
	ck_assert_str_eq(stub_env_get("TORCHELASTIC_ERROR_FILE"), "/sp/77/torchelastic/error.batch.0.json");
	// The step's task 5 on node3 (sample_ids) inherits all of that.
	ck_assert_int_eq(task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("/sp/77"))), 13);
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_FILE"), "/sp/77/nccl/nccl.node3.%p.log");
	ck_assert_str_eq(stub_env_get("TORCHELASTIC_ERROR_FILE"), "/sp/77/torchelastic/error.0.5.json");
	ck_assert_int_eq(stub_env_count(), 14);

	// The batch script changed NCCL_DEBUG itself: the user's; our inherited
	// NCCL_DEBUG_FILE (grouped with it) goes, the rest is replaced.
	setup();
	task_env_apply(stub_spank(), task_env_plan(cfg, batch));
	stub_env_set("NCCL_DEBUG", "WARN");
	stub_env_set("TORCH_FR_DUMP_TEMP_FILE", "/home/u/fr_");
	task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("/sp/77")));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "WARN");
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
	ck_assert_str_eq(stub_env_get("TORCH_FR_DUMP_TEMP_FILE"), "/home/u/fr_");
	// The old name of the group the user took over is ours from the batch step: dropped.
	ck_assert_ptr_null(stub_env_get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE"));
	ck_assert_str_eq(stub_env_get("TORCHELASTIC_ERROR_FILE"), "/sp/77/torchelastic/error.0.5.json");
	const std::string mark = stub_env_get(DENPEX_ENV_SET);
	ck_assert(mark.find("NCCL_DEBUG=") == std::string::npos);
	ck_assert(mark.find("NCCL_DEBUG_FILE=") == std::string::npos);

	// This step has no spool dir: the batch step's file variables would point
	// at another node's files; they go.
	setup();
	task_env_apply(stub_spank(), task_env_plan(cfg, batch));
	task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("")));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "INFO");
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
	ck_assert_ptr_null(stub_env_get("TORCHELASTIC_ERROR_FILE"));
	ck_assert_ptr_null(stub_env_get("TORCH_FR_DUMP_TEMP_FILE"));

	// A forged or stale mark never makes a user's value ours.
	setup();
	stub_env_set("NCCL_DEBUG", "TRACE");
	stub_env_set(DENPEX_ENV_SET, "NCCL_DEBUG=0000000000000000,bogus");
	task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("/sp/77")));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "TRACE");
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
}
END_TEST

START_TEST(test_env_user_wins)
{
	setup();
	stub_env_set("NCCL_DEBUG", "WARN");
	stub_env_set("TORCH_NCCL_TRACE_BUFFER_SIZE", "0");
	stub_env_set("TORCH_FR_DUMP_TEMP_FILE", "/home/u/fr_");
	stub_env_set("NCCL_DEBUG_SUBSYS", std::string(300, 'A').c_str()); // longer than our buffer
	plugin_config cfg;
	config_defaults(&cfg);
	task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("/sp/77")));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "WARN");
	// The user's own NCCL_DEBUG keeps NCCL's output where the user expects it.
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
	const std::string long_value(300, 'A');
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_SUBSYS"), long_value.c_str());
	// Old name set by the user: the new alias is left alone too.
	ck_assert_str_eq(stub_env_get("TORCH_NCCL_TRACE_BUFFER_SIZE"), "0");
	ck_assert_ptr_null(stub_env_get("TORCH_FR_BUFFER_SIZE"));
	ck_assert_str_eq(stub_env_get("TORCH_FR_DUMP_TEMP_FILE"), "/home/u/fr_");
	ck_assert_ptr_null(stub_env_get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE"));
	// Unrelated ones are still set.
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_TIMESTAMP_LEVELS"), "ALL");
	ck_assert_str_eq(stub_env_get("TORCH_FR_DUMP_ON_TIMEOUT"), "1");
}
END_TEST

START_TEST(test_env_without_spool)
{
	setup();
	plugin_config cfg;
	config_defaults(&cfg);
	task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("")));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "INFO");
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
	ck_assert_ptr_null(stub_env_get("TORCH_FR_DUMP_TEMP_FILE"));
	ck_assert_ptr_null(stub_env_get("TORCH_NCCL_DEBUG_INFO_PIPE_FILE"));
	ck_assert_ptr_null(stub_env_get("TORCHELASTIC_ERROR_FILE"));
	ck_assert_str_eq(stub_env_get("TORCH_FR_BUFFER_SIZE"), "20000");
}
END_TEST

START_TEST(test_env_config_switches)
{
	setup();
	plugin_config cfg;
	args a{"trace_buffer=0", "timestamps=off", "nccl_debug=none", "error_file=off"};
	ck_assert_int_eq(config_parse(&cfg, a.ac(), a.av()), 0);
	task_env_apply(stub_spank(), task_env_plan(cfg, sample_ids("/sp/77")));
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG"));
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_TIMESTAMP_FORMAT"));
	ck_assert_ptr_null(stub_env_get("TORCH_FR_BUFFER_SIZE"));
	ck_assert_ptr_null(stub_env_get("TORCH_NCCL_DUMP_ON_TIMEOUT"));
	ck_assert_ptr_null(stub_env_get("TORCH_FR_DUMP_TEMP_FILE"));
	ck_assert_ptr_null(stub_env_get("TORCHELASTIC_ERROR_FILE"));
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_SUBSYS"), "INIT,BOOTSTRAP,ENV,NET");
	ck_assert_int_eq(stub_env_count(), 2); // and DENPEX_ENV_SET
}
END_TEST

// ------------------------------------------------------------ records

START_TEST(test_records_json)
{
	const std::string escaped = json_string("a\"b\\c\n\x01");
	ck_assert_str_eq(escaped.c_str(), "\"a\\\"b\\\\c\\n\\u0001\"");
	ck_assert(step_name(0xfffffffbU) == "batch");
	ck_assert(step_name(0xfffffffcU) == "extern");
	ck_assert(step_name(12) == "12");
	ck_assert(iso_utc_ns(1700000000123456789LL) == "2023-11-14T22:13:20.123456789Z");

	exit_record e;
	e.er_ids = sample_ids("/sp/77");
	e.er_pid = 99;
	e.er_status = 9; // killed by SIGKILL
	e.er_realtime_ns = 1700000000000000001LL;
	std::string j = exit_record_json(e);
	ck_assert_msg(j.find("\"task\":5,\"local_task\":1,\"node_id\":2,\"node\":\"node3\"") != std::string::npos, "%s",
		      j.c_str());
	ck_assert_msg(j.find("\"signal\":9,\"signal_name\":\"SIGKILL\"") != std::string::npos, "%s", j.c_str());
	ck_assert_msg(j.find("\"exit_code\":null") != std::string::npos, "%s", j.c_str());
	ck_assert_msg(j.find("\"time_ns\":1700000000000000001") != std::string::npos, "%s", j.c_str());
	e.er_status = 3 << 8; // exit 3
	j = exit_record_json(e);
	ck_assert_msg(j.find("\"exit_code\":3,\"signal\":null") != std::string::npos, "%s", j.c_str());

	rank_record r;
	r.rr_ids = sample_ids("/sp/77");
	r.rr_pid = 1234;
	r.rr_hostname = "host\"1";
	r.rr_gpus = "0,1";
	r.rr_gpus_set = true;
	r.rr_clock = clock_facts_now();
	r.rr_clock.cf_srun_realtime_ns = r.rr_clock.cf_realtime_ns - 5000;
	j = rank_record_json(r);
	ck_assert_msg(j.find("\"kind\":\"rank\",\"job\":77,\"step\":\"0\",\"task\":5") != std::string::npos, "%s",
		      j.c_str());
	ck_assert_msg(j.find("\"hostname\":\"host\\\"1\",\"pid\":1234") != std::string::npos, "%s", j.c_str());
	ck_assert_msg(j.find("\"gpus\":\"0,1\"") != std::string::npos, "%s", j.c_str());
	ck_assert_msg(j.find("\"launch_delta_ns\":5000") != std::string::npos, "%s", j.c_str());
	ck_assert_msg(r.rr_clock.cf_btime > 0, "no btime from /proc/stat");
	r.rr_gpus_set = false;
	r.rr_clock.cf_srun_realtime_ns = -1;
	j = rank_record_json(r);
	ck_assert_msg(j.find("\"gpus\":null") != std::string::npos, "%s", j.c_str());
	ck_assert_msg(j.find("\"launch_delta_ns\":null") != std::string::npos, "%s", j.c_str());
}
END_TEST

// ------------------------------------------------------------ spool

spool_identity ident(uint32_t job, uint32_t restart = 0)
{
	spool_identity id;
	id.si_job = job;
	id.si_restart = restart;
	id.si_node = "node1";
	return id;
}

START_TEST(test_spool_dirs)
{
	std::string spool = make_tmpdir();
	std::string err;
	int fd = spool_open_job_dir(spool.c_str(), ident(123), getuid(), getgid(), &err);
	ck_assert_msg(fd >= 0, "%s", err.c_str());
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0750);
	ck_assert_int_eq(st.st_uid, getuid());
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	// A second node opening the same dir is fine.
	int fd2 = spool_open_job_dir(spool.c_str(), ident(123), getuid(), getgid(), &err);
	ck_assert_msg(fd2 >= 0, "%s", err.c_str());
	close(fd2);
	int sub = spool_open_subdir(fd, "ranks", getuid(), getgid(), &err);
	ck_assert_msg(sub >= 0, "%s", err.c_str());
	ck_assert_int_eq(spool_write_atomic(sub, "0.1.json", "{}\n", (uid_t)-1, (gid_t)-1, &err), 0);
	std::string content = slurp(spool + "/123/ranks/0.1.json");
	ck_assert_str_eq(content.c_str(), "{}\n");
	ck_assert_int_eq(spool_write_atomic(sub, "0.1.json", "{\"x\":1}\n", (uid_t)-1, (gid_t)-1, &err), 0);
	content = slurp(spool + "/123/ranks/0.1.json");
	ck_assert_str_eq(content.c_str(), "{\"x\":1}\n");
	// No temp file left behind.
	std::string cmd = "test $(ls -A " + spool + "/123/ranks | wc -l) = 1";
	ck_assert_int_eq(system(cmd.c_str()), 0);
	close(sub);

	// A symlink planted where a subdirectory goes is not followed.
	std::string target = make_tmpdir();
	ck_assert_int_eq(symlinkat(target.c_str(), fd, "nccl"), 0);
	ck_assert_int_eq(spool_open_subdir(fd, "nccl", getuid(), getgid(), &err), -1);
	ck_assert_msg(err.find("nccl") != std::string::npos, "%s", err.c_str());
	// ... nor where the job dir goes: as root it is removed (the target
	// untouched) and a fresh dir made; as a user it is refused.
	ck_assert_int_eq(symlink(target.c_str(), (spool + "/124").c_str()), 0);
	close(open((target + "/keep").c_str(), O_CREAT | O_WRONLY, 0600));
	int planted = spool_open_job_dir(spool.c_str(), ident(124), getuid(), getgid(), &err);
	if (geteuid() == 0) {
		ck_assert_msg(planted >= 0, "%s", err.c_str());
		ck_assert_int_eq(lstat((spool + "/124").c_str(), &st), 0);
		ck_assert(S_ISDIR(st.st_mode));
		ck_assert_int_eq(access((target + "/keep").c_str(), F_OK), 0);
		close(planted);
	} else {
		ck_assert_int_eq(planted, -1);
	}
	// A plain file there: the same.
	close(open((spool + "/125").c_str(), O_CREAT | O_WRONLY, 0600));
	planted = spool_open_job_dir(spool.c_str(), ident(125), getuid(), getgid(), &err);
	ck_assert_int_eq(planted >= 0, geteuid() == 0);
	if (planted >= 0)
		close(planted);
	close(fd);

	// A world-writable spool must be sticky.
	ck_assert_int_eq(chmod(spool.c_str(), 0777), 0);
	ck_assert_int_eq(spool_open_job_dir(spool.c_str(), ident(126), getuid(), getgid(), &err), -1);
	ck_assert_msg(err.find("not sticky") != std::string::npos, "%s", err.c_str());
	ck_assert_int_eq(chmod(spool.c_str(), 01777), 0);
	fd = spool_open_job_dir(spool.c_str(), ident(126), getuid(), getgid(), &err);
	ck_assert_msg(fd >= 0, "%s", err.c_str());
	close(fd);

	// A missing spool is an error with the path in it, never a crash.
	ck_assert_int_eq(spool_open_job_dir("/nonexistent/denpex", ident(1), getuid(), getgid(), &err), -1);
	ck_assert_msg(err.find("/nonexistent/denpex") != std::string::npos, "%s", err.c_str());
	cmd = "rm -rf " + spool + " " + target;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(test_spool_foreign_owner)
{
	// Only meaningful as root: a dir pre-created by another user is refused.
	if (geteuid() != 0)
		return;
	std::string spool = make_tmpdir();
	std::string err;
	// Planted by another user (a 1777 spool) with a forged record: removed,
	// and a fresh dir for the job's user made in its place.
	ck_assert_int_eq(mkdir((spool + "/200").c_str(), 0777), 0);
	ck_assert_int_eq(chown((spool + "/200").c_str(), 4321, 4321), 0);
	close(open((spool + "/200/forged.log").c_str(), O_CREAT | O_WRONLY, 0644));
	int fd0 = spool_open_job_dir(spool.c_str(), ident(200), 1234, 1234, &err);
	ck_assert_msg(fd0 >= 0, "%s", err.c_str());
	struct stat st0;
	ck_assert_int_eq(fstat(fd0, &st0), 0);
	ck_assert_int_eq(st0.st_uid, 1234);
	ck_assert_int_ne(access((spool + "/200/forged.log").c_str(), F_OK), 0);
	// Its root-owned marker names the job, the user and the restart count.
	std::string marker = slurp(spool + "/200/" DENPEX_MARKER_PREFIX "node1");
	ck_assert_msg(marker.find("denpex-spool 1 job=200 uid=1234 restart=0 ino=") == 0, "%s", marker.c_str());
	ck_assert_int_eq(stat((spool + "/200/" DENPEX_MARKER_PREFIX "node1").c_str(), &st0), 0);
	ck_assert_int_eq(st0.st_uid, 0);
	// A second node adopts it; the task pids go into each node's marker.
	spool_identity n2 = ident(200);
	n2.si_node = "node2";
	int fd1 = spool_open_job_dir(spool.c_str(), n2, 1234, 1234, &err);
	ck_assert_msg(fd1 >= 0, "%s", err.c_str());
	ck_assert_int_eq(spool_record_task(fd1, n2, 4242, 0, 3, &err), 0);
	marker = slurp(spool + "/200/" DENPEX_MARKER_PREFIX "node2");
	ck_assert_msg(marker.find("\npid=4242 step=0 task=3\n") != std::string::npos, "%s", marker.c_str());
	close(fd1);
	close(fd0);
	// Left by an earlier run (a requeue: another restart count) or by
	// another user's job with the same id: never adopted.
	ck_assert_int_eq(open((spool + "/200/old-exit.json").c_str(), O_CREAT | O_WRONLY, 0644) >= 0, 1);
	fd1 = spool_open_job_dir(spool.c_str(), ident(200, 1), 1234, 1234, &err);
	ck_assert_msg(fd1 >= 0, "%s", err.c_str());
	ck_assert_int_ne(access((spool + "/200/old-exit.json").c_str(), F_OK), 0);
	close(fd1);
	close(open((spool + "/200/old-exit.json").c_str(), O_CREAT | O_WRONLY, 0644));
	fd1 = spool_open_job_dir(spool.c_str(), ident(200, 1), 5678, 5678, &err);
	ck_assert_msg(fd1 >= 0, "%s", err.c_str());
	ck_assert_int_ne(access((spool + "/200/old-exit.json").c_str(), F_OK), 0);
	ck_assert_int_eq(fstat(fd1, &st0), 0);
	ck_assert_int_eq(st0.st_uid, 5678);
	close(fd1);
	// Created by root for a user: chowned to that user.
	int fd = spool_open_job_dir(spool.c_str(), ident(201), 1234, 1235, &err);
	ck_assert_msg(fd >= 0, "%s", err.c_str());
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_uid, 1234);
	ck_assert_int_eq(st.st_gid, 1235);
	ck_assert_int_eq(spool_write_atomic(fd, "f", "x", 1234, 1235, &err), 0);
	ck_assert_int_eq(stat((spool + "/201/f").c_str(), &st), 0);
	ck_assert_int_eq(st.st_uid, 1234);
	close(fd);
	// A spool that does not belong to root is refused.
	ck_assert_int_eq(chown(spool.c_str(), 4321, 4321), 0);
	ck_assert_int_eq(spool_open_job_dir(spool.c_str(), ident(202), 1234, 1234, &err), -1);
	ck_assert_msg(err.find("not root") != std::string::npos, "%s", err.c_str());
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

// ------------------------------------------------------------ whole remote sequences

START_TEST(test_remote_sequence)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool};
	setenv("SLURMD_NODENAME", "node2", 1);
	remote_start(a);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	std::string job = spool + "/42";
	for (const char *d : {"nccl", "fr", "pipe", "torchelastic", "ranks", "exits"})
		ck_assert_msg(exists(job + "/" + d), "missing %s", d);
	stub_set_in_task(1);
	stub_env_set("CUDA_VISIBLE_DEVICES", "2,3");
	stub_env_set("DENPEX_SRUN_CLOCK_NS", "1000");
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	const std::string nccl_file = job + "/nccl/nccl.node2.%p.log";
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG_FILE"), nccl_file.c_str());
	std::string rank = slurp(job + "/ranks/0.3.json");
	ck_assert_msg(rank.find("\"job\":42,\"step\":\"0\",\"task\":3,\"local_task\":1,\"node_id\":1,\"node\":\"node2\"") !=
			      std::string::npos,
		      "%s", rank.c_str());
	std::string pid = "\"pid\":" + std::to_string(getpid()) + ",";
	ck_assert_msg(rank.find(pid) != std::string::npos, "%s", rank.c_str());
	ck_assert_msg(rank.find("\"nnodes\":2,\"ntasks\":4,\"gpus\":\"2,3\"") != std::string::npos, "%s", rank.c_str());
	ck_assert_msg(rank.find("\"srun_realtime_ns\":1000,") != std::string::npos, "%s", rank.c_str());

	stub_exit_status = 9;
	ck_assert_int_eq(slurm_spank_task_exit(stub_spank(), a.ac(), a.av()), 0);
	std::string ex = slurp(job + "/exits/0.3.json");
	ck_assert_msg(ex.find("\"signal\":9,\"signal_name\":\"SIGKILL\"") != std::string::npos, "%s", ex.c_str());
	ck_assert_msg(ex.find("\"pid\":4242,") != std::string::npos, "%s", ex.c_str());
	ck_assert_int_eq(slurm_spank_exit(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_msg(strstr(stub_log(), "error") == nullptr, "unexpected errors: %s", stub_log());
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

static void run_remote_off(bool by_option)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool};
	remote_start(a);
	if (by_option)
		ck_assert_int_eq(stub_option_cb("denpex", "off", 1), 0);
	else
		stub_env_set("DENPEX", "off");
	int before = stub_env_count();
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_task_exit(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_exit(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_env_count(), before);
	ck_assert_msg(!exists(spool + "/42"), "opted-out job left a spool dir");
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}

START_TEST(test_remote_opt_out_option)
{
	run_remote_off(true);
}
END_TEST

START_TEST(test_remote_opt_out_env)
{
	run_remote_off(false);
}
END_TEST

START_TEST(test_remote_default_off)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool, "default=off"};
	remote_start(a);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_env_count(), 0);
	ck_assert(!exists(spool + "/42"));
	// ... and a user can opt in.
	ck_assert_int_eq(slurm_spank_exit(stub_spank(), a.ac(), a.av()), 0);
	setup();
	remote_start(a);
	ck_assert_int_eq(stub_option_cb("denpex", "on", 1), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	ck_assert(exists(spool + "/42/ranks"));
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(test_remote_missing_spool)
{
	setup();
	args a{"spool=/nonexistent/denpex-spool"};
	remote_start(a);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_msg(log_has("denpex: spool /nonexistent/denpex-spool: No such file or directory"), "log: %s",
		      stub_log());
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_task_exit(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_str_eq(stub_env_get("NCCL_DEBUG"), "INFO");
	ck_assert_ptr_null(stub_env_get("NCCL_DEBUG_FILE"));
	// Logged once, not once per callback.
	const char *first = strstr(stub_log(), "nonexistent");
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_null(strstr(first + 1, "nonexistent"));
}
END_TEST

START_TEST(test_remote_bad_config_disables)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool, "nccl_debug=LOUD"};
	remote_start(a);
	ck_assert_msg(log_has("bad argument 'nccl_debug=LOUD'"), "log: %s", stub_log());
	ck_assert_msg(log_has("plugin disabled"), "log: %s", stub_log());
	ck_assert_int_eq(stub_option_count(), 1); // --denpex=off keeps working
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_env_count(), 0);
	ck_assert(!exists(spool + "/42"));
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(test_remote_items_unavailable)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool};
	remote_start(a);
	stub_set_items_fail(1);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(slurm_spank_task_exit(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_env_count(), 0);
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(test_remote_extern_step)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool};
	stub_step_id = 0xfffffffcU;
	remote_start(a);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert_int_eq(stub_env_count(), 0);
	ck_assert(!exists(spool + "/42"));
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

START_TEST(test_batch_step_names)
{
	setup();
	std::string spool = make_tmpdir();
	args a{"spool=" + spool};
	stub_step_id = 0xfffffffbU;
	stub_global_id = 0;
	remote_start(a);
	ck_assert_int_eq(slurm_spank_init_post_opt(stub_spank(), a.ac(), a.av()), 0);
	stub_set_in_task(1);
	ck_assert_int_eq(slurm_spank_task_init(stub_spank(), a.ac(), a.av()), 0);
	ck_assert(exists(spool + "/42/ranks/batch.0.json"));
	const std::string error_file = spool + "/42/torchelastic/error.batch.0.json";
	ck_assert_str_eq(stub_env_get("TORCHELASTIC_ERROR_FILE"), error_file.c_str());
	std::string cmd = "rm -rf " + spool;
	ck_assert_int_eq(system(cmd.c_str()), 0);
}
END_TEST

static Suite *spank_suite()
{
	Suite *s = suite_create("spank");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_config_all_keys);
	tcase_add_test(tc, test_config_unknown_key);
	tcase_add_test(tc, test_config_bad_values);
	tcase_add_test(tc, test_onoff);
	suite_add_tcase(s, tc);
	tc = tcase_create("options");
	tcase_add_test(tc, test_option_registered_and_checked);
	tcase_add_test(tc, test_resolve_enabled);
	tcase_add_test(tc, test_local_handoff);
	tcase_add_test(tc, test_local_bad_env_fails_submission);
	suite_add_tcase(s, tc);
	tc = tcase_create("environment");
	tcase_add_test(tc, test_env_plan_defaults);
	tcase_add_test(tc, test_env_user_wins);
	tcase_add_test(tc, test_env_inherited_from_batch_step);
	tcase_add_test(tc, test_env_without_spool);
	tcase_add_test(tc, test_env_config_switches);
	suite_add_tcase(s, tc);
	tc = tcase_create("records");
	tcase_add_test(tc, test_records_json);
	tcase_add_test(tc, test_spool_dirs);
	tcase_add_test(tc, test_spool_foreign_owner);
	suite_add_tcase(s, tc);
	tc = tcase_create("remote");
	tcase_add_test(tc, test_remote_sequence);
	tcase_add_test(tc, test_remote_opt_out_option);
	tcase_add_test(tc, test_remote_opt_out_env);
	tcase_add_test(tc, test_remote_default_off);
	tcase_add_test(tc, test_remote_missing_spool);
	tcase_add_test(tc, test_remote_bad_config_disables);
	tcase_add_test(tc, test_remote_items_unavailable);
	tcase_add_test(tc, test_remote_extern_step);
	tcase_add_test(tc, test_batch_step_names);
	suite_add_tcase(s, tc);
	return s;
}

int main()
{
	return diag_ck_run(spank_suite());
}
