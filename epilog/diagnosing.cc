#include "diagnosing.hh"

#include "bounded_child.hh"
#include "gathering.hh"
#include "gpu_health_collect.hh"
#include "log.hh"
#include "own_files.hh"
#include "worker_record.hh"

#include "denpex_diag.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cctype>
#include <cstdlib>

namespace denpex::epilog {

namespace {

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

// The prometheus dcgm-exporter series for the job's nodes over its window.
void collect_prometheus_gpu_health(run_state &s, int jfd)
{
	if (!config_dcgm(s.cfg, "prometheus") || s.cfg.prometheus_url.empty())
		return;
	double budget = std::min<double>(s.cfg.dcgm_timeout_s, s.left() - 15);
	if (budget < 1) {
		s.notes.push_back("Prometheus not asked: no time left before the deadline");
		return;
	}
	time_t end = s.ji.end > 0 ? s.ji.end : time(nullptr);
	time_t start = s.ji.start > 0 ? s.ji.start : end - 3600;
	std::string err;
	std::string text = prometheus_dcgm_series(s.cfg.prometheus_url, hostlist_all(s.ctx.nodelist, 4096), start,
						  end, budget, err);
	if (!err.empty())
		s.notes.push_back(err);
	if (!text.empty() && write_file_at(jfd, "prometheus/dcgm-exporter.prom", text))
		s.rep.files.push_back({s.cfg.prometheus_url, "prometheus/dcgm-exporter.prom", text.size(), text.size(),
				       false});
}

std::string encode_diagnosis(const diagnosis &d)
{
	worker_record r;
	r.put_bool("ok", d.ok);
	r.put("error", d.error);
	r.put("json", d.json);
	r.put("text", d.text);
	r.put("comment_line", d.comment_line);
	r.put("warnings", d.warnings);
	r.put("html", d.html);
	return r.encode();
}

diagnosis decode_diagnosis(const std::string &bytes)
{
	diagnosis d;
	auto r = worker_record::decode(bytes);
	if (!r) {
		d.error = "garbled answer from the diagnosis worker";
		return d;
	}
	d.ok = r->bool_of("ok");
	d.error = r->str("error");
	d.json = r->str("json");
	d.text = r->str("text");
	d.comment_line = r->str("comment_line");
	d.warnings = r->str("warnings");
	d.html = r->str("html");
	return d;
}

// In the worker: libdiag through its C API.
diagnosis diagnose_now(const diagnosis_inputs &in)
{
	std::vector<denpex_source> paths;
	for (const auto &src : in.sources)
		paths.push_back({src.path.c_str(), src.job_output ? DENPEX_SOURCE_JOB_OUTPUT : DENPEX_SOURCE_TRUSTED});
	denpex_options o;
	denpex_options_init(&o);
	if (!in.conf_dir.empty())
		o.conf_dir = in.conf_dir.c_str();
	o.max_bytes_per_file = in.max_bytes_per_file;
	o.job_id = in.job_id.c_str();
	o.no_follow = 1;
	// The line is composed to fit, so the cause gives way, not the action.
	o.comment_max_bytes = in.comment_max_bytes;
	char *json = nullptr, *text = nullptr, *line = nullptr, *warn = nullptr, *html = nullptr;
	denpex_status st =
		denpex_diagnose_sources_report(paths.data(), paths.size(), &o, &json, &text, &line, &warn, &html);
	auto str = [](const char *p) { return p ? std::string(p) : std::string(); };
	diagnosis d;
	d.ok = st == DENPEX_OK;
	if (d.ok) {
		d.json = str(json);
		d.text = str(text);
		d.comment_line = str(line);
		d.warnings = str(warn);
		d.html = str(html);
	} else {
		d.error = str(denpex_last_error());
	}
	denpex_free(html);
	denpex_free(json);
	denpex_free(text);
	denpex_free(line);
	denpex_free(warn);
	return d;
}

std::string encode_accounting(bool ok, const std::string &value)
{
	worker_record r;
	r.put_bool("ok", ok);
	r.put(ok ? "sacct" : "error", value);
	return r.encode();
}

} // namespace

bool wait_and_claim(run_state &s, int jfd)
{
	// A private staging dir of our own: no other node's share can come.
	double wait_until = mono_now() + (s.stage_fallback ? 0 : s.cfg.node_wait_s);
	size_t have = dir_names(jfd, "done", 100000, false).size();
	// Short waits first: the other nodes' epilogs end about when ours does,
	// and each wait here is the job's time in COMPLETING.
	long wait_ms = 10;
	while (have < static_cast<size_t>(s.ctx.num_nodes) && mono_now() < wait_until && s.left() > 10) {
		sleep_ms(wait_ms);
		wait_ms = std::min(wait_ms * 2, 200L);
		have = dir_names(jfd, "done", 100000, false).size();
	}
	if (have < static_cast<size_t>(s.ctx.num_nodes) && !s.stage_fallback)
		s.notes.push_back("evidence from " + std::to_string(have) + " of " + std::to_string(s.ctx.num_nodes) +
				  " nodes (waited " + std::to_string(s.cfg.node_wait_s) + " s)");
	// One diagnosis per job, whoever gets here first.
	int cl = openat(jfd, "claimed", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (cl < 0 && errno == EEXIST) {
		log_msg(LOG_INFO, "job %s: already being diagnosed elsewhere", s.ctx.job_id_str.c_str());
		return false;
	}
	// Anything else (the dir removed under us): diagnose what is left, and say so.
	if (cl < 0) {
		s.notes.push_back(std::string("staging dir unusable while in use (") + strerror(errno) +
				  "): the diagnosis has only what could still be read");
		log_msg(LOG_ERR, "job %s: %s: cannot claim the diagnosis: %s", s.ctx.job_id_str.c_str(),
			s.stage_dir.c_str(), strerror(errno));
	} else {
		close(cl);
	}
	return true;
}

void gather_diagnosing_extras(run_state &s, int jfd)
{
	gather_job_output(s, jfd);

	// Accounting state (steps too), bounded: slurmdbd may be down.
	double t_acct = std::min(10.0, s.left() - 15);
	uint32_t job_id = s.ctx.job_id;
	std::string cluster = s.ctx.cluster;
	job_info jcopy = s.ji;
	auto acct = run_bounded(t_acct, [job_id, cluster, jcopy]() {
		acct_job aj;
		std::string err;
		if (!acct_load(job_id, cluster, aj, err))
			return encode_accounting(false, err);
		return encode_accounting(true, acct_as_sacct(job_id, jcopy, aj));
	});
	std::string sacct_text;
	if (acct) {
		auto r = worker_record::decode(*acct);
		if (r && r->bool_of("ok"))
			sacct_text = r->str("sacct");
		else
			s.notes.push_back("accounting: " + (r ? r->str("error") : std::string("garbled answer")));
	} else {
		s.notes.push_back("accounting: no answer from slurmdbd in time");
	}
	if (sacct_text.empty())
		sacct_text = acct_as_sacct(job_id, s.ji, acct_job());
	write_file_at(jfd, "job/sacct.txt", sacct_text);
	collect_prometheus_gpu_health(s, jfd);
}

diagnosis_inputs diagnosis_inputs_of(const run_state &s, int jfd)
{
	diagnosis_inputs in;
	const std::string &jobdir = s.stage_dir;
	// Provenance: the job's own output is a claim; what the epilog took from
	// the kernel and from Slurm is evidence.
	for (auto [sub, job_output] : {std::pair<const char *, bool>{"job/stdout", true}, {"job/stderr", true},
				       {"job/sacct.txt", false}, {"job/scontrol.txt", false},
				       {"spool", true}, {"nodes", false}, {"prometheus", false}}) {
		struct stat st;
		if (fstatat(jfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			in.sources.push_back({jobdir + "/" + sub, job_output});
	}
	in.conf_dir = s.cfg.conf_dir;
	in.max_bytes_per_file = s.cfg.max_bytes_per_file + 256;
	in.comment_max_bytes = s.cfg.comment_max_bytes;
	in.job_id = s.ctx.job_id_str;
	return in;
}

diagnosis run_diagnosis(const diagnosis_inputs &in, double timeout_s)
{
	// A stop (SIGTERM) lets it finish for a moment: what was gathered is
	// worth its verdict.
	auto out = run_bounded(timeout_s, [&in]() { return encode_diagnosis(diagnose_now(in)); }, on_stop::finish);
	if (!out) {
		diagnosis d;
		d.error = "diagnosis did not finish in time or crashed";
		return d;
	}
	return decode_diagnosis(*out);
}

std::string cite_originals(const run_state &s, std::string text, bool json)
{
	const std::string &jobdir = s.stage_dir;
	for (const copied_file &f : s.rep.files)
		if (f.head_lines >= 0 && safe_component(f.dst.substr(0, f.dst.find('/'))))
			map_cut_lines(text, jobdir + "/" + f.dst, f);
	auto sub = [&](const std::string &from, const std::string &to) {
		if (!json || json_plain(to))
			replace_all(text, from, to);
	};
	if (!s.out_path.empty())
		sub(jobdir + "/job/stdout", s.out_path);
	if (!s.err_path.empty())
		sub(jobdir + "/job/stderr", s.err_path);
	sub(jobdir + "/job/sacct.txt", "slurmdbd:job/" + s.ctx.job_id_str);
	sub(jobdir + "/job/scontrol.txt", "slurmctld:job/" + s.ctx.job_id_str);
	if (!s.spool_job.empty())
		sub(jobdir + "/spool/", s.spool_job + "/");
	else
		sub(jobdir + "/spool/", s.ctx.spool_base + "/" + s.ctx.job_id_str + "/");
	sub(jobdir + "/nodes/", "/dev/kmsg:");
	return text;
}

} // namespace denpex::epilog
