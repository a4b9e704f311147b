// denpex: why a distributed training run died and which rank went first.
#include "config.h"
#include "fr/fr_analysis.hh"
#include "pipeline.hh"
#include "aligning/timeline.hh"
#include "rendering/report_html.hh"
#include "rendering/timeline_svg.hh"
#include "serve.hh"
#include "rendering/metrics.hh"
#include "reading/text_log_reader.hh"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "rendering/utf8.hh"

#include <jansson.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int exit_ok = 0;
constexpr int exit_usage = 2;

const char *main_usage =
	"Usage: denpex COMMAND [OPTIONS] ...\n"
	"\n"
	"Reads the logs a failed distributed training job left behind and says why it\n"
	"died, which rank went first, and what to do next.\n"
	"\n"
	"Commands:\n"
	"  diagnose [--json] PATH... | -   print the verdict for logs, bundles, directories\n"
	"                                  or a log pasted on standard input (-)\n"
	"  timeline [--json] [--around S] PATH... | -\n"
	"                                  print the merged, clock-corrected timeline\n"
	"  fr [--json] PATH...             analyse PyTorch flight-recorder dumps\n"
	"  metrics [-o FILE] DIR...        Prometheus metrics from directories of admin reports\n"
	"  check-signatures [--conf DIR] [--strict] [--literals | --fault-literals]\n"
	"                                  load and check the signature and knowledge files\n"
	"  serve [--listen ADDR:PORT]      the diagnosis console: a web page to paste logs\n"
	"                                  into (default 127.0.0.1:8470)\n"
	"  help [COMMAND]                  show help\n"
	"\n"
	"Options:\n"
	"  -h, --help      show this help\n"
	"  -V, --version   show the version\n"
	"\n"
	"See denpex(1) for details.\n";

const char *diagnose_usage =
	"Usage: denpex diagnose [OPTIONS] PATH... | -\n"
	"\n"
	"Diagnoses a failed multi-rank job from its logs: combined job output (srun\n"
	"--label, torchrun [rankN] prefixes, ...), NCCL debug files, kernel logs (dmesg,\n"
	"journalctl, syslog), sacct -P or --json output, torchelastic error.json files\n"
	"and flight-recorder dumps, Ray session directories (session_*/logs: raylet.out,\n"
	"worker-*.out|err, python-core-worker-*.log, the driver's output) and\n"
	"Weights & Biases run directories (wandb/run-* and offline-run-*: output.log,\n"
	"wandb-metadata.json, wandb-summary.json, debug logs); the verdict then links\n"
	"the W&B run and the Ray job, actor and retries (\"links\").\n"
	"Directories are walked; - reads standard input.\n"
	"\n"
	"Options:\n"
	"  --json              print the verdict as JSON (schema 1)\n"
	"  --svg FILE          also write the timeline picture (SVG) to FILE\n"
	"  --html FILE         also write the verdict page (HTML, as report.html) to FILE\n"
	"  --conf DIR          configuration directory (signatures/, xid.yaml,\n"
	"                      actions.yaml, zones.yaml); default $DENPEX_CONF_DIR or\n"
	"                      " DENPEX_SYSCONFDIR "\n"
	"  --max-bytes N       read at most N bytes of each file (head and tail);\n"
	"                      suffixes K, M, G; default: no cap\n"
	"  --tz OFFSET         zone of local times without one, e.g. +02:00; default:\n"
	"                      the zone the job's output states (zones.yaml), else\n"
	"                      inferred, else UTC\n"
	"  --job-id ID         the job id, when no source names it\n"
	"  --no-follow         do not follow symbolic links\n"
	"  -q, --quiet         do not print warnings about skipped files\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when a verdict was produced (also 'unknown'); 2 on unusable\n"
	"input or arguments.\n";

