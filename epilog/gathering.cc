#include "gathering.hh"

#include "attribution.hh"
#include "expand.hh"
#include "gpu_health_collect.hh"
#include "job_context.hh"
#include "kmsg.hh"
#include "log.hh"
#include "own_files.hh"
#include "report.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace denpex::epilog {

namespace {

// Less free space than this in state_dir: the staging goes elsewhere.
constexpr uint64_t min_free_state_bytes = 1u << 20;

// Bytes on disk under dirfd (bounded walk: staging has few levels).
uint64_t disk_bytes(int dirfd, int depth, unsigned &entries)
{
	constexpr unsigned max_entries = 100000;
	uint64_t total = 0;
	for (const std::string &name : dir_names(dirfd, "", max_entries - entries)) {
		entries++;
		struct stat st;
		if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		total += static_cast<uint64_t>(st.st_blocks) * 512;
		if (S_ISDIR(st.st_mode) && depth < 8 && entries < max_entries) {
			int sub = openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				total += disk_bytes(sub, depth + 1, entries);
				close(sub);
			}
		}
	}
	return total;
}

// A job dir's age that no clock jump changes: every run that uses it leaves
// ".seen.<boot id>" with this boot's CLOCK_BOOTTIME; a dir seen by this boot
// is judged on that clock. Other dirs (other nodes' in a shared state dir,
// or from before a reboot) are judged on their mtime against the file
// system's "now" (a file touched now: a shared dir has its server's clock).
std::string boot_id()
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	char b[64] = {};
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;
	if (fd >= 0)
		close(fd);
	std::string id;
	for (ssize_t i = 0; i < n; i++)
		if (isxdigit(static_cast<unsigned char>(b[i])) || b[i] == '-')
			id += b[i];
	return id.empty() ? "unknown" : id;
}

double boot_seconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void mark_seen(int jfd)
{
	std::string name = ".seen." + boot_id();
	std::string now = std::to_string(static_cast<long long>(boot_seconds())) + "\n";
	int fd = openat(jfd, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, now.data(), now.size()) < 0)
		log_msg(LOG_DEBUG, "%s: %s", name.c_str(), strerror(errno));
	close(fd);
}

// Seconds since this boot last used the dir, or -1 when it never did.
double boot_age(int sfd, const char *dir)
{
	std::string rel = std::string(dir) + "/.seen." + boot_id();
	auto regular = [](const struct stat &st) { return S_ISREG(st.st_mode); };
	std::optional<std::string> seen = read_own_file(sfd, rel, 31, regular);
	if (!seen || seen->empty())
		return -1;
	return boot_seconds() - strtod(seen->c_str(), nullptr);
}

