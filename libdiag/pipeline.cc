#include "pipeline.hh"

#include "fr/fr_bridge.hh"
#include "reading/line_reader.hh"
#include "reading/plugin_records.hh"
#include "reading/ray_session.hh"
#include "reading/sacct_reader.hh"
#include "reading/source_sniff.hh"
#include "reading/text_log_reader.hh"
#include "reading/torchelastic_reader.hh"
#include "reading/wandb_run.hh"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef DENPEX_SYSCONFDIR
#define DENPEX_SYSCONFDIR "/etc/denpex"
#endif

namespace diag {

namespace {

constexpr uint64_t max_structured_bytes = 64ull << 20; // JSON and sacct sources
constexpr int max_depth = 16;

class fd_guard {
public:
	explicit fd_guard(int fd) : fg_fd(fd) {}
	~fd_guard() { if (fg_fd >= 0) close(fg_fd); }
	fd_guard(const fd_guard &) = delete;
	fd_guard &operator=(const fd_guard &) = delete;
private:
	int fg_fd;
};

// Structured sources are small: gather them whole, within a bound.
std::string slurp(line_reader &lr, bool &too_big)
{
	std::string all;
	std::string_view l;
	too_big = false;
	while (lr.next(l)) {
		if (all.size() + l.size() + 1 > max_structured_bytes) {
			too_big = true;
			break;
		}
		all.append(l);
		if (!lr.truncated_line())
			all.push_back('\n');
	}
	return all;
}

} // namespace

std::string resolve_conf_dir(const std::string &explicit_dir)
{
	if (!explicit_dir.empty())
		return explicit_dir;
	if (const char *e = getenv("DENPEX_CONF_DIR"); e && *e)
		return e;
	struct stat st;
	std::string installed = std::string(DENPEX_SYSCONFDIR) + "/signatures";
#ifdef DENPEX_SRCCONFDIR
	// Not installed yet: the tree it was built from (README's first command).
	std::string built = std::string(DENPEX_SRCCONFDIR) + "/signatures";
	if (stat(installed.c_str(), &st) != 0 && stat(built.c_str(), &st) == 0)
		return DENPEX_SRCCONFDIR;
#endif
	return DENPEX_SYSCONFDIR;
}

bool analysis::init(const pipeline_options &opts, std::string &err)
{
	an_opts = opts;
	std::string dir = resolve_conf_dir(opts.conf_dir);
	if (!an_rules.load_dir(dir + "/signatures", err))
		return false;
	an_rules.finalize();
	if (!an_kn.load(dir, err))
		return false;
	if (!opts.job_id.empty())
		an_ev.job.job_id = opts.job_id;
	return true;
}

void analysis::warn(const std::string &msg)
{
	if (an_opts.warn)
		an_opts.warn(msg);
	an_ev.warnings.push_back(msg);
}

void analysis::add_path(const std::string &path)
{
	add_file(path, 0);
}

void analysis::add_file(const std::string &path, int depth)
{
	// Walking into a Ray session or a W&B run: only their logs are read.
	if (depth > 0 && (ray_walk_skips(path) || wandb_walk_skips(path)))
		return;
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	if (an_opts.no_follow)
		flags |= O_NOFOLLOW;
	int fd = open(path.c_str(), flags);
	if (fd < 0) {
		if (errno == ELOOP && an_opts.no_follow)
			warn(path + ": skipped: a symbolic link");
		else
			warn(path + ": skipped: " + strerror(errno));
		return;
	}
	fd_guard guard(fd);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		warn(path + ": skipped: " + strerror(errno));
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (depth >= max_depth) {
			warn(path + ": skipped: directories nested too deep");
			return;
		}
		DIR *d = fdopendir(dup(fd));
		if (!d) {
			warn(path + ": skipped: " + strerror(errno));
			return;
		}
		std::vector<std::string> names;
		while (struct dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (n == "." || n == "..")
				continue;
			names.push_back(n);
		}
		closedir(d);
		std::sort(names.begin(), names.end());
		for (const auto &n : names)
			add_file(path + (path.empty() || path.back() == '/' ? "" : "/") + n, depth + 1);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		warn(path + ": skipped: not a regular file");
		return;
	}
	// Reads may block from here on (NFS); the descriptor was opened
	// non-blocking only so that a FIFO could not hang the open.
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	line_reader lr(fd, an_opts.max_bytes_per_file, an_opts.max_line);
	read_source(lr, path, true);
}

void analysis::add_fd(int fd, const std::string &name)
{
	line_reader lr(fd, 0, an_opts.max_line);
	read_source(lr, name, false);
}