const char *timeline_usage =
	"Usage: denpex timeline [OPTIONS] PATH... | -\n"
	"\n"
	"Prints every event denpex kept, merged across ranks and hosts on one clock:\n"
	"corrected UTC time, raw time, host, rank, role, rule, file:line and text.\n"
	"The first fault is marked '*', the first victims '>'.\n"
	"\n"
	"Options: as for diagnose, and\n"
	"  --around SECONDS    only events within SECONDS of the first fault\n";

const char *fr_usage =
	"Usage: denpex fr [--json] PATH...\n"
	"\n"
	"Analyses PyTorch flight-recorder dumps (pickle or JSON; files, or directories\n"
	"of them): per process group, the collective where progress stopped, the ranks\n"
	"missing from it or stuck in it, mismatches, and ranks without a dump.\n"
	"Exit 0 with a report; 2 when no dump could be read.\n";

const char *metrics_usage =
	"Usage: denpex metrics [-o FILE] DIR...\n"
	"\n"
	"Builds the Prometheus text exposition of the epilog's verdict metrics\n"
	"(denpex_failures_total by class, next action and initiating node;\n"
	"denpex_gpu_hardware_verdicts_total and its last-verdict time by node, GPU\n"
	"and Xid) from the verdict JSON files (*.json) of the admin report\n"
	"directories given, for sites that run it from cron instead of the epilog.\n"
	"\n"
	"Options:\n"
	"  -o FILE    write FILE atomically (temp file and rename, as node_exporter's\n"
	"             textfile collector requires) instead of standard output\n"
	"  -h, --help show this help\n"
	"\n"
	"Exit status: 0 when the exposition was written (also with no reports); 2 on\n"
	"bad arguments or an unreadable directory.\n";

int usage_error(const std::string &msg)
{
	fprintf(stderr, "denpex: %s (try 'denpex --help')\n", msg.c_str());
	return exit_usage;
}

} // namespace

bool parse_size(const char *s, uint64_t &out)
{
	char *end = nullptr;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return false;
	uint64_t mult = 1;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': mult = 1ull << 10; break;
		case 'm': case 'M': mult = 1ull << 20; break;
		case 'g': case 'G': mult = 1ull << 30; break;
		default: return false;
		}
		if (end[1] && !(end[1] == 'B' && !end[2]) && !((end[1] == 'i' || end[1] == 'I') && end[2] == 'B' && !end[3]))
			return false;
	}
	out = v * mult;
	return true;
}

