#include "pipeline.hh"

#include "aligning/identities.hh"
#include "deciding/corroboration.hh"
#include "fr/fr_bridge.hh"
#include "reading/gpu_health_readers.hh"
#include "reading/gzip_text.hh"
#include "reading/launch_hosts.hh"
#include "reading/fd_io.hh"
#include "reading/file_prefetch.hh"
#include "reading/line_reader.hh"
#include "reading/plugin_records.hh"
#include "reading/ray_session.hh"
#include "reading/qacct_record.hh"
#include "reading/sacct_reader.hh"
#include "reading/slurm_nodelist.hh"
#include "reading/source_sniff.hh"
#include "reading/text_log_reader.hh"
#include "reading/timestamp.hh"
#include "reading/torchelastic_reader.hh"
#include "reading/wandb_run.hh"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <memory>
#include <set>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef DENPEX_SYSCONFDIR
#define DENPEX_SYSCONFDIR "/etc/denpex"
#endif
#ifndef DENPEX_DATADIR
#define DENPEX_DATADIR "/usr/share/denpex"
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

namespace {

bool is_dir(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

std::string resolve_conf_dir(const std::string &explicit_dir)
{
	if (!explicit_dir.empty())
		return explicit_dir;
	if (const char *e = getenv("DENPEX_CONF_DIR"); e && *e)
		return e;
#ifdef DENPEX_SRCCONFDIR
	// Not installed yet: the tree it was built from (README's first command).
	bool installed = is_dir(std::string(DENPEX_DATADIR) + "/signatures") ||
			 is_dir(std::string(DENPEX_SYSCONFDIR) + "/signatures");
	if (!installed && is_dir(std::string(DENPEX_SRCCONFDIR) + "/signatures"))
		return DENPEX_SRCCONFDIR;
#endif
	return DENPEX_SYSCONFDIR;
}

signature_dirs resolve_signature_dirs(const std::string &conf_dir)
{
	signature_dirs d;
	// Installed, the shipped rules live in the data directory, apart from
	// what a site edits (a signatures/ left in sysconfdir by an older
	// install is not read). Another configuration directory (the source
	// tree's conf/, a test's) brings its own signatures/.
	d.shipped = conf_dir + "/signatures";
	if (conf_dir == DENPEX_SYSCONFDIR || !is_dir(d.shipped))
		d.shipped = std::string(DENPEX_DATADIR) + "/signatures";
	d.site = conf_dir + "/signatures.d";
	return d;
}

bool analysis::init(const pipeline_options &opts, std::string &err)
{
	an_opts = opts;
	std::string dir = resolve_conf_dir(opts.conf_dir);
	signature_dirs sd = resolve_signature_dirs(dir);
	if (!an_rules.load_layer(sd.shipped, "shipped", false, err) || !an_rules.load_layer(sd.site, "site", true, err))
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

void analysis::add_path(const std::string &path, bool job_output)
{
	add_paths({path_source{path, job_output}});
}

void analysis::add_paths(const std::vector<path_source> &paths)
{
	std::vector<std::string> files;
	for (const auto &p : paths)
		list_files(p.path, 0, files);
	std::unique_ptr<file_prefetch> ahead;
	if (files.size() >= 2) {
		file_prefetch_options o;
		o.max_line = an_opts.max_line;
		o.max_bytes = an_opts.max_bytes_per_file;
		o.no_follow = an_opts.no_follow;
		try {
			ahead = std::make_unique<file_prefetch>(files, an_rules, o);
		} catch (const std::exception &) {
			// Without: the reader chooses every file's lines itself.
		}
	}
	// Unset before the pool is joined (declared after it), on every path.
	struct unset {
		file_prefetch *&p;
		~unset() { p = nullptr; }
	} unset_ahead{an_prefetch};
	an_prefetch = ahead.get();
	for (const auto &p : paths) {
		an_job_output = p.job_output;
		add_file(p.path, 0);
		an_job_output = false;
	}
}

// The files add_file would read event-first under path, in its order (what
// the prefetch works on; a file missed or listed wrongly only costs speed).
void analysis::list_files(const std::string &path, int depth, std::vector<std::string> &out) const
{
	if (depth > 0 && (ray_walk_skips(path) || wandb_walk_skips(path)))
		return;
	struct stat st;
	if ((an_opts.no_follow ? lstat(path.c_str(), &st) : stat(path.c_str(), &st)) != 0)
		return;
	if (S_ISREG(st.st_mode)) {
		uint64_t size = static_cast<uint64_t>(st.st_size);
		if ((an_opts.max_bytes_per_file == 0 || size <= an_opts.max_bytes_per_file) && event_scan_pays(size))
			out.push_back(path);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth >= max_depth)
		return;
	DIR *d = opendir(path.c_str());
	if (!d)
		return;
	std::vector<std::string> names;
	while (struct dirent *e = readdir(d)) {
		std::string n = e->d_name;
		if (n != "." && n != "..")
			names.push_back(n);
	}
	closedir(d);
	std::sort(names.begin(), names.end());
	for (const auto &n : names)
		list_files(path + (path.empty() || path.back() == '/' ? "" : "/") + n, depth + 1, out);
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
	char magic[3];
	if (pread_all(fd, magic, sizeof(magic), 0) && gzip_magic(std::string_view(magic, sizeof(magic)))) {
		gunzip_stream gz;
		std::string err;
		if (!gz.start(fd, an_opts.max_bytes_per_file, err)) {
			warn(path + ": skipped: " + err);
			return;
		}
		read_gzip(gz, path);
		return;
	}
	line_reader lr(fd, an_opts.max_bytes_per_file, an_opts.max_line);
	read_source(lr, path, true);
}

void analysis::add_fd(int fd, const std::string &name)
{
	line_reader lr(fd, 0, an_opts.max_line);
	std::string_view head = lr.peek(3);
	if (!lr.error() && gzip_magic(head)) {
		// The bytes peeked are the reader's: the inflating starts with them.
		gunzip_stream gz;
		std::string err;
		if (!gz.start_stream(head, fd, an_opts.max_bytes_per_file, err)) {
			warn(name + ": skipped: " + err);
			return;
		}
		read_gzip(gz, name);
		return;
	}
	read_source(lr, name, false);
}

void analysis::add_buffer(std::vector<char> &&bytes, const std::string &name)
{
	if (gzip_magic(std::string_view(bytes.data(), bytes.size()))) {
		// An upload's bytes are bounded by the body limit; its text by
		// the per-file cap, or by this.
		constexpr uint64_t upload_text_max = 1ull << 30;
		std::vector<char> gz_bytes = std::move(bytes);
		gunzip_stream gz;
		std::string err;
		if (!gz.start(std::string_view(gz_bytes.data(), gz_bytes.size()),
			      an_opts.max_bytes_per_file ? an_opts.max_bytes_per_file : upload_text_max, err)) {
			warn(name + ": skipped: " + err);
			return;
		}
		read_gzip(gz, name);
		return;
	}
	line_reader lr(std::move(bytes), an_opts.max_line);
	read_source(lr, name, false);
}

// The text of a gzip file as one source under the file's own name (its
// line numbers are the text's), and a warning when the text is not whole.
void analysis::read_gzip(gunzip_stream &gz, const std::string &name)
{
	line_reader lr(gz.fd(), 0, an_opts.max_line);
	read_source(lr, name, false);
	std::string why = gz.finish();
	if (!why.empty())
		warn(name + ": " + why);
}

void analysis::read_source(line_reader &lr, const std::string &path, bool seekable_path)
{
	std::string_view head = lr.peek(64 * 1024);
	if (lr.error()) {
		warn(path + ": skipped: " + strerror(lr.error()));
		return;
	}
	// A worker choosing this file's lines ahead sniffed the same head.
	sniff_result sr;
	const bool sniffed_ahead = seekable_path && an_prefetch && lr.fd() >= 0 && an_prefetch->sniffed(path, lr.fd(), sr);
	if (!sniffed_ahead)
		sr = sniff_source(head);
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
	if (gpu_health_format gf = sniffed_ahead ? gpu_health_format::none : sniff_gpu_health(head);
	    gf != gpu_health_format::none) {
		add_gpu_health(lr, path, gf);
		return;
	}
	source_file sf;
	sf.path = path;
	sf.kind = sr.kind;
	sf.job_output = an_job_output;
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
	} else if (sr.what == sniffed::text) {
		// A node's own log collected beside the job's, named for the node
		// after what wrote it ("scheduledevents.hb120v2-2.log",
		// "nth.ip-10-41-7-212.log"): its lines are that node's.
		std::string h = host_from_node_log_name(path.substr(path.rfind('/') + 1));
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
		long long schema = 0;
		records_read rr = read_plugin_records(text, idx, an_ev, schema);
		if (rr == records_read::read) {
			an_ev.source(idx).kind = source_kind::rank_map_file;
			an_usable++;
			return;
		}
		if (rr == records_read::refused) {
			an_ev.source(idx).kind = source_kind::rank_map_file;
			std::string note = path + ": skipped: plugin records of schema " + std::to_string(schema) +
					   ", which this denpex does not read (it reads schema 1); update denpex";
			warn(note);
			an_notes.push_back(note);
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
	chosen_lines ahead;
	bool have_ahead = seekable_path && an_prefetch && lr.fd() >= 0 && an_prefetch->take(path, lr.fd(), sr.kind, ahead, &an_rules);
	if (!read_text_log(lr, idx, sr.kind, an_rules, an_ev, have_ahead ? &ahead : nullptr))
		warn(path + ": read error after " + std::to_string(lr.bytes_read()) + " bytes: " + strerror(lr.error()));
	if (lr.bytes_skipped())
		an_ev.warnings.push_back(path + ": " + std::to_string(lr.bytes_skipped()) +
					 " bytes in the middle skipped (byte cap); head and tail read");
	if (an_opts.progress)
		an_opts.progress(path, lr.bytes_read());
	an_usable++;
}

// DCGM and nvidia-smi output corroborates a hardware verdict; it is not a
// log and gives no events. Written by the job it is a claim: set aside.
void analysis::add_gpu_health(line_reader &lr, const std::string &path, gpu_health_format gf)
{
	if (an_job_output) {
		an_health.notes.push_back(path + ": " + gpu_health_format_name(gf) +
					  " in the job's own output set aside: a claim by the job");
		return;
	}
	bool too_big = false;
	std::string text = slurp(lr, too_big);
	std::string why;
	if (too_big)
		why = "larger than 64 MiB";
	else if (read_gpu_health(gf, text, path, host_from_path(path), an_health, why)) {
		an_usable++;
		return;
	}
	std::string note = path + ": " + gpu_health_format_name(gf) + " not read: " + why;
	an_health.notes.push_back(note);
	warn(note);
}

namespace {

// Hardware classes rest on the kernel or the driver: the same text printed
// by the job itself (an echo, a forged log) is set aside before the
// diagnosis, and the report says so.
std::string set_aside_hardware_claims(evidence &ev)
{
	size_t n = 0;
	std::string first;
	for (event &e : ev.events) {
		if (e.dropped || e.file >= ev.sources().size() || !ev.sources()[e.file].job_output)
			continue;
		if (e.cls != failure_class::gpu_hardware && e.kind != rule_kind::xid)
			continue;
		e.dropped = true;
		if (n++ == 0)
			first = ev.where(e);
	}
	if (n == 0)
		return "";
	return std::to_string(n) + " GPU hardware message" + (n == 1 ? "" : "s") +
	       " in the job's own output (first at " + first +
	       ") set aside: a claim by the job, not kernel or driver evidence";
}

// A sacct listing of several jobs (a resubmission beside the run it
// resumed, an array's siblings): the job the logs are of is the one whose
// run their times fall in, or whose id their lines name (a Slurm banner,
// a file named for it). The first listed keeps the diagnosis unless
// another holds more of the logs' stamped lines.
void choose_the_logged_job(evidence &ev)
{
	if (ev.other_jobs.empty())
		return;
	// (Stamps read as sacct's are: local times as UTC; a few minutes'
	// slack for the lines before srun's start and after its end.)
	constexpr int64_t slack_us = 10LL * 60 * 1000000;
	auto score = [&](const job_facts &job) {
		long n = 0;
		ts_context ctx;
		ctx.reference_us = job.start_us;
		ctx.tz_known = true;
		const int64_t end = job.end_us != no_time ? job.end_us : job.start_us;
		for (const auto &e : ev.events) {
			if (!job.job_id.empty() && e.capture("job") == job.job_id)
				n += 1000;
			if (job.start_us == no_time || e.ts.kind == ts_kind::none || e.file >= ev.sources().size() ||
			    ev.sources()[e.file].kind == source_kind::kernel_log)
				continue;
			auto t = resolve_timestamp(e.ts, ctx);
			if (t && *t >= job.start_us - slack_us && *t <= end + slack_us)
				n++;
		}
		for (const auto &sf : ev.sources())
			if (sf.path.find(job.job_id) != std::string::npos)
				n += 1000;
		return n;
	};
	long best = score(ev.job);
	size_t pick = ev.other_jobs.size();
	for (size_t i = 0; i < ev.other_jobs.size(); i++)
		if (long n = score(ev.other_jobs[i]); n > best) {
			best = n;
			pick = i;
		}
	if (pick < ev.other_jobs.size())
		std::swap(ev.job, ev.other_jobs[pick]);
}

// The hosts the job was given by name though no line of theirs may have
// been read yet: Slurm's node list, an MPI launch's "-H a:4,b:4".
std::set<std::string> hosts_given(const evidence &ev)
{
	std::set<std::string> out;
	for (const std::string &n : expand_nodelist(ev.job.nodelist))
		out.insert(n);
	for (const auto &e : ev.events)
		for (const auto &h : launch_host_slots(e.capture("launch_hosts")))
			out.insert(h.first);
	return out;
}

// A node's kernel log named for the node ("dmesg.endor.txt") whose name
// has no digit, so that the name alone does not say it is a host: where
// the job's other lines know a host by that name, or the job was given
// one by it, the log is that node's.
void name_kernel_logs_by_known_hosts(evidence &ev)
{
	const std::set<std::string> given = hosts_given(ev);
	for (uint32_t i = 0; i < ev.sources().size(); i++) {
		source_file &sf = ev.source(i);
		const std::string name = sf.path.substr(sf.path.rfind('/') + 1);
		// (A name that says its host itself keeps it; a folder's name that
		// looked like one gives way.)
		if (sf.kind != source_kind::kernel_log || !host_from_path(name).empty())
			continue;
		int host = -1;
		for (size_t s = 0; s <= name.size();) {
			size_t dot = name.find('.', s);
			const std::string tok = name.substr(s, dot == std::string::npos ? std::string::npos : dot - s);
			int h = tok.size() >= 2 ? ev.find_host(tok) : -1;
			if (h < 0 && tok.size() >= 2 && given.count(tok))
				h = ev.intern_host(tok);
			if (h >= 0 && ev.host_name(h) == tok) {
				// (Two hosts in one name: neither.)
				host = host >= 0 && host != h ? -2 : h;
				if (host == -2)
					break;
			}
			if (dot == std::string::npos)
				break;
			s = dot + 1;
		}
		if (host < 0 || host == sf.host_hint)
			continue;
		const int was = sf.host_hint;
		sf.host_hint = host;
		for (event &e : ev.events)
			if (e.file == i && (e.host < 0 || e.host == was))
				e.host = host;
	}
}

} // namespace

verdict analysis::run()
{
	// Grid Engine's record where no sacct source says how the job ended.
	job_facts_from_qacct(an_ev);
	std::string claims = set_aside_hardware_claims(an_ev);
	unwrap_ray(an_ev);
	settle_wandb(an_ev);
	choose_the_logged_job(an_ev);
	name_kernel_logs_by_known_hosts(an_ev);
	resolve_identities(an_ev);
	clock_options co;
	co.default_tz_offset_s = an_opts.default_tz_offset_s;
	co.tz_given = an_opts.tz_given;
	co.zone_names = &an_kn.zones();
	if (!an_fr_paths.empty())
		an_fr = analyse_fr_paths(an_fr_paths, an_ev);
	an_clock = align_clocks(an_ev, co, an_fr.anchors);
	diagnosis_input in;
	in.ev = &an_ev;
	in.kn = &an_kn;
	in.clock = &an_clock;
	in.fr = an_fr;
	verdict v = diagnose(in);
	// Which facts each host's offset rests on.
	for (const auto &h : an_clock.hosts)
		if (h.first >= 0 && static_cast<size_t>(h.first) < an_ev.host_count())
			if (auto it = v.clock.find(an_ev.host_name(h.first)); it != v.clock.end())
				it->second.basis = clock_basis_name(h.second.basis);
	if (std::any_of(an_clock.measured_zones.begin(), an_clock.measured_zones.end(),
			[](const auto &z) { return z.second != 0; }))
		v.notes.push_back("local times without a zone were read in their node's zone, as the plugin recorded it");
	corroborate(v, an_ev, an_health);
	for (const auto &n : an_health.notes)
		v.notes.push_back(n);
	if (!claims.empty())
		v.notes.push_back(claims);
	settle_ray(an_ev, v.first_event, v.cls);
	link_wandb(an_ev, v.first_event);
	v.link_wandb = an_ev.links.wandb;
	v.link_ray = an_ev.links.ray;
	if (!an_clock.zone_name.empty()) {
		char buf[128];
		int z = an_clock.zone_offset_s;
		snprintf(buf, sizeof(buf), "local times without a zone were read as UTC%c%02d:%02d (%s, as the job's output states)",
			 z < 0 ? '-' : '+', std::abs(z) / 3600, std::abs(z) % 3600 / 60, an_clock.zone_name.c_str());
		v.notes.push_back(buf);
	}
	if (an_clock.zone_from_audit) {
		char buf[128];
		int z = an_clock.zone_offset_s;
		snprintf(buf, sizeof(buf), "local times without a zone were read as UTC%c%02d:%02d (as the nodes' audit records give it)",
			 z < 0 ? '-' : '+', std::abs(z) / 3600, std::abs(z) % 3600 / 60);
		v.notes.push_back(buf);
	}
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
	v.notes.insert(v.notes.end(), an_notes.begin(), an_notes.end());
	return v;
}

} // namespace diag
