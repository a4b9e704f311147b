// denpex-epilog: Slurm Epilog / EpilogSlurmctld program.
//
// Work split (see denpex-epilog(8)):
//   every node's Epilog   copies its share of evidence (the job's spool files,
//                         read as the job user; its kernel messages of the job
//                         window) into <state_dir>/<job>/ and leaves a marker;
//   the diagnosing site   (diagnose_in: node → the first node of the allocation;
//                         slurmctld → EpilogSlurmctld) waits a bounded time for
//                         all nodes' markers, adds the job's stdout/stderr and
//                         accounting state, runs libdiag once, writes the admin
//                         report and appends the verdict to the job's Comment.
// A watchdog parent kills the worker at deadline_s. Always exits 0: a
// non-zero node epilog drains the node.
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "attribution.hh"
#include "comment.hh"
#include "comment_queue.hh"
#include "config.hh"
#include "expand.hh"
#include "gpu_health_collect.hh"
#include "kmsg.hh"
#include "log.hh"
#include "report.hh"
#include "safe_read.hh"
#include "slurm_io.hh"
#include "spool_trust.hh"

#include "denpex_diag.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#ifndef DENPEX_SYSCONFDIR
#define DENPEX_SYSCONFDIR "/etc/denpex"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

namespace denpex::epilog {

namespace {

double mono_now()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

std::string env(const char *name)
{
	const char *v = getenv(name);
	return v ? std::string(v) : std::string();
}

bool parse_u32(const std::string &s, uint32_t &v)
{
	if (s.empty() || s.size() > 10)
		return false;
	for (char c : s)
		if (c < '0' || c > '9')
			return false;
	unsigned long x = strtoul(s.c_str(), nullptr, 10);
	if (x > 0xffffffffUL)
		return false;
	v = static_cast<uint32_t>(x);
	return true;
}

// Runs fn in a forked child and returns what it produced, or nullopt when it
// did not finish within timeout_s (it is then killed). Keeps a hung slurmdbd
// connection or a crash in the diagnosis from taking the report with it.
std::optional<std::string> run_bounded(double timeout_s, const std::function<std::string()> &fn)
{
	int p[2];
	if (timeout_s <= 0 || pipe2(p, O_CLOEXEC) != 0)
		return std::nullopt;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return std::nullopt;
	}
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		std::string out;
		try {
			out = fn();
		} catch (...) {
			_exit(1);
		}
		size_t off = 0;
		while (off < out.size()) {
			ssize_t w = write(p[1], out.data() + off, out.size() - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			off += static_cast<size_t>(w);
		}
		_exit(0);
	}
	close(p[1]);
	std::string out;
	bool done = false;
	double deadline = mono_now() + timeout_s;
	char buf[65536];
	for (;;) {
		double left = deadline - mono_now();
		if (left <= 0)
			break;
		struct pollfd pfd = {p[0], POLLIN, 0};
		int pr = poll(&pfd, 1, static_cast<int>(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		ssize_t r = read(p[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			done = r == 0;
			break;
		}
		if (out.size() < (64u << 20))
			out.append(buf, static_cast<size_t>(r));
	}
	close(p[0]);
	int status = 0;
	if (!done)
		kill(pid, SIGKILL);
	bool reaped = false;
	for (int i = 0; i < 100; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			reaped = true;
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		sleep_ms(10);
	}
	if (!done || !reaped || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return std::nullopt;
	return out;
}

// Length-prefixed fields through run_bounded().
std::string pack(const std::vector<std::string> &v)
{
	std::string o;
	for (const std::string &s : v)
		o += std::to_string(s.size()) + ":" + s;
	return o;
}

std::vector<std::string> unpack(const std::string &s)
{
	std::vector<std::string> v;
	size_t i = 0;
	while (i < s.size()) {
		size_t colon = s.find(':', i);
		if (colon == std::string::npos)
			break;
		size_t n = strtoull(s.c_str() + i, nullptr, 10);
		if (colon + 1 + n > s.size())
			break;
		v.push_back(s.substr(colon + 1, n));
		i = colon + 1 + n;
	}
	return v;
}

// A user-chosen file name as it may appear in the report: no line breaks or
// terminal escapes to forge report lines with.
std::string printable(const std::string &s)
{
	std::string o;
	for (unsigned char c : s)
		o += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
	return o;
}

// Bytes on disk under dirfd (bounded walk: staging has few levels).
uint64_t disk_bytes(int dirfd, int depth, unsigned &entries)
{
	int fd = dup(dirfd);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	uint64_t total = 0;
	struct dirent *de;
	while ((de = readdir(d)) != nullptr && entries < 100000) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		entries++;
		struct stat st;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		total += static_cast<uint64_t>(st.st_blocks) * 512;
		if (S_ISDIR(st.st_mode) && depth < 8) {
			int sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				total += disk_bytes(sub, depth + 1, entries);
				close(sub);
			}
		}
	}
	closedir(d);
	return total;
}

size_t count_entries(int dirfd, const char *sub)
{
	int fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != nullptr)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

bool write_file_at(int dirfd, const std::string &rel, const std::string &data)
{
	size_t slash = rel.rfind('/');
	int dfd = dirfd;
	if (slash != std::string::npos) {
		dfd = open_subdir(dirfd, rel.substr(0, slash), true);
		if (dfd < 0)
			return false;
	}
	std::string base = slash == std::string::npos ? rel : rel.substr(slash + 1);
	int fd = openat(dfd, base.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dfd != dirfd)
		close(dfd);
	if (fd < 0)
		return false;
	bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
	close(fd);
	return ok;
}

struct job_ctx {
	bool node_context = true;
	uint32_t job_id = 0;
	std::string job_id_str;
	std::string node;     // SLURMD_NODENAME (node context)
	std::string nodelist; // the allocation
	int num_nodes = 1;
	std::string cluster;
	std::string user;
	uid_t uid = 65534;
	gid_t gid = 65534;
	bool have_uid = false;
	std::string env_comment;
	std::string env_stdout, env_stderr, env_work_dir;
	uint32_t env_exit = 0, env_exit_derived = 0;
	std::string spool_base;
	bool opted_out = false;
	std::string job_gpus; // SLURM_JOB_GPUS: minor numbers of the allocated GPUs
};

// SLURMD_NODENAME as the plugin puts it into marker file names.
std::string node_file_name(const std::string &node)
{
	std::string n = node.empty() ? "node" : node.substr(0, 255);
	for (char &c : n)
		if (!(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
			c = '_';
	return n;
}

// Staging paths as the report shows them: where the evidence came from.
void replace_all(std::string &s, const std::string &from, const std::string &to)
{
	if (from.empty())
		return;
	for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
		s.replace(p, from.size(), to);
}

bool json_plain(const std::string &s)
{
	for (unsigned char c : s)
		if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f)
			return false;
	return true;
}

class epilog_run {
public:
	epilog_run(const config &c, double start) : cfg(c), t0(start) {}
	void run();

private:
	const config &cfg;
	double t0;
	job_ctx ctx;
	job_info ji;
	std::string key; // state and report name: job id (".r<restart>" after requeues)
	copy_report rep;
	uint64_t budget = 0;
	std::vector<std::string> notes;
	bool diagnoses_here = true;
	bool unknown_job = false;      // slurmctld answered: no such job
	bool output_copied = false;    // the job's stdout/stderr are staged
	std::string out_path, err_path; // as resolved from Slurm's patterns
	spool_check spool;             // the job's spool dir, as verified
	std::string spool_job;         // <spool>/<job>

	double left() const { return cfg.deadline_s - (mono_now() - t0) - 3; }
	unsigned read_timeout() const
	{
		double l = left();
		if (l < 1)
			return 1;
		return static_cast<unsigned>(std::min<double>(cfg.read_timeout_s, l));
	}
	bool read_env();
	bool wanted(std::string &why);
	int open_job_state_dir();
	void gather_node(int jfd);
	void diagnose(int jfd);
	user_cred cred() const { return cred_for_job(ctx.uid, ctx.gid); }
	read_limits limits()
	{
		read_limits l;
		l.max_bytes_per_file = cfg.max_bytes_per_file;
		l.budget = &budget;
		l.timeout_s = read_timeout();
		return l;
	}
	void housekeeping(int sfd);
	void gather_job_output(int jfd);
	void remove_spool(bool shared_ok);
	std::string cite_originals(std::string text, bool json) const;
	std::string gather_summary() const;
	void collect_local_gpu_health(int jfd);
	void collect_prometheus_gpu_health(int jfd);
	std::string other_nodes_notes(int jfd) const;
};

// dcgmi and nvidia-smi on this node, as nobody: they need no privilege,
// and root gains nothing by running a tool that parses driver output.
void epilog_run::collect_local_gpu_health(int jfd)
{
	std::string node = "nodes/" + (safe_component(ctx.node) ? ctx.node : std::string("node")) + "/";
	struct tool {
		const char *source, *file;
		std::string path;
		std::vector<std::string> args;
	};
	std::vector<tool> tools = {{"dcgmi", "dcgmi-stats.txt", cfg.dcgmi_path, {"stats", "-j", ctx.job_id_str, "-v"}},
				   {"nvidia-smi", "nvidia-smi.xml", cfg.nvidia_smi_path, {"-q", "-x"}}};
	for (const tool &t : tools) {
		if (!config_dcgm(cfg, t.source))
			continue;
		double budget = std::min<double>(cfg.dcgm_timeout_s, left() - 10);
		std::string out, err;
		if (budget < 1)
			err = "no time left before the deadline";
		else if (run_tool(t.path, t.args, 65534, 65534, budget, 4u << 20, out, err) && !out.empty() &&
			 write_file_at(jfd, node + t.file, out))
			rep.files.push_back({t.path, node + t.file, out.size(), out.size(), false});
		if (!err.empty())
			rep.skipped.push_back({t.path, err});
	}
}

// dcgm-exporter's series for the job's nodes over its window.
void epilog_run::collect_prometheus_gpu_health(int jfd)
{
	if (!config_dcgm(cfg, "prometheus") || cfg.prometheus_url.empty())
		return;
	double budget = std::min<double>(cfg.dcgm_timeout_s, left() - 15);
	if (budget < 1) {
		notes.push_back("Prometheus not asked: no time left before the deadline");
		return;
	}
	time_t end = ji.end > 0 ? ji.end : time(nullptr);
	time_t start = ji.start > 0 ? ji.start : end - 3600;
	std::string err;
	std::string text = prometheus_dcgm_series(cfg.prometheus_url, hostlist_all(ctx.nodelist, 4096), start, end,
						  budget, err);
	if (!err.empty())
		notes.push_back(err);
	if (!text.empty() && write_file_at(jfd, "prometheus/dcgm-exporter.prom", text))
		rep.files.push_back({cfg.prometheus_url, "prometheus/dcgm-exporter.prom", text.size(), text.size(), false});
}

// Collected and skipped files as report lines ("already collected" is the
// normal case of a shared spool, counted only).
std::string epilog_run::gather_summary() const
{
	std::string t = "Collected (user files read as uid " + std::to_string(cred().uid) + "):\n";
	for (const copied_file &f : rep.files)
		t += "  " + printable(f.src) + " -> " + printable(f.dst) + " (" + std::to_string(f.bytes) + " of " +
		     std::to_string(f.src_size) + " bytes" + (f.truncated ? ", head and tail only" : "") + ")\n";
	t += "Skipped:\n";
	size_t dup = 0;
	for (const skipped_file &s : rep.skipped) {
		if (s.reason == "already collected")
			dup++;
		else
			t += "  " + printable(s.src) + ": " + printable(s.reason) + "\n";
	}
	if (dup)
		t += "  " + std::to_string(dup) + " files already collected by another node\n";
	return t;
}

// The other nodes' summaries (root-owned files we wrote), bounded.
std::string epilog_run::other_nodes_notes(int jfd) const
{
	std::string t;
	int nfd = openat(jfd, "notes", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (nfd < 0)
		return t;
	DIR *d = fdopendir(nfd);
	if (!d) {
		close(nfd);
		return t;
	}
	struct dirent *de;
	unsigned count = 0;
	while ((de = readdir(d)) != nullptr && count < 1024) {
		if (de->d_name[0] == '.' || de->d_name == ctx.node)
			continue;
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			char buf[65536];
			ssize_t r = read(fd, buf, sizeof(buf));
			if (r > 0)
				t += "\nOn " + std::string(de->d_name) + ":\n" + std::string(buf, static_cast<size_t>(r));
			count++;
		}
		close(fd);
	}
	closedir(d);
	return t;
}

bool epilog_run::read_env()
{
	std::string sc = env("SLURM_SCRIPT_CONTEXT");
	if (sc == "epilog_slurmctld")
		ctx.node_context = false;
	else if (sc == "epilog_slurmd" || (sc.empty() && !env("SLURMD_NODENAME").empty()))
		ctx.node_context = true;
	else {
		log_msg(LOG_ERR, "not run as Epilog or EpilogSlurmctld (SLURM_SCRIPT_CONTEXT=%s); nothing to do",
			sc.c_str());
		return false;
	}
	ctx.job_id_str = env("SLURM_JOB_ID");
	if (!parse_u32(ctx.job_id_str, ctx.job_id) || ctx.job_id == 0) {
		log_msg(LOG_ERR, "SLURM_JOB_ID missing or invalid; nothing to do");
		return false;
	}
	ctx.node = env("SLURMD_NODENAME");
	ctx.nodelist = env(ctx.node_context ? "SLURM_NODELIST" : "SLURM_JOB_NODELIST");
	if (ctx.nodelist.empty())
		ctx.nodelist = env("SLURM_JOB_NODELIST");
	uint32_t n = 0;
	if (parse_u32(env("SLURM_JOB_NUM_NODES"), n) && n > 0 && n < 100000)
		ctx.num_nodes = static_cast<int>(n);
	ctx.cluster = env("SLURM_CLUSTER_NAME");
	ctx.user = env("SLURM_JOB_USER");
	uint32_t u, g;
	if (parse_u32(env("SLURM_JOB_UID"), u) && parse_u32(env("SLURM_JOB_GID"), g)) {
		ctx.uid = u;
		ctx.gid = g;
		ctx.have_uid = true;
	}
	ctx.env_comment = env("SLURM_JOB_COMMENT");
	ctx.env_stdout = env("SLURM_JOB_STDOUT");
	ctx.env_stderr = env("SLURM_JOB_STDERR");
	ctx.env_work_dir = env("SLURM_JOB_WORK_DIR");
	parse_u32(env("SLURM_JOB_EXIT_CODE"), ctx.env_exit);
	parse_u32(env("SLURM_JOB_DERIVED_EC"), ctx.env_exit_derived);
	// From the SPANK plugin (spank_job_control_setenv in srun/sbatch).
	ctx.opted_out = env("SPANK_DENPEX_OPTOUT") == "1";
	ctx.job_gpus = env("SLURM_JOB_GPUS");
	std::string sp = env("SPANK_DENPEX_SPOOL");
	if (!sp.empty() && sp[0] == '/' && sp.find("/../") == std::string::npos &&
	    sp.find("/./") == std::string::npos && sp.size() < 1024) {
		ctx.spool_base = sp;
		if (sp != cfg.spool_dir)
			notes.push_back("spool dir " + sp + " from the plugin differs from spool_dir " +
					cfg.spool_dir);
	} else {
		ctx.spool_base = cfg.spool_dir;
	}
	return true;
}

bool epilog_run::wanted(std::string &why)
{
	// Bounded: a slurmctld that accepts but does not answer must not cost the
	// whole deadline.
	std::string err;
	uint32_t job_id = ctx.job_id;
	auto packed = run_bounded(std::min(15.0, left() / 3), [job_id]() {
		job_info j;
		std::string e;
		if (!load_job(job_id, j, e))
			return pack({"0", e});
		return pack({"1", j.state, j.reason, std::to_string(j.exit_code),
			     std::to_string(j.derived_ec), j.comment, j.admin_comment, j.std_out,
			     j.std_err, j.work_dir, j.name, j.batch_host, j.nodes,
			     std::to_string(j.start), std::to_string(j.end), std::to_string(j.array_job_id),
			     std::to_string(j.array_task_id), std::to_string(j.restart_cnt),
			     std::to_string(j.uid), std::to_string(j.gid), j.exclusive ? "1" : "0"});
	});
	std::vector<std::string> f = packed ? unpack(*packed) : std::vector<std::string>();
	if (f.size() == 21 && f[0] == "1") {
		auto u = [&](size_t i) { return static_cast<uint32_t>(strtoul(f[i].c_str(), nullptr, 10)); };
		ji.loaded = true;
		ji.state = f[1];
		ji.reason = f[2];
		ji.exit_code = u(3);
		ji.derived_ec = u(4);
		ji.comment = f[5];
		ji.admin_comment = f[6];
		ji.std_out = f[7];
		ji.std_err = f[8];
		ji.work_dir = f[9];
		ji.name = f[10];
		ji.batch_host = f[11];
		ji.nodes = f[12];
		ji.start = static_cast<time_t>(strtoll(f[13].c_str(), nullptr, 10));
		ji.end = static_cast<time_t>(strtoll(f[14].c_str(), nullptr, 10));
		ji.array_job_id = u(15);
		ji.array_task_id = u(16);
		ji.restart_cnt = u(17);
		ji.uid = u(18);
		ji.gid = u(19);
		ji.exclusive = f[20] == "1";
	} else {
		err = f.size() == 2 ? f[1] : "no answer from slurmctld in time";
		// slurmctld answered, and knows no such job: a made-up id (run by
		// hand), never a report.
		if (f.size() == 2 && f[1].find("Invalid job id") != std::string::npos) {
			unknown_job = true;
			why = "job " + ctx.job_id_str + " is unknown to slurmctld (" + f[1] + ")";
			return false;
		}
	}
	if (!ji.loaded) {
		notes.push_back("job state unavailable: " + err);
		// Without slurmctld the environment is all we have: non-zero means failed.
		if (ctx.env_exit == 0 && ctx.env_exit_derived == 0) {
			why = "exit code 0 and no state from slurmctld (" + err + ")";
			return false;
		}
		ji.state = "FAILED";
		ji.exit_code = ctx.env_exit;
		ji.derived_ec = ctx.env_exit_derived;
	}
	if (ji.loaded) {
		if (!ctx.have_uid) {
			ctx.uid = ji.uid;
			ctx.gid = ji.gid;
			ctx.have_uid = true;
		}
	}
	// A run that ended in a requeue (preemption in REQUEUE mode, scontrol
	// requeue): slurmctld shows the job PENDING again and already counts the
	// next run. What ended is the run before; accounting keeps it as a
	// record of its own (PREEMPTED, REQUEUED, ...).
	if (ji.loaded && ji.state == "PENDING") {
		ji.state = "REQUEUED";
		if (ji.restart_cnt > 0)
			ji.restart_cnt--;
	}
	// Slurm carries the derived exit code (the worst step's) over a requeue:
	// after one, a non-zero value may be an earlier run's.
	bool derived_ok = ji.derived_ec == 0 || ji.restart_cnt > 0;
	if (ji.state == "COMPLETED" && ji.exit_code == 0 && derived_ok) {
		why = "completed successfully";
		return false;
	}
	std::string st = ji.state == "COMPLETED" ? "FAILED" : ji.state;
	if (!config_state_wanted(cfg, st)) {
		why = "state " + ji.state + " not in diagnose_states";
		return false;
	}
	key = ctx.job_id_str;
	if (ji.restart_cnt > 0)
		key += ".r" + std::to_string(ji.restart_cnt);
	return true;
}

int epilog_run::open_job_state_dir()
{
	std::string err;
	if (!ensure_private_dir(cfg.state_dir, 0700, err)) {
		log_msg(LOG_ERR, "job %s: state_dir: %s", ctx.job_id_str.c_str(), err.c_str());
		return -1;
	}
	int sfd = open(cfg.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	housekeeping(sfd);
	int jfd = open_subdir(sfd, key, true);
	close(sfd);
	if (jfd < 0)
		log_msg(LOG_ERR, "job %s: %s/%s: %s", ctx.job_id_str.c_str(), cfg.state_dir.c_str(),
			key.c_str(), strerror(errno));
	return jfd;
}

// State dirs left by nodes that came after the diagnosis (or crashed).
void epilog_run::housekeeping(int sfd)
{
	int fd = dup(sfd);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	// No epilog run is older than its deadline: a job dir older than a few
	// deadlines is a leftover (a node that gathered but never diagnosed).
	time_t old = time(nullptr) - std::max<time_t>(600, 3 * static_cast<time_t>(cfg.deadline_s));
	std::vector<std::string> stale;
	struct dirent *de;
	while ((de = readdir(d)) != nullptr && stale.size() < 20) {
		if (de->d_name[0] == '.')
			continue;
		struct stat st;
		if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime < old)
			stale.push_back(de->d_name);
	}
	closedir(d);
	for (const std::string &n : stale)
		remove_tree(sfd, n);
}

// The job's stdout and stderr, as the user, with Slurm's patterns
// expanded: first, before the spool's files spend the byte budget.
void epilog_run::gather_job_output(int jfd)
{
	if (output_copied)
		return;
	output_copied = true;
	expand_vars ev;
	ev.job_id = ctx.job_id_str;
	ev.user = ctx.user;
	ev.job_name = ji.name;
	ev.node = !ji.batch_host.empty() ? ji.batch_host : hostlist_first(ctx.nodelist);
	ev.array_job = ji.array_job_id ? std::to_string(ji.array_job_id) : ctx.job_id_str;
	ev.array_task = ji.array_job_id ? std::to_string(ji.array_task_id) : "4294967294";
	std::string work_dir = !ctx.env_work_dir.empty() ? ctx.env_work_dir : ji.work_dir;
	std::string out_pat = !ctx.env_stdout.empty() ? ctx.env_stdout : ji.std_out;
	std::string err_pat = !ctx.env_stderr.empty() ? ctx.env_stderr : ji.std_err;
	out_path = resolve_path(expand_pattern(out_pat, ev), work_dir);
	err_path = resolve_path(expand_pattern(err_pat, ev), work_dir);
	if (!out_path.empty() && out_path != "/dev/null")
		safe_copy_file(out_path, cred(), limits(), jfd, "job/stdout", rep);
	if (!err_path.empty() && err_path != out_path && err_path != "/dev/null")
		safe_copy_file(err_path, cred(), limits(), jfd, "job/stderr", rep);
	// What slurmctld says of the job, in scontrol's words (trusted: from
	// slurmctld, not from the job): a launch failure is named there.
	if (ji.loaded)
		write_file_at(jfd, "job/scontrol.txt",
			      "JobId=" + ctx.job_id_str + " JobState=" + ji.state + " Reason=" +
				      (ji.reason.empty() ? std::string("None") : ji.reason) + " ExitCode=" +
				      exit_pair(ji.exit_code) + "\n");
}

// <spool>/<job> goes once its evidence is gathered, so that a later job with
// the same id (MaxJobId wrap, lost controller state) never sees it. A spool
// shared with other nodes goes after the diagnosis, by the diagnosing site.
void epilog_run::remove_spool(bool shared_ok)
{
	if (cfg.keep_spool || spool_job.empty())
		return;
	if (spool.ok && spool.other_nodes && !shared_ok)
		return;
	// Only a dir verified as the job's, or one in the admin's own spool
	// (SPANK_DENPEX_SPOOL comes from the job's side).
	if (!spool.ok && ctx.spool_base != cfg.spool_dir)
		return;
	if (spool.ok && !same_job_spool(ctx.spool_base, ctx.job_id, spool))
		return;
	int sfd = open(ctx.spool_base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		return;
	struct stat st;
	if (fstat(sfd, &st) == 0 && (st.st_uid == 0 || st.st_uid == geteuid()))
		remove_tree(sfd, ctx.job_id_str);
	close(sfd);
}

void epilog_run::gather_node(int jfd)
{
	if (diagnoses_here)
		gather_job_output(jfd);
	// The job's spool dir, only when the plugin made it for this job; read
	// as the job user.
	spool_job = ctx.spool_base + "/" + ctx.job_id_str;
	spool = check_job_spool(ctx.spool_base, ctx.job_id, ctx.uid, ji.restart_cnt, ji.start,
				node_file_name(ctx.node));
	if (spool.ok) {
		safe_copy_tree(spool_job, cred(), limits(), jfd, "spool", rep);
		if (!same_job_spool(ctx.spool_base, ctx.job_id, spool)) {
			remove_tree(jfd, "spool");
			rep.skipped.push_back({spool_job, "replaced while it was read; copy discarded"});
		}
	} else {
		rep.skipped.push_back({spool_job, spool.why});
	}
	if (cfg.kernel_log == kernel_source::kmsg && cfg.kernel_max_bytes > 0) {
		time_t from = ji.start > 0 ? ji.start - static_cast<time_t>(cfg.kernel_slack_s)
					   : time(nullptr) - 3600;
		time_t to = time(nullptr);
		job_scope scope;
		scope.job_id = ctx.job_id;
		scope.uid = ctx.uid;
		scope.pids = spool.pids;
		scope.gpu_buses = gpu_buses_of("/proc/driver/nvidia/gpus", ctx.job_gpus);
		scope.node_exclusive = ji.exclusive;
		scope.start = static_cast<double>(ji.start);
		std::string err;
		uint64_t others = 0;
		std::string k = kmsg_window("/dev/kmsg", from, to, ctx.node, cfg.kernel_max_bytes, scope, &others, err);
		if (!err.empty())
			rep.skipped.push_back({"/dev/kmsg", err});
		if (others > 0)
			rep.skipped.push_back({"/dev/kmsg", std::to_string(others) +
							    " line(s) of node-level events not attributed to this job "
							    "(no cgroup, task pid, uid or GPU of the job); not used"});
		if (!k.empty()) {
			std::string rel = "nodes/" + (safe_component(ctx.node) ? ctx.node : "node") + "/kernel.log";
			if (write_file_at(jfd, rel, k))
				rep.files.push_back({"/dev/kmsg", rel, k.size(), k.size(), false});
		}
	}
	collect_local_gpu_health(jfd);
	// What this node took and left, for the report written elsewhere.
	std::string n = safe_component(ctx.node) ? ctx.node : "node";
	write_file_at(jfd, "notes/" + n, gather_summary());
	int dfd = open_subdir(jfd, "done", true);
	if (dfd >= 0) {
		int fd = openat(dfd, n.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		close(dfd);
	}
	remove_spool(false);
}

// "path:N" of a head-and-tail copy as the original's line: the tail's lines
// shift by what was left out (uncounted: said so).
void map_cut_lines(std::string &text, const std::string &path, const copied_file &f)
{
	if (f.head_lines < 0)
		return;
	std::string key = path + ":";
	for (size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + key.size())) {
		size_t q = p + key.size(), e = q;
		while (e < text.size() && isdigit(static_cast<unsigned char>(text[e])) && e - q < 18)
			e++;
		if (e == q)
			continue;
		long long c = strtoll(text.c_str() + q, nullptr, 10);
		if (c <= f.head_lines + 2)
			continue;
		std::string to = f.omitted_lines >= 0 ? std::to_string(c + f.omitted_lines - 2)
						      : std::to_string(c) + " (line of the cut copy)";
		text.replace(q, e - q, to);
	}
}

// Evidence cited where it came from, not by the staging copies (deleted
// after the diagnosis), with the original's line numbers.
std::string epilog_run::cite_originals(std::string text, bool json) const
{
	std::string jobdir = cfg.state_dir + "/" + key;
	for (const copied_file &f : rep.files)
		if (f.head_lines >= 0 && safe_component(f.dst.substr(0, f.dst.find('/'))))
			map_cut_lines(text, jobdir + "/" + f.dst, f);
	auto sub = [&](const std::string &from, const std::string &to) {
		if (!json || json_plain(to))
			replace_all(text, from, to);
	};
	if (!out_path.empty())
		sub(jobdir + "/job/stdout", out_path);
	if (!err_path.empty())
		sub(jobdir + "/job/stderr", err_path);
	sub(jobdir + "/job/sacct.txt", "slurmdbd:job/" + ctx.job_id_str);
	sub(jobdir + "/job/scontrol.txt", "slurmctld:job/" + ctx.job_id_str);
	if (!spool_job.empty())
		sub(jobdir + "/spool/", spool_job + "/");
	else
		sub(jobdir + "/spool/", ctx.spool_base + "/" + ctx.job_id_str + "/");
	sub(jobdir + "/nodes/", "/dev/kmsg:");
	return text;
}

void epilog_run::diagnose(int jfd)
{
	std::string jobdir = cfg.state_dir + "/" + key;
	// Wait (bounded) for the other nodes' shares.
	double wait_until = mono_now() + cfg.node_wait_s;
	size_t have = count_entries(jfd, "done");
	while (have < static_cast<size_t>(ctx.num_nodes) && mono_now() < wait_until && left() > 10) {
		sleep_ms(200);
		have = count_entries(jfd, "done");
	}
	if (have < static_cast<size_t>(ctx.num_nodes))
		notes.push_back("evidence from " + std::to_string(have) + " of " +
				std::to_string(ctx.num_nodes) + " nodes (waited " +
				std::to_string(cfg.node_wait_s) + " s)");
	// One diagnosis per job, whoever gets here first.
	int cl = openat(jfd, "claimed", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (cl < 0) {
		log_msg(LOG_INFO, "job %s: already being diagnosed elsewhere", ctx.job_id_str.c_str());
		return;
	}
	close(cl);

	gather_job_output(jfd);

	// Accounting state (steps too), bounded: slurmdbd may be down.
	double t_acct = std::min(10.0, left() - 15);
	uint32_t job_id = ctx.job_id;
	std::string cluster = ctx.cluster;
	job_info jcopy = ji;
	auto acct = run_bounded(t_acct, [job_id, cluster, jcopy]() {
		acct_job aj;
		std::string err;
		if (!acct_load(job_id, cluster, aj, err))
			return pack({"0", err});
		return pack({"1", acct_as_sacct(job_id, jcopy, aj)});
	});
	std::string sacct_text;
	if (acct) {
		auto f = unpack(*acct);
		if (f.size() == 2 && f[0] == "1")
			sacct_text = f[1];
		else if (f.size() == 2)
			notes.push_back("accounting: " + f[1]);
	} else {
		notes.push_back("accounting: no answer from slurmdbd in time");
	}
	if (sacct_text.empty())
		sacct_text = acct_as_sacct(job_id, ji, acct_job());
	write_file_at(jfd, "job/sacct.txt", sacct_text);
	collect_prometheus_gpu_health(jfd);

	// The diagnosis, bounded and in its own process (a crash costs only the verdict).
	// Provenance: the job's own output is a claim; what the epilog took from
	// the kernel and from Slurm is evidence.
	std::vector<std::pair<std::string, bool>> inputs; // path, job output
	for (auto [sub, job_output] : {std::pair<const char *, bool>{"job/stdout", true}, {"job/stderr", true},
				       {"job/sacct.txt", false}, {"job/scontrol.txt", false},
				       {"spool", true}, {"nodes", false}, {"prometheus", false}}) {
		struct stat st;
		if (fstatat(jfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			inputs.push_back({jobdir + "/" + sub, job_output});
	}
	config c = cfg;
	std::string jid = ctx.job_id_str;
	auto diag = run_bounded(std::max(1.0, left() - 8), [inputs, c, jid]() {
		std::vector<denpex_source> paths;
		for (const auto &p : inputs)
			paths.push_back({p.first.c_str(), p.second ? DENPEX_SOURCE_JOB_OUTPUT : DENPEX_SOURCE_TRUSTED});
		denpex_options o;
		denpex_options_init(&o);
		if (!c.conf_dir.empty())
			o.conf_dir = c.conf_dir.c_str();
		o.max_bytes_per_file = c.max_bytes_per_file + 256;
		o.job_id = jid.c_str();
		o.no_follow = 1;
		// The line is composed to fit, so the cause gives way, not the action.
		o.comment_max_bytes = c.comment_max_bytes;
		char *json = nullptr, *text = nullptr, *line = nullptr, *warn = nullptr, *html = nullptr;
		denpex_status st = denpex_diagnose_sources_report(paths.data(), paths.size(), &o, &json, &text,
								  &line, &warn, &html);
		auto s = [](char *p) { return p ? std::string(p) : std::string(); };
		std::vector<std::string> r = {st == DENPEX_OK ? "1" : "0",
					      st == DENPEX_OK ? s(json) : s(const_cast<char *>(denpex_last_error())),
					      s(text), s(line), s(warn), s(html)};
		denpex_free(html);
		denpex_free(json);
		denpex_free(text);
		denpex_free(line);
		denpex_free(warn);
		return pack(r);
	});
	std::string verdict_json, verdict_text, comment_line, warnings, report_html, diag_err;
	bool diag_ok = false;
	if (diag) {
		auto f = unpack(*diag);
		if (f.size() == 6 && f[0] == "1") {
			diag_ok = true;
			verdict_json = cite_originals(f[1], true);
			verdict_text = cite_originals(f[2], false);
			comment_line = f[3];
			warnings = cite_originals(f[4], false);
			report_html = f[5];
		} else if (f.size() >= 2) {
			diag_err = f[1];
		}
	} else {
		diag_err = "diagnosis did not finish in time or crashed";
	}

	// The admin report first: it must exist even if slurmdbd hangs below.
	std::string verdict = comment_verdict(comment_line, cfg.comment_max_bytes);
	std::string txt;
	txt += "denpex-epilog report for job " + ctx.job_id_str + "\n";
	txt += "state: " + ji.state + (ji.reason.empty() ? "" : " (" + ji.reason + ")") +
	       ", exit code " + exit_pair(ji.exit_code) + ", derived " + exit_pair(ji.derived_ec) + "\n";
	txt += "user: " + ctx.user + " (" + std::to_string(ctx.uid) + ")" + ", nodes: " + ctx.nodelist +
	       ", diagnosed on: " + (ctx.node_context ? ctx.node : std::string("slurmctld")) + "\n";
	txt += "verdict: " + (diag_ok ? verdict : "none (" + diag_err + ")") + "\n\n";
	if (!verdict_text.empty())
		txt += verdict_text + (verdict_text.back() == '\n' ? "" : "\n") + "\n";
	txt += "On " + (ctx.node_context ? ctx.node : std::string("slurmctld")) + ":\n" + gather_summary();
	txt += other_nodes_notes(jfd);
	if (!warnings.empty())
		txt += "Diagnosis warnings:\n" + warnings + (warnings.back() == '\n' ? "" : "\n");
	if (!notes.empty()) {
		txt += "Notes:\n";
		for (const std::string &n : notes)
			txt += "  " + n + "\n";
	}
	std::string err;
	std::string report_where = "none";
	if (ensure_private_dir(cfg.report_dir, 0750, err)) {
		bool ok = true;
		if (diag_ok && !verdict_json.empty())
			ok = write_atomic(cfg.report_dir, key + ".json", verdict_json + "\n", 0640, err);
		if (ok)
			ok = write_atomic(cfg.report_dir, key + ".txt", txt, 0640, err);
		// The verdict page with the timeline (issue 14), beside them.
		if (ok && diag_ok && !report_html.empty())
			ok = write_atomic(cfg.report_dir, key + ".html", report_html, 0640, err);
		if (ok)
			report_where = cfg.report_dir + "/" + key + ".txt";
		else
			log_msg(LOG_ERR, "job %s: report: %s", ctx.job_id_str.c_str(), err.c_str());
	} else {
		log_msg(LOG_ERR, "job %s: report_dir: %s", ctx.job_id_str.c_str(), err.c_str());
	}

	// The verdict in the accounting record, bounded.
	std::string comment_status = "no verdict";
	if (diag_ok && !verdict.empty()) {
		bool admin = cfg.comment_field == comment_field::admin_comment;
		std::string hint = admin ? ji.admin_comment : !ji.comment.empty() ? ji.comment : ctx.env_comment;
		double t_comment = std::min(12.0, left() - 1);
		auto res = run_bounded(t_comment, [job_id, cluster, admin, verdict, hint]() {
			std::string detail;
			comment_outcome o = write_verdict(job_id, cluster, admin, verdict, hint, detail);
			return pack({std::to_string(static_cast<int>(o)), detail});
		});
		const char *field = admin ? "AdminComment" : "Comment";
		if (!res) {
			comment_status = std::string(field) + " not written: no answer from slurmdbd in time";
		} else {
			auto f = unpack(*res);
			int o = f.size() == 2 ? atoi(f[0].c_str()) : -1;
			std::string detail = f.size() == 2 ? f[1] : "";
			if (o == static_cast<int>(comment_outcome::written))
				comment_status = std::string(field) + " written" + (detail.empty() ? "" : " (" + detail + ")");
			else if (o == static_cast<int>(comment_outcome::already_present))
				comment_status = std::string(field) + " already had it";
			else
				comment_status = std::string(field) + " not written: " + detail;
		}
	}
	if (diag_ok && !verdict.empty() && comment_status.find(" not written") != std::string::npos) {
		queued_comment q;
		q.job_id = job_id;
		q.cluster = cluster;
		q.admin = cfg.comment_field == comment_field::admin_comment;
		q.verdict = verdict;
		q.hint = q.admin ? ji.admin_comment : !ji.comment.empty() ? ji.comment : ctx.env_comment;
		q.report = report_where == "none" ? "" : report_where;
		q.queued_at = time(nullptr);
		std::string qerr;
		if (queue_put(cfg.state_dir, q, qerr))
			comment_status += "; queued: retried by later epilog runs and denpex-epilog --flush";
		else
			comment_status += "; could not be queued: " + qerr;
	}
	// The outcome in the report too (the report was written before trying).
	if (report_where != "none") {
		std::string e2;
		write_atomic(cfg.report_dir, key + ".txt", txt + "Accounting: " + comment_status + "\n", 0640, e2);
	}
	log_msg(diag_ok ? LOG_NOTICE : LOG_WARNING, "job %s (%s): %s; report %s; %s",
		ctx.job_id_str.c_str(), ji.state.c_str(),
		diag_ok ? verdict.c_str() : ("no verdict: " + diag_err).c_str(), report_where.c_str(),
		comment_status.c_str());
	if (!cfg.metrics_dir.empty() &&
	    denpex_metrics_record(cfg.metrics_dir.c_str(), diag_ok ? verdict_json.c_str() : nullptr, mono_now() - t0,
				  !diag_ok || report_where == "none", std::max(0.5, std::min(5.0, left()))) != DENPEX_OK)
		log_msg(LOG_ERR, "job %s: metrics_dir: %s", ctx.job_id_str.c_str(), denpex_last_error());
	if (!cfg.keep_state) {
		int sfd = open(cfg.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd >= 0) {
			remove_tree(sfd, key);
			close(sfd);
		}
	}
	// EpilogSlurmctld diagnosing: the nodes left a shared spool dir to us.
	if (!ctx.node_context && spool_job.empty()) {
		spool_job = ctx.spool_base + "/" + ctx.job_id_str;
		spool = check_job_spool(ctx.spool_base, ctx.job_id, ctx.uid, ji.restart_cnt, ji.start, "");
	}
	remove_spool(true);
}

// Verdicts queued while slurmdbd was away: written now, bounded in count
// and time; the job's report notes the outcome.
void flush_comment_queue(const config &cfg, size_t max, double budget_s)
{
	double until = mono_now() + budget_s;
	for (const queued_comment &q : queue_list(cfg.state_dir, max)) {
		double left = until - mono_now();
		if (left < 2)
			break;
		if (q.queued_at > 0 && time(nullptr) - q.queued_at > 7 * 86400) {
			log_msg(LOG_WARNING, "job %u: queued verdict older than 7 days; dropped", q.job_id);
			queue_drop(cfg.state_dir, q.name);
			continue;
		}
		auto res = run_bounded(std::min(10.0, left), [q]() {
			std::string detail;
			comment_outcome o = write_verdict(q.job_id, q.cluster, q.admin, q.verdict, q.hint, detail);
			return pack({std::to_string(static_cast<int>(o)), detail});
		});
		std::vector<std::string> f = res ? unpack(*res) : std::vector<std::string>();
		int o = f.size() == 2 ? atoi(f[0].c_str()) : -1;
		const char *field = q.admin ? "AdminComment" : "Comment";
		if (o != static_cast<int>(comment_outcome::written) &&
		    o != static_cast<int>(comment_outcome::already_present)) {
			log_msg(LOG_INFO, "job %u: queued %s still not written (%s)", q.job_id, field,
				f.size() == 2 ? f[1].c_str() : "no answer from slurmdbd in time");
			continue;
		}
		queue_drop(cfg.state_dir, q.name);
		log_msg(LOG_NOTICE, "job %u: queued verdict written to %s", q.job_id, field);
		// Append the outcome to the job's report (ours: root's, in report_dir).
		if (!q.report.empty() && q.report.rfind(cfg.report_dir + "/", 0) == 0) {
			int fd = open(q.report.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				char when[64];
				time_t now = time(nullptr);
				struct tm tm;
				gmtime_r(&now, &tm);
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
				std::string line = "Accounting: " + std::string(field) + " written later from the queue (" +
						   when + ")\n";
				if (write(fd, line.data(), line.size()) < 0)
					log_msg(LOG_DEBUG, "job %u: report: %s", q.job_id, strerror(errno));
				close(fd);
			}
		}
	}
}

void epilog_run::run()
{
	// By hand: say what is meant, do nothing.
	if (env("SLURM_JOB_ID").empty() && env("SLURM_SCRIPT_CONTEXT").empty()) {
		log_msg(LOG_ERR, "not started by Slurm (no SLURM_JOB_ID): denpex-epilog is Slurm's Epilog (run by slurmd "
				 "as root) or EpilogSlurmctld; to diagnose logs by hand use denpex diagnose; nothing done");
		return;
	}
	if (!read_env())
		return;
	if (ctx.node_context && geteuid() != 0) {
		log_msg(LOG_ERR, "must run as root (slurmd runs the node Epilog as root; it reads the job's files as "
				 "the job's user and /dev/kmsg); running as uid %u; nothing done",
			static_cast<unsigned>(geteuid()));
		return;
	}
	if (ctx.opted_out) {
		log_msg(LOG_INFO, "job %s: opted out (--denpex=off); skipped", ctx.job_id_str.c_str());
		return;
	}
	// On the controller there is nothing to gather: only the diagnosing site
	// does anything there.
	if (!ctx.node_context && cfg.diagnose_in != diagnose_site::slurmctld)
		return;
	// libslurm only now: it exits the process on an unreadable slurm.conf
	// (the watchdog still exits 0).
	slurm_io_init();
	diagnoses_here = true;
	if (ctx.node_context) {
		std::string first = hostlist_first(ctx.nodelist);
		diagnoses_here = cfg.diagnose_in == diagnose_site::node &&
				 (first.empty() || first == ctx.node);
	}
	std::string why;
	if (!wanted(why)) {
		if (diagnoses_here || unknown_job)
			log_msg(unknown_job ? LOG_WARNING : LOG_INFO, "job %s: %s; skipped", ctx.job_id_str.c_str(),
				why.c_str());
		// Nothing to diagnose; the job's spool dir still goes.
		if (ctx.node_context && !unknown_job) {
			spool_job = ctx.spool_base + "/" + ctx.job_id_str;
			spool = check_job_spool(ctx.spool_base, ctx.job_id, ctx.uid, ji.restart_cnt, ji.start,
						node_file_name(ctx.node));
			remove_spool(diagnoses_here);
		}
		return;
	}
	budget = cfg.max_total_bytes;
	int jfd = open_job_state_dir();
	if (jfd < 0)
		return;
	// What every job's staging on this node may take together.
	int sfd = open(cfg.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd >= 0) {
		unsigned entries = 0;
		uint64_t used = disk_bytes(sfd, 0, entries);
		close(sfd);
		uint64_t room = used < cfg.max_state_bytes ? cfg.max_state_bytes - used : 0;
		if (room < budget) {
			budget = room;
			rep.skipped.push_back({cfg.state_dir, "already holds " + std::to_string(used) +
							  " bytes (max_state_bytes " + std::to_string(cfg.max_state_bytes) +
							  "): " + std::to_string(room) + " bytes left for this job's copies"});
		}
	}
	if (diagnoses_here && left() > 30)
		flush_comment_queue(cfg, 3, std::min(15.0, left() / 4));
	if (ctx.node_context)
		gather_node(jfd);
	if (diagnoses_here)
		diagnose(jfd);
	else
		log_msg(LOG_DEBUG, "job %s: gathered %zu files on %s (%zu skipped)", ctx.job_id_str.c_str(),
			rep.files.size(), ctx.node.c_str(), rep.skipped.size());
	close(jfd);
}

volatile pid_t worker_pid = 0;

// Exit 0 whatever happens to us: a signal death would drain the node.
extern "C" void on_fatal_signal(int)
{
	if (worker_pid > 0) {
		kill(-worker_pid, SIGKILL);
		kill(worker_pid, SIGKILL);
	}
	_exit(0);
}

int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-c CONFIG] [--flush] [--version]\n"
		"  Slurm's Epilog / EpilogSlurmctld (see denpex-epilog(8)); CONFIG defaults to %s\n"
		"  --flush  write verdicts queued while slurmdbd was unreachable, then exit\n",
		argv0, DENPEX_SYSCONFDIR "/denpex.yaml");
	return 0;
}

} // namespace

} // namespace denpex::epilog

int main(int argc, char **argv)
{
	using namespace denpex::epilog;
	try {
		// Slurm gives no PATH; set ours and keep what we create private.
		setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
		umask(027);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGTERM, on_fatal_signal);
		signal(SIGINT, on_fatal_signal);
		signal(SIGHUP, on_fatal_signal);
		signal(SIGALRM, on_fatal_signal);
		alarm(120); // a safety net until the configured deadline is known
		std::string conf_path = DENPEX_SYSCONFDIR "/denpex.yaml";
		bool flush = false;
		for (int i = 1; i < argc; i++) {
			std::string a = argv[i];
			if ((a == "-c" || a == "--config") && i + 1 < argc)
				conf_path = argv[++i];
			else if (a == "--flush")
				flush = true;
			else if (a == "--version") {
				printf("denpex-epilog %s (config %s)\n", PACKAGE_VERSION, DENPEX_SYSCONFDIR "/denpex.yaml");
				return 0;
			} else
				return usage(argv[0]);
		}
		log_open();
		double t0 = mono_now();
		config_result cr = config_load(conf_path);
		for (const std::string &e : cr.errors)
			log_msg(LOG_ERR, "config: %s", e.c_str());

		// The watchdog: the worker runs in its own process group and dies at
		// the deadline with everything it started.
		alarm(cr.cfg.deadline_s + 5);
		pid_t pid = fork();
		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGALRM, SIG_DFL);
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			try {
				if (flush) {
					if (geteuid() != 0) {
						log_msg(LOG_ERR, "--flush must run as root (the queue is root's, in %s/.queue)",
							cr.cfg.state_dir.c_str());
					} else {
						slurm_io_init();
						flush_comment_queue(cr.cfg, 1000, cr.cfg.deadline_s - 3);
					}
					_exit(0);
				}
				epilog_run r(cr.cfg, t0);
				r.run();
			} catch (const std::exception &e) {
				log_msg(LOG_ERR, "internal error: %s", e.what());
			} catch (...) {
				log_msg(LOG_ERR, "internal error");
			}
			_exit(0);
		}
		if (pid < 0) {
			log_msg(LOG_ERR, "fork: %s; nothing done", strerror(errno));
			return 0;
		}
		setpgid(pid, pid);
		worker_pid = pid;
		double deadline = t0 + cr.cfg.deadline_s;
		for (;;) {
			int st;
			pid_t w = waitpid(pid, &st, WNOHANG);
			if (w == pid || (w < 0 && errno != EINTR))
				break;
			if (mono_now() >= deadline) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				log_msg(LOG_ERR, "job %s: deadline of %u s reached; stopped",
					getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "?", cr.cfg.deadline_s);
				for (int i = 0; i < 100 && waitpid(pid, &st, WNOHANG) == 0; i++)
					sleep_ms(10);
				break;
			}
			sleep_ms(50);
		}
	} catch (const std::exception &e) {
		denpex::epilog::log_msg(LOG_ERR, "internal error: %s", e.what());
	} catch (...) {
		denpex::epilog::log_msg(LOG_ERR, "internal error");
	}
	return 0;
}