namespace {

bool parse_tz(const char *s, int &out)
{
	if (!strcmp(s, "UTC") || !strcmp(s, "Z")) {
		out = 0;
		return true;
	}
	int sign = 1;
	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	else
		return false;
	int h = 0, m = 0;
	if (sscanf(s, "%2d:%2d", &h, &m) < 1 && sscanf(s, "%2d%2d", &h, &m) < 1)
		return false;
	if (h > 14 || m > 59)
		return false;
	out = sign * (h * 3600 + m * 60);
	return true;
}

enum class mode { diagnose, timeline };

bool write_file(const std::string &path, const std::string &data)
{
	FILE *f = fopen(path.c_str(), "w");
	bool ok = f && fwrite(data.data(), 1, data.size(), f) == data.size();
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		fprintf(stderr, "denpex: %s: %s\n", path.c_str(), strerror(errno));
	return ok;
}

// Log text is not UTF-8; jansson refuses what is not.
json_t *jstr(const std::string &s)
{
	std::string v = diag::valid_utf8(s);
	return json_stringn(v.data(), v.size());
}

std::string fmt_time(int64_t us)
{
	if (us == diag::no_time)
		return "-";
	char buf[40];
	diag::format_utc_ms(us, buf, sizeof(buf));
	return buf;
}

void print_timeline(diag::analysis &an, const diag::verdict &v, bool json, double around)
{
	const diag::evidence &ev = an.ev();
	std::vector<size_t> order = diag::merge_timeline(ev);
	int64_t center = v.first_event >= 0 ? ev.events[static_cast<size_t>(v.first_event)].time_us : diag::no_time;
	// The first victims: the earliest victim event of each of the first few ranks.
	std::vector<size_t> first_victims;
	for (size_t i : order) {
		const diag::event &e = ev.events[i];
		if (e.role == diag::event_role::victim && first_victims.size() < 3 &&
		    std::none_of(first_victims.begin(), first_victims.end(),
				 [&](size_t k) { return ev.events[k].rank == e.rank; }))
			first_victims.push_back(i);
	}
	json_t *arr = json ? json_array() : nullptr;
	for (size_t i : order) {
		const diag::event &e = ev.events[i];
		if (around > 0 && center != diag::no_time &&
		    (e.time_us == diag::no_time || std::fabs(static_cast<double>(e.time_us - center)) / 1e6 > around))
			continue;
		std::string tmark = e.inherited_time ? "~" : "";
		std::string mark = static_cast<long>(i) == v.first_event ? "*"
				   : std::count(first_victims.begin(), first_victims.end(), i) ? ">" : " ";
		std::string host = e.host >= 0 ? ev.host_name(e.host) : "-";
		std::string rule = e.r ? e.r->id : e.rule_id;
		std::string src = ev.sources()[e.file].path + ":" + std::to_string(e.line);
		std::string role(diag::role_name(e.role));
		if (e.decoy)
			role += "(caught)";
		if (json) {
			json_t *o = json_object();
			json_object_set_new(o, "time", e.time_us == diag::no_time ? json_null() : json_string(fmt_time(e.time_us).c_str()));
			json_object_set_new(o, "raw_time", e.raw_us == diag::no_time ? json_null() : json_string(fmt_time(e.raw_us).c_str()));
			json_object_set_new(o, "host", e.host >= 0 ? jstr(host) : json_null());
			json_object_set_new(o, "rank", e.rank >= 0 ? json_integer(e.rank) : json_null());
			json_object_set_new(o, "role", json_string(role.c_str()));
			json_object_set_new(o, "rule", jstr(rule));
			json_object_set_new(o, "source", jstr(src));
			json_object_set_new(o, "text", jstr(e.text));
			json_object_set_new(o, "mark", json_string(mark == "*" ? "first" : mark == ">" ? "first_victim" : ""));
			// (Why the diagnosis set it aside: caught, survived, before the job.)
			if (!e.why_not.empty())
				json_object_set_new(o, "set_aside", jstr(e.why_not));
			json_array_append_new(arr, o);
		} else {
			printf("%s %-25s %-24s %-12s %5s %-10s %-32s %s\n    %s\n", mark.c_str(), (tmark + fmt_time(e.time_us)).c_str(),
			       fmt_time(e.raw_us).c_str(), diag::valid_utf8(host).c_str(),
			       e.rank >= 0 ? std::to_string(e.rank).c_str() : "-", role.c_str(), diag::valid_utf8(rule).c_str(),
			       diag::valid_utf8(src).c_str(), diag::valid_utf8(e.text).c_str());
			if (!e.why_not.empty())
				printf("    (set aside: %s)\n", diag::valid_utf8(e.why_not).c_str());
		}
	}
	if (json) {
		json_t *root = json_object();
		json_object_set_new(root, "events", arr);
		json_t *clk = json_object();
		for (const auto &c : v.clock) {
			json_t *o = json_object();
			json_object_set_new(o, "offset_s", json_real(c.second.offset_s));
			json_object_set_new(o, "uncertainty_s", json_real(c.second.uncertainty_s));
			if (!c.second.basis.empty())
				json_object_set_new(o, "basis", json_string(c.second.basis.c_str()));
			json_object_set_new(clk, diag::valid_utf8(c.first).c_str(), o);
		}
		json_object_set_new(root, "clock", clk);
		char *out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (out)
			printf("%s\n", out);
		free(out);
		json_decref(root);
	}
}

int cmd_read_logs(mode m, int argc, char **argv)
{
	diag::pipeline_options po;
	bool json = false, quiet = false;
	double around = 0;
	std::string svg_file, html_file;
	std::vector<std::string> paths;
	bool stdin_used = false;
	const char *name = m == mode::diagnose ? "diagnose" : "timeline";
	for (int i = 0; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
		if (a == "-h" || a == "--help") {
			fputs(m == mode::diagnose ? diagnose_usage : timeline_usage, stdout);
			return exit_ok;
		} else if (a == "--json") {
			json = true;
		} else if (a == "-q" || a == "--quiet") {
			quiet = true;
		} else if (a == "--no-follow") {
			po.no_follow = true;
		} else if (a == "--around" && m == mode::timeline) {
			const char *v = value();
			char *end = nullptr;
			around = v ? strtod(v, &end) : -1;
			if (!v || *end || around <= 0)
				return usage_error("--around needs a number of seconds");
		} else if ((a == "--svg" || a == "--html") && m == mode::diagnose) {
			const char *v = value();
			if (!v)
				return usage_error(a + " needs a file name");
			(a == "--svg" ? svg_file : html_file) = v;
		} else if (a == "--conf") {
			const char *v = value();
			if (!v)
				return usage_error("--conf needs a directory");
			po.conf_dir = v;
		} else if (a == "--max-bytes") {
			const char *v = value();
			if (!v || !parse_size(v, po.max_bytes_per_file))
				return usage_error("--max-bytes needs a size such as 512M");
		} else if (a == "--tz") {
			const char *v = value();
			if (!v || !parse_tz(v, po.default_tz_offset_s))
				return usage_error("--tz needs an offset such as +02:00 or UTC");
			po.tz_given = true;
		} else if (a == "--job-id") {
			const char *v = value();
			if (!v)
				return usage_error("--job-id needs a value");
			po.job_id = v;
		} else if (a == "-") {
			if (stdin_used)
				return usage_error("'-' given twice");
			stdin_used = true;
			paths.push_back(a);
		} else if (a == "--") {
			for (i++; i < argc; i++)
				paths.push_back(argv[i]);
		} else if (a.size() > 1 && a[0] == '-') {
			return usage_error("unknown option '" + a + "' for " + name);
		} else {
			paths.push_back(a);
		}
	}
	if (paths.empty())
		return usage_error(std::string(name) + " needs at least one PATH, or - for standard input");

	// Warnings wait until the end: when nothing was usable, one line says
	// why instead of a warning per file.
	std::vector<std::string> warnings;
	po.warn = [&](const std::string &w) { warnings.push_back(w); };
	bool tty = isatty(STDERR_FILENO);
	po.progress = [&](const std::string &path, uint64_t bytes) {
		if (tty && !quiet && bytes >= (256ull << 20))
			fprintf(stderr, "denpex: read %s (%llu MiB)\n", path.c_str(),
				static_cast<unsigned long long>(bytes >> 20));
	};
	diag::analysis an;
	std::string err;
	if (!an.init(po, err)) {
		fprintf(stderr, "denpex: configuration error: %s\n", err.c_str());
		return exit_usage;
	}
	using clock = std::chrono::steady_clock;
	auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
	const clock::time_point t_read = clock::now();
	// Runs of paths between the "-"s are added together: their files'
	// lines are chosen ahead on a few threads.
	std::vector<diag::analysis::path_source> run;
	for (const auto &p : paths) {
		if (p == "-") {
			an.add_paths(run);
			run.clear();
			if (isatty(STDIN_FILENO) && !quiet)
				fprintf(stderr, "denpex: reading a log from standard input; end it with Ctrl-D\n");
			an.add_fd(STDIN_FILENO, "stdin");
		} else {
			run.push_back({p, false});
		}
	}
	an.add_paths(run);
	if (an.usable_sources() == 0) {
		std::string why = warnings.empty() ? "no input" : warnings.front();
		if (warnings.size() > 1)
			why += " (and " + std::to_string(warnings.size() - 1) + " more)";
		fprintf(stderr, "denpex: nothing usable to diagnose: %s\n", why.c_str());
		return exit_usage;
	}
	if (!quiet)
		for (const auto &w : warnings)
			fprintf(stderr, "denpex: warning: %s\n", w.c_str());
	const double read_s = since(t_read);
	const clock::time_point t_diag = clock::now();
	diag::verdict v = an.run();
	// Where the time went (DENPEX_TIMING, for the benchmark): the reading
	// split as the text reader saw it, the rest of reading (opening,
	// sniffing, structured sources), and the diagnosis.
	if (const char *t = getenv("DENPEX_TIMING"); t && *t && strcmp(t, "0") != 0) {
		const double diag_s = since(t_diag);
		const diag::text_read_times rt = diag::text_read_timing();
		const double other =
			std::max(0.0, read_s - rt.scan_s - rt.tail_s - rt.context_s - rt.chosen_s - rt.lines_s);
		fprintf(stderr,
			"denpex: timing: scan %.3f s, tail reads %.3f s, context %.3f s, chosen lines %.3f s, "
			"line by line %.3f s, other reading %.3f s, diagnosis %.3f s, total %.3f s "
			"(%llu fault lines, %llu lines chosen, %llu MB of tails)\n",
			rt.scan_s, rt.tail_s, rt.context_s, rt.chosen_s, rt.lines_s, other, diag_s, read_s + diag_s,
			static_cast<unsigned long long>(rt.fault_lines), static_cast<unsigned long long>(rt.chosen_lines),
			static_cast<unsigned long long>(rt.tail_bytes / 1000000));
	}
	if (m == mode::timeline) {
		print_timeline(an, v, json, around);
		return exit_ok;
	}
	std::string out = json ? diag::verdict_to_json(v, true) + "\n" : diag::verdict_to_text(v);
	fwrite(out.data(), 1, out.size(), stdout);
	if (!svg_file.empty() || !html_file.empty()) {
		std::string svg = diag::timeline_svg(an.ev(), v);
		if (!svg_file.empty() && !write_file(svg_file, svg))
			return exit_usage;
		if (!html_file.empty()) {
			diag::page_parts pp;
			pp.v = &v;
			pp.svg = svg;
			pp.json = diag::verdict_to_json(v, true);
			pp.warnings = warnings;
			if (!write_file(html_file, diag::page_html(pp)))
				return exit_usage;
		}
	}
	return exit_ok;
}

int cmd_fr(int argc, char **argv)
{
	bool json = false;
	std::vector<std::string> paths;
	for (int i = 0; i < argc; i++) {
		std::string a = argv[i];
		if (a == "-h" || a == "--help") {
			fputs(fr_usage, stdout);
			return exit_ok;
		} else if (a == "--json") {
			json = true;
		} else if (a.size() > 1 && a[0] == '-') {
			return usage_error("unknown option '" + a + "' for fr");
		} else {
			paths.push_back(a);
		}
	}
	if (paths.empty())
		return usage_error("fr needs at least one dump file or directory");
	diag::fr_collection c = diag::fr_load_paths(paths);
	if (c.dumps.empty()) {
		std::string why = c.unreadable.empty() ? "no flight-recorder dump found"
						       : c.unreadable.front().path + ": " + c.unreadable.front().error;
		fprintf(stderr, "denpex: nothing usable to analyse: %s\n", why.c_str());
		return exit_usage;
	}
	diag::fr_report r = diag::fr_analyze(c);
	if (json) {
		json_t *j = diag::fr_report_to_json(r);
		char *out = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (out)
			printf("%s\n", out);
		free(out);
		json_decref(j);
	} else {
		std::string t = diag::fr_report_text(r);
		fwrite(t.data(), 1, t.size(), stdout);
	}
	return exit_ok;
}

// Reads the admin reports' verdicts (*.json, bounded) into one exposition.
int cmd_metrics(int argc, char **argv)
{
	std::string out_file;
	std::vector<std::string> dirs;
	for (int i = 0; i < argc; i++) {
		std::string a = argv[i];
		if (a == "-h" || a == "--help") {
			fputs(metrics_usage, stdout);
			return exit_ok;
		} else if (a == "-o") {
			if (i + 1 >= argc)
				return usage_error("-o needs a file");
			out_file = argv[++i];
		} else if (a.size() > 1 && a[0] == '-') {
			return usage_error("unknown option '" + a + "' for metrics");
		} else {
			dirs.push_back(a);
		}
	}
	if (dirs.empty())
		return usage_error("metrics needs at least one directory of admin reports");
	diag::metrics_state st;
	size_t skipped = 0;
	for (const std::string &d : dirs) {
		DIR *dp = opendir(d.c_str());
		if (!dp) {
			fprintf(stderr, "denpex: %s: %s\n", d.c_str(), strerror(errno));
			return exit_usage;
		}
		std::vector<std::string> names;
		while (struct dirent *e = readdir(dp)) {
			std::string n = e->d_name;
			if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0 && n[0] != '.')
				names.push_back(n);
		}
		closedir(dp);
		std::sort(names.begin(), names.end());
		for (const std::string &n : names) {
			std::string path = d + "/" + n;
			int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
			struct stat sb;
			if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (16 << 20)) {
				if (fd >= 0)
					close(fd);
				skipped++;
				continue;
			}
			std::string text;
			char buf[65536];
			ssize_t r;
			while ((r = read(fd, buf, sizeof buf)) > 0)
				text.append(buf, static_cast<size_t>(r));
			close(fd);
			std::string err;
			if (!diag::metrics_add_verdict(st, text, static_cast<int64_t>(sb.st_mtime), err))
				skipped++;
		}
	}
	if (skipped)
		fprintf(stderr, "denpex: %zu file%s skipped: not a readable verdict\n", skipped, skipped == 1 ? "" : "s");
	std::string text = diag::metrics_exposition(st);
	if (out_file.empty()) {
		fwrite(text.data(), 1, text.size(), stdout);
		return exit_ok;
	}
	size_t slash = out_file.rfind('/');
	std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : out_file.substr(0, slash);
	std::string err;
	if (!diag::metrics_write_atomic(dir, slash == std::string::npos ? out_file : out_file.substr(slash + 1), text, err)) {
		fprintf(stderr, "denpex: %s\n", err.c_str());
		return exit_usage;
	}
	return exit_ok;
}

