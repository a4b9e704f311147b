#include "job_report.hh"

#include "comment.hh"
#include "gathering.hh"
#include "log.hh"
#include "own_files.hh"
#include "report.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace denpex::epilog {

namespace {

// The other nodes' summaries (root-owned files we wrote), bounded.
std::string other_nodes_notes(const run_state &s, int jfd)
{
	std::string t;
	int nfd = openat(jfd, "notes", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (nfd < 0)
		return t;
	auto regular = [](const struct stat &st) { return S_ISREG(st.st_mode); };
	for (const std::string &node : dir_names(nfd, "", 1025, false)) {
		if (node == s.ctx.node)
			continue;
		std::optional<std::string> text = read_own_file(nfd, node, 65536, regular);
		if (text && !text->empty())
			t += "\nOn " + node + ":\n" + *text;
	}
	close(nfd);
	return t;
}

std::string site(const run_state &s)
{
	return s.ctx.node_context ? s.ctx.node : std::string("slurmctld");
}

} // namespace

report_verdict cite(const run_state &s, const diagnosis &d)
{
	report_verdict v;
	v.d = d;
	if (d.ok) {
		v.d.json = cite_originals(s, d.json, true);
		v.d.text = cite_originals(s, d.text, false);
		v.d.warnings = cite_originals(s, d.warnings, false);
	}
	v.comment = comment_verdict(d.comment_line, s.cfg.comment_max_bytes);
	return v;
}

std::string report_text(const run_state &s, const report_verdict &v, int jfd)
{
	const diagnosis &d = v.d;
	std::string txt;
	txt += "denpex-epilog report for job " + s.ctx.job_id_str + "\n";
	txt += "state: " + s.ji.state + (s.ji.reason.empty() ? "" : " (" + s.ji.reason + ")") + ", exit code " +
	       exit_pair(s.ji.exit_code) + ", derived " + exit_pair(s.ji.derived_ec) + "\n";
	txt += "user: " + s.ctx.user + " (" + std::to_string(s.ctx.uid) + ")" + ", nodes: " + s.ctx.nodelist +
	       ", diagnosed on: " + site(s) + "\n";
	txt += "verdict: " + (d.ok ? v.comment : "none (" + d.error + ")") + "\n\n";
	if (!d.text.empty())
		txt += d.text + (d.text.back() == '\n' ? "" : "\n") + "\n";
	txt += "On " + site(s) + ":\n" + gather_summary(s);
	txt += other_nodes_notes(s, jfd);
	if (!d.warnings.empty())
		txt += "Diagnosis warnings:\n" + d.warnings + (d.warnings.back() == '\n' ? "" : "\n");
	if (!s.notes.empty()) {
		txt += "Notes:\n";
		for (const std::string &n : s.notes)
			txt += "  " + n + "\n";
	}
	return txt;
}

std::string write_reports(const run_state &s, const report_verdict &v, const std::string &text)
{
	std::string err;
	const std::string &dir = s.cfg.report_dir;
	if (!ensure_private_dir(dir, 0750, err)) {
		log_msg(LOG_ERR, "job %s: report_dir: %s", s.ctx.job_id_str.c_str(), err.c_str());
		return "none";
	}
	bool ok = true;
	if (v.d.ok && !v.d.json.empty())
		ok = write_atomic(dir, s.key + ".json", v.d.json + "\n", 0640, err);
	if (ok)
		ok = write_atomic(dir, s.key + ".txt", text, 0640, err);
	// The verdict page with the timeline (issue 14), beside them.
	if (ok && v.d.ok && !v.d.html.empty())
		ok = write_atomic(dir, s.key + ".html", v.d.html, 0640, err);
	if (ok)
		return dir + "/" + s.key + ".txt";
	log_msg(LOG_ERR, "job %s: report: %s", s.ctx.job_id_str.c_str(), err.c_str());
	return "none";
}

void append_accounting(const run_state &s, const std::string &text, const std::string &comment_status)
{
	std::string err;
	write_atomic(s.cfg.report_dir, s.key + ".txt", text + "Accounting: " + comment_status + "\n", 0640, err);
}

} // namespace denpex::epilog