time_t fs_now(int sfd)
{
	int fd = openat(sfd, ".now", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	bool ok = fd >= 0 && futimens(fd, nullptr) == 0 && fstat(fd, &st) == 0;
	if (fd >= 0)
		close(fd);
	return ok ? st.st_mtime : time(nullptr);
}

// State dirs left by nodes that came after the diagnosis (or crashed).
void housekeeping(const run_state &s, int sfd)
{
	// No epilog run is older than its deadline: a job dir older than a few
	// deadlines is a leftover (a node that gathered but never diagnosed).
	time_t max_age = std::max<time_t>(600, 3 * static_cast<time_t>(s.cfg.deadline_s));
	time_t old = fs_now(sfd) - max_age;
	std::vector<std::string> stale;
	for (const std::string &name : dir_names(sfd, "", 100000, false)) {
		if (stale.size() >= 20)
			break;
		if (name == s.key)
			continue;
		double age = boot_age(sfd, name.c_str());
		struct stat st;
		if (age >= 0 ? age > static_cast<double>(max_age)
			     : fstatat(sfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime < old)
			stale.push_back(name);
	}
	for (const std::string &n : stale)
		remove_tree(sfd, n);
}

// dcgmi and nvidia-smi on this node, as nobody: they need no privilege,
// and root gains nothing by running a tool that parses driver output.
void collect_local_gpu_health(run_state &s, int jfd)
{
	std::string node = "nodes/" + s.node_dir() + "/";
	struct tool {
		const char *source, *file;
		std::string path;
		std::vector<std::string> args;
	};
	std::vector<tool> tools = {{"dcgmi", "dcgmi-stats.txt", s.cfg.dcgmi_path, {"stats", "-j", s.ctx.job_id_str, "-v"}},
				   {"nvidia-smi", "nvidia-smi.xml", s.cfg.nvidia_smi_path, {"-q", "-x"}}};
	for (const tool &t : tools) {
		if (!config_dcgm(s.cfg, t.source))
			continue;
		double budget = std::min<double>(s.cfg.dcgm_timeout_s, s.left() - 10);
		std::string out, err;
		if (budget < 1)
			err = "no time left before the deadline";
		else if (run_tool(t.path, t.args, 65534, 65534, budget, 4u << 20, out, err) && !out.empty() &&
			 write_file_at(jfd, node + t.file, out))
			s.rep.files.push_back({t.path, node + t.file, out.size(), out.size(), false});
		if (!err.empty())
			s.rep.skipped.push_back({t.path, err});
	}
}

// The node's kernel messages of the job window that are the job's.
void collect_kernel_messages(run_state &s, int jfd)
{
	if (s.cfg.kernel_log != kernel_source::kmsg || s.cfg.kernel_max_bytes == 0)
		return;
	// The window is on slurmctld's clock (the job's start). slurmctld's end
	// time may be the expected end of a job it still shows running, so it
	// does not move the kernel's times; an end minutes behind this node's
	// clock is noted (a clock that jumped ahead, or a late epilog).
	time_t now = time(nullptr);
	// printk counts from boot; the plugin's marker says when boot was on the
	// clock the job's own logs were written with. Kernel lines go on that
	// clock, so that an NTP step after the job's start moves neither them
	// nor the window against the job's lines.
	double boot_epoch = boot_epoch_now();
	double moved_s = 0;
	if (s.spool.ok && s.spool.boot_epoch_at_start > 0) {
		moved_s = boot_epoch - s.spool.boot_epoch_at_start;
		boot_epoch = s.spool.boot_epoch_at_start;
	}
	time_t moved = static_cast<time_t>(std::llround(moved_s));
	if (moved > 2 || moved < -2)
		s.node_notes.push_back("this node's clock moved " + std::to_string(static_cast<long long>(moved)) +
				       " s since the job's start: kernel message times are on its clock at the start, "
				       "the clock of the job's own logs");
	if (s.ji.end > 0 && now - s.ji.end > 600)
		s.node_notes.push_back("this node's clock is " + std::to_string(static_cast<long long>(now - s.ji.end)) +
				       " s past slurmctld's job end (a clock jump, or a late epilog)" +
				       (moved > 2 || moved < -2 ? "" : ": kernel message times are this node's"));
	now = kmsg_window_end(now, moved_s);
	time_t from = s.ji.start > 0 ? s.ji.start - static_cast<time_t>(s.cfg.kernel_slack_s) : now - 3600;
	time_t to = now;
	job_scope scope;
	scope.job_id = s.ctx.job_id;
	scope.uid = s.ctx.uid;
	scope.pids = s.spool.pids;
	scope.gpu_buses = gpu_buses_of("/proc/driver/nvidia/gpus", s.ctx.job_gpus);
	scope.node_exclusive = s.ji.exclusive;
	scope.start = static_cast<double>(s.ji.start);
	// No start from slurmctld: the plugin's root-owned marker was written at
	// the job's start. Without either, a uid, pid or GPU in a line could be an
	// earlier job's: only lines naming the job's cgroup are its.
	if (scope.start <= 0 && s.spool.ok) {
		struct stat st;
		std::string marker = s.spool_job + "/" + spool_marker_prefix + node_file_name(s.ctx.node);
		if (lstat(marker.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0)
			scope.start = static_cast<double>(st.st_mtime);
	}
	if (scope.start <= 0) {
		scope.uid = static_cast<uid_t>(-1);
		scope.pids.clear();
		scope.gpu_buses.clear();
		scope.node_exclusive = false;
		s.node_notes.push_back("the job's start is unknown (no answer from slurmctld, no spool marker): kernel "
				       "lines taken only when they name the job's cgroup");
	}
	std::string err;
	uint64_t others = 0;
	std::string k =
		kmsg_window("/dev/kmsg", from, to, s.ctx.node, s.cfg.kernel_max_bytes, scope, &others, err, boot_epoch);
	if (!err.empty())
		s.rep.skipped.push_back({"/dev/kmsg", err});
	if (others > 0)
		s.rep.skipped.push_back({"/dev/kmsg", std::to_string(others) +
							  " line(s) of node-level events not attributed to this job "
							  "(no cgroup, task pid, uid or GPU of the job); not used"});
	if (!k.empty()) {
		std::string rel = "nodes/" + s.node_dir() + "/kernel.log";
		if (write_file_at(jfd, rel, k))
			s.rep.files.push_back({"/dev/kmsg", rel, k.size(), k.size(), false});
	}
}

} // namespace

std::string printable(const std::string &s)
{
	std::string o;
	for (unsigned char c : s)
		o += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
	return o;
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

namespace {

// Why state_dir cannot take this job's staging ("" when it can): not ours,
// not writable, or (nearly) full.
int open_in_state_dir(run_state &s, std::string &why)
{
	if (!ensure_private_dir(s.cfg.state_dir, 0700, why))
		return -1;
	int sfd = open(s.cfg.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0) {
		why = s.cfg.state_dir + ": " + strerror(errno);
		return -1;
	}
	struct statvfs vs;
	if (fstatvfs(sfd, &vs) == 0 && static_cast<uint64_t>(vs.f_bavail) * vs.f_frsize < min_free_state_bytes) {
		why = s.cfg.state_dir + ": only " + std::to_string(static_cast<uint64_t>(vs.f_bavail) * vs.f_frsize) +
		      " bytes free";
		close(sfd);
		return -1;
	}
	housekeeping(s, sfd);
	int jfd = open_subdir(sfd, s.key, true);
	int e = errno;
	close(sfd);
	if (jfd < 0)
		why = s.cfg.state_dir + "/" + s.key + ": " + strerror(e);
	else
		mark_seen(jfd);
	return jfd;
}

} // namespace

int open_job_state_dir(run_state &s)
{
	std::string why;
	int jfd = open_in_state_dir(s, why);
	if (jfd >= 0) {
		s.stage_dir = s.cfg.state_dir + "/" + s.key;
		return jfd;
	}
	log_msg(LOG_ERR, "job %s: state_dir unusable: %s", s.ctx.job_id_str.c_str(), why.c_str());
	// The diagnosing site still diagnoses what it can see itself, staged in
	// a private dir of its own (mkdtemp: 0700, a fresh name); the others'
	// shares cannot reach it.
	if (!s.diagnoses_here)
		return -1;
	char tmpl[] = "/tmp/denpex-epilog.XXXXXX";
	if (!mkdtemp(tmpl)) {
		log_msg(LOG_ERR, "job %s: no private staging dir either: %s", s.ctx.job_id_str.c_str(), strerror(errno));
		return -1;
	}
	jfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jfd < 0)
		return -1;
	s.stage_dir = tmpl;
	s.stage_fallback = true;
	s.notes.push_back("state_dir unusable (" + why + "): staged in " + s.stage_dir +
			  ", without the other nodes' shares");
	return jfd;
}

void cap_budget_by_state_dir(run_state &s)
{
	if (s.stage_fallback)
		return;
	int sfd = open(s.cfg.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return;
	unsigned entries = 0;
	uint64_t used = disk_bytes(sfd, 0, entries);
	close(sfd);
	uint64_t room = used < s.cfg.max_state_bytes ? s.cfg.max_state_bytes - used : 0;
	if (room < s.budget) {
		s.budget = room;
		s.rep.skipped.push_back({s.cfg.state_dir, "already holds " + std::to_string(used) +
								  " bytes (max_state_bytes " +
								  std::to_string(s.cfg.max_state_bytes) + "): " +
								  std::to_string(room) + " bytes left for this job's copies"});
	}
}

std::string gather_summary(const run_state &s)
{
	// A job with thousands of files gets the first of them, then a count.
	constexpr size_t max_lines = 100;
	std::string t = "Collected (user files read as uid " + std::to_string(s.cred().uid) + "):\n";
	uint64_t more_bytes = 0;
	for (size_t i = 0; i < s.rep.files.size(); i++) {
		const copied_file &f = s.rep.files[i];
		if (i >= max_lines) {
			more_bytes += f.bytes;
			continue;
		}
		t += "  " + printable(f.src) + " -> " + printable(f.dst) + " (" + std::to_string(f.bytes) + " of " +
		     std::to_string(f.src_size) + " bytes" + (f.truncated ? ", head and tail only" : "") + ")\n";
	}
	if (s.rep.files.size() > max_lines)
		t += "  ... and " + std::to_string(s.rep.files.size() - max_lines) + " more files (" +
		     std::to_string(more_bytes) + " bytes)\n";
	t += "Skipped:\n";
	size_t dup = 0, shown = 0, more = 0;
	// "already collected" is the normal case of a shared spool: counted only.
	for (const skipped_file &k : s.rep.skipped) {
		if (k.reason == "already collected")
			dup++;
		else if (shown++ < max_lines)
			t += "  " + printable(k.src) + ": " + printable(k.reason) + "\n";
		else
			more++;
	}
	if (more)
		t += "  ... and " + std::to_string(more) + " more\n";
	if (dup)
		t += "  " + std::to_string(dup) + " files already collected by another node\n";
	for (const std::string &n : s.node_notes)
		t += "Note: " + printable(n) + "\n";
	return t;
}

void gather_job_output(run_state &s, int jfd)
{
	if (s.output_copied)
		return;
	s.output_copied = true;
	const job_ctx &ctx = s.ctx;
	const job_info &ji = s.ji;
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
	s.out_path = resolve_path(expand_pattern(out_pat, ev), work_dir);
	s.err_path = resolve_path(expand_pattern(err_pat, ev), work_dir);
	// First, before the spool's files spend the byte budget.
	if (!s.out_path.empty() && s.out_path != "/dev/null")
		safe_copy_file(s.out_path, s.cred(), s.limits(), jfd, "job/stdout", s.rep);
	if (!s.err_path.empty() && s.err_path != s.out_path && s.err_path != "/dev/null")
		safe_copy_file(s.err_path, s.cred(), s.limits(), jfd, "job/stderr", s.rep);
	// What slurmctld says of the job, in scontrol's words (trusted: from
	// slurmctld, not from the job): a launch failure is named there.
	if (ji.loaded)
		write_file_at(jfd, "job/scontrol.txt",
			      "JobId=" + ctx.job_id_str + " JobState=" + ji.state + " Reason=" +
				      (ji.reason.empty() ? std::string("None") : ji.reason) + " ExitCode=" +
				      exit_pair(ji.exit_code) + "\n");
}

void remove_spool(run_state &s, bool shared_ok)
{
	if (s.cfg.keep_spool || s.spool_job.empty())
		return;
	if (s.spool.ok && s.spool.other_nodes && !shared_ok)
		return;
	// Only a dir verified as the job's, or one in the admin's own spool
	// (SPANK_DENPEX_SPOOL comes from the job's side).
	if (!s.spool.ok && s.ctx.spool_base != s.cfg.spool_dir)
		return;
	if (s.spool.ok && !same_job_spool(s.ctx.spool_base, s.ctx.job_id, s.spool))
		return;
	int sfd = open(s.ctx.spool_base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		return;
	struct stat st;
	if (fstat(sfd, &st) == 0 && (st.st_uid == 0 || st.st_uid == geteuid()))
		remove_tree(sfd, s.ctx.job_id_str);
	close(sfd);
}

void gather_node(run_state &s, int jfd)
{
	if (s.diagnoses_here)
		gather_job_output(s, jfd);
	// The job's spool dir, only when the plugin made it for this job; read
	// as the job user.
	s.spool_job = s.ctx.spool_base + "/" + s.ctx.job_id_str;
	s.spool = check_job_spool(s.ctx.spool_base, s.ctx.job_id, s.ctx.uid, s.ji.restart_cnt, s.ji.start,
				  node_file_name(s.ctx.node));
	if (s.spool.ok) {
		safe_copy_tree(s.spool_job, s.cred(), s.limits(), jfd, "spool", s.rep);
		if (!same_job_spool(s.ctx.spool_base, s.ctx.job_id, s.spool)) {
			remove_tree(jfd, "spool");
			s.rep.skipped.push_back({s.spool_job, "replaced while it was read; copy discarded"});
		}
	} else {
		s.rep.skipped.push_back({s.spool_job, s.spool.why});
	}
	collect_kernel_messages(s, jfd);
	collect_local_gpu_health(s, jfd);
	// What this node took and left, for the report written elsewhere.
	std::string n = s.node_dir();
	write_file_at(jfd, "notes/" + n, gather_summary(s));
	int dfd = open_subdir(jfd, "done", true);
	if (dfd >= 0) {
		int fd = openat(dfd, n.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		close(dfd);
	}
	remove_spool(s, false);
}

} // namespace denpex::epilog