int cmd_check_signatures(int argc, char **argv)
{
	std::string conf;
	bool literals = false, fault_literals = false, strict = false;
	for (int i = 0; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--conf" && i + 1 < argc)
			conf = argv[++i];
		else if (a == "--strict")
			strict = true;
		else if (a == "--literals")
			literals = true;
		else if (a == "--fault-literals")
			fault_literals = true;
		else if (a == "-h" || a == "--help") {
			fputs("Usage: denpex check-signatures [--conf DIR] [--strict] [--literals | --fault-literals]\n"
			      "Loads every signature file of both layers, the shipped rules and the site's\n"
			      "(signatures.d/ in the configuration directory: rules added, or replacing a\n"
			      "shipped rule of the same id), checking each rule's samples, and the Xid and\n"
			      "action tables. Prints each rule with the layer and file it came from, and\n"
			      "conflicts between rules. Exit 0 when all load, 2 when they do not.\n"
			      "--strict exits 1 when a rule's sample is won by another rule (a site\n"
			      "rule that would never match its own sample line).\n"
			      "--literals prints instead the prefilter literals of all rules, one a line\n"
			      "(for grep -F -f and rg -F -f in the benchmark).\n"
			      "--fault-literals prints those of the scan of large files for fault lines\n"
			      "(every rule but progress and rank_tag rules).\n", stdout);
			return exit_ok;
		} else
			return usage_error("unknown argument '" + a + "' for check-signatures");
	}
	diag::pipeline_options po;
	po.conf_dir = conf;
	diag::analysis an;
	std::string err;
	if (!an.init(po, err)) {
		fprintf(stderr, "denpex: %s\n", err.c_str());
		return exit_usage;
	}
	if (literals || fault_literals) {
		for (const auto &l : literals ? an.rules().all_literals() : an.rules().fault_literals())
			printf("%s\n", l.c_str());
		return 0;
	}
	size_t samples = 0, site_added = 0, site_replaced = 0;
	for (size_t i = 0; i < an.rules().size(); i++) {
		const diag::rule &r = an.rules().at(i);
		samples += r.samples.size();
		if (r.layer == "site")
			(r.overrides.empty() ? site_added : site_replaced)++;
		printf("%-8s %-40s %s:%d%s%s\n", r.layer.c_str(), r.id.c_str(), r.file.c_str(), r.line,
		       r.overrides.empty() ? "" : "  replaces ", r.overrides.c_str());
	}
	for (const auto &w : an.rules().sample_conflicts())
		printf("warning: %s\n", w.c_str());
	diag::signature_dirs sd = diag::resolve_signature_dirs(diag::resolve_conf_dir(conf));
	printf("%zu rules, %zu samples checked: shipped %s; site %s (%zu added, %zu replaced)\n", an.rules().size(),
	       samples, sd.shipped.c_str(), sd.site.c_str(), site_added, site_replaced);
	// (A rule whose own sample another rule wins never sees that line: an
	// edit to check in CI before it reaches the nodes.)
	return strict && !an.rules().sample_conflicts().empty() ? 1 : 0;
}