void analysis::read_source(line_reader &lr, const std::string &path, bool seekable_path)
{
	std::string_view head = lr.peek(64 * 1024);
	if (lr.error()) {
		warn(path + ": skipped: " + strerror(lr.error()));
		return;
	}
	sniff_result sr = sniff_source(head);
	if (sr.what == sniffed::empty) {
		warn(path + ": skipped: empty");
		return;
	}
	if (sr.what == sniffed::binary) {
		warn(path + ": skipped: binary data");
		return;
	}
	if (an_opts.progress)
		an_opts.progress(path, 0);
	source_file sf;
	sf.path = path;
	sf.kind = sr.kind;
	if (sr.what == sniffed::fr_pickle) {
		if (!seekable_path) {
			warn(path + ": skipped: a flight-recorder dump must be given as a file");
			return;
		}
		an_fr_paths.push_back(path);
		an_usable++;
		return;
	}
	if (sr.what == sniffed::text && (sr.kind == source_kind::kernel_log || sr.kind == source_kind::nccl_log)) {
		// NCCL debug files are named by host; a job log that is mostly
		// NCCL lines is not, and its folder is a run's, not a node's.
		std::string h = host_from_path(sr.kind == source_kind::nccl_log ? path.substr(path.rfind('/') + 1) : path);
		if (!h.empty())
			sf.host_hint = an_ev.intern_host(h);
	}
	if (sr.what == sniffed::json || sr.what == sniffed::sacct_text) {
		bool too_big = false;
		std::string text = slurp(lr, too_big);
		if (too_big) {
			warn(path + ": skipped: structured file larger than 64 MiB");
			return;
		}
		if (sr.what == sniffed::sacct_text) {
			if (read_sacct_text(text, an_ev)) {
				an_usable++;
				an_ev.add_source(sf);
			} else {
				warn(path + ": skipped: not sacct -P output with JobID and State columns");
			}
			return;
		}
		if (looks_like_fr_json(text)) {
			if (seekable_path) {
				an_fr_paths.push_back(path);
				an_usable++;
			}
			return;
		}
		sf.kind = source_kind::sacct_json;
		uint32_t idx = an_ev.add_source(sf);
		if (read_sacct_json(text, an_ev)) {
			an_usable++;
			return;
		}
		an_ev.source(idx).kind = source_kind::torchelastic;
		if (read_torchelastic(text, idx, an_rules, an_ev)) {
			an_usable++;
			return;
		}
		if (read_plugin_records(text, idx, an_ev)) {
			an_ev.source(idx).kind = source_kind::rank_map_file;
			an_usable++;
			return;
		}
		if (read_wandb_json(text, idx, an_ev)) {
			an_ev.source(idx).kind = source_kind::job_log;
			an_usable++;
			return;
		}
		// Not a JSON we know (or not JSON at all: a log whose first line
		// is a dict): read it as a log.
		an_ev.source(idx).kind = source_kind::job_log;
		line_reader mem(text, an_opts.max_line);
		read_text_log(mem, idx, source_kind::job_log, an_rules, an_ev);
		an_usable++;
		return;
	}
	uint32_t idx = an_ev.add_source(sf);
	int ray_pid;
	std::string ray_job;
	if (ray_file_hint(path, ray_pid, ray_job))
		an_ev.links.ray_file_pid[idx] = {ray_pid, ray_job};
	if (!read_text_log(lr, idx, sr.kind, an_rules, an_ev))
		warn(path + ": read error after " + std::to_string(lr.bytes_read()) + " bytes: " + strerror(lr.error()));
	if (lr.bytes_skipped())
		an_ev.warnings.push_back(path + ": " + std::to_string(lr.bytes_skipped()) +
					 " bytes in the middle skipped (byte cap); head and tail read");
	if (an_opts.progress)
		an_opts.progress(path, lr.bytes_read());
	an_usable++;
}

verdict analysis::run()
{
	unwrap_ray(an_ev);
	settle_wandb(an_ev);
	resolve_identities(an_ev);
	clock_options co;
	co.default_tz_offset_s = an_opts.default_tz_offset_s;
	co.tz_given = an_opts.tz_given;
	if (!an_fr_paths.empty())
		an_fr = analyse_fr_paths(an_fr_paths, an_ev);
	an_clock = align_clocks(an_ev, co, an_fr.anchors);
	diagnosis_input in;
	in.ev = &an_ev;
	in.kn = &an_kn;
	in.clock = &an_clock;
	in.fr = an_fr;
	verdict v = diagnose(in);
	settle_ray(an_ev, v.first_event, v.cls);
	link_wandb(an_ev, v.first_event);
	v.link_wandb = an_ev.links.wandb;
	v.link_ray = an_ev.links.ray;
	if (an_clock.zone_inferred) {
		char buf[96];
		int z = an_clock.zone_offset_s;
		snprintf(buf, sizeof(buf), "local times without a zone were read as UTC%c%02d:%02d (inferred)", z < 0 ? '-' : '+',
			 std::abs(z) / 3600, std::abs(z) % 3600 / 60);
		v.notes.push_back(buf);
	}
	for (const auto &w : an_ev.warnings)
		if (w.find("bytes in the middle skipped") != std::string::npos)
			v.notes.push_back(w);
	return v;
}

} // namespace diag