int run(int argc, char **argv)
{
	if (argc < 2) {
		fputs(main_usage, stderr);
		return exit_usage;
	}
	std::string cmd = argv[1];
	if (cmd == "-h" || cmd == "--help") {
		fputs(main_usage, stdout);
		return exit_ok;
	}
	if (cmd == "-V" || cmd == "--version") {
		printf("denpex %s\n", PACKAGE_VERSION);
		return exit_ok;
	}
	if (cmd == "help") {
		if (argc > 2 && !strcmp(argv[2], "diagnose"))
			fputs(diagnose_usage, stdout);
		else if (argc > 2 && !strcmp(argv[2], "timeline"))
			fputs(timeline_usage, stdout);
		else if (argc > 2 && !strcmp(argv[2], "fr"))
			fputs(fr_usage, stdout);
		else if (argc > 2 && !strcmp(argv[2], "serve"))
			fputs(cli::serve_usage, stdout);
		else if (argc > 2 && !strcmp(argv[2], "metrics"))
			fputs(metrics_usage, stdout);
		else
			fputs(main_usage, stdout);
		return exit_ok;
	}
	if (cmd == "diagnose")
		return cmd_read_logs(mode::diagnose, argc - 2, argv + 2);
	if (cmd == "timeline")
		return cmd_read_logs(mode::timeline, argc - 2, argv + 2);
	if (cmd == "fr")
		return cmd_fr(argc - 2, argv + 2);
	if (cmd == "serve")
		return cli::cmd_serve(argc - 2, argv + 2);
	if (cmd == "metrics")
		return cmd_metrics(argc - 2, argv + 2);
	if (cmd == "check-signatures")
		return cmd_check_signatures(argc - 2, argv + 2);
	return usage_error("unknown command '" + cmd + "'");
}

} // namespace

int main(int argc, char **argv)
{
	try {
		return run(argc, argv);
	} catch (const std::exception &e) {
		fprintf(stderr, "denpex: internal error: %s\n", e.what());
	} catch (...) {
		fprintf(stderr, "denpex: internal error\n");
	}
	return 3;
}
