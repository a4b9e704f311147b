#include "run.hh"

#include "bounded_child.hh"
#include "diagnosing.hh"
#include "gathering.hh"
#include "job_context.hh"
#include "job_report.hh"
#include "log.hh"
#include "report.hh"
#include "run_state.hh"
#include "verdict_comment.hh"

#include "denpex_diag.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace denpex::epilog {

namespace {

bool from_env_empty(const char *name)
{
	const char *v = getenv(name);
	return !v || !*v;
}

// The diagnosing site's part, after its own gathering.
void diagnose_job(run_state &s, int jfd)
{
	if (!wait_and_claim(s, jfd))
		return;
	gather_diagnosing_extras(s, jfd);
	diagnosis d = run_diagnosis(diagnosis_inputs_of(s, jfd),
				    stop_requested() ? finish_grace_s : std::max(1.0, s.left() - 8));
	if (stop_requested()) {
		s.notes.push_back("stopped by SIGTERM after " + std::to_string(static_cast<int>(mono_now() - s.t0)) +
				  " s; the report has what was gathered until then");
		if (!d.ok)
			d.error = "stopped by SIGTERM before the diagnosis finished";
	}

	// The admin report first: it must exist even if slurmdbd hangs below.
	report_verdict v = cite(s, d);
	std::string txt = report_text(s, v, jfd);
	std::string report_where = write_reports(s, v, txt);

	std::string comment_status = "no verdict";
	// Stopped early, "no recognisable cause" says what was not read yet,
	// not what the job did: the report has it, the user's Comment does not.
	bool stopped_unknown = stop_requested() && (v.comment.rfind("denpex: unknown:", 0) == 0 ||
						    v.comment.rfind("denpex: unknown ", 0) == 0);
	if (d.ok && !v.comment.empty() && stopped_unknown)
		comment_status = "Comment not written: stopped by SIGTERM before any cause was found";
	else if (d.ok && !v.comment.empty())
		comment_status = post_verdict(s, v.comment, report_where);
	// The outcome in the report too (the report was written before trying).
	if (report_where != "none")
		append_accounting(s, txt, comment_status);
	log_msg(d.ok ? LOG_NOTICE : LOG_WARNING, "job %s (%s): %s; report %s; %s", s.ctx.job_id_str.c_str(),
		s.ji.state.c_str(), d.ok ? v.comment.c_str() : ("no verdict: " + d.error).c_str(),
		report_where.c_str(), comment_status.c_str());
	if (!s.cfg.metrics_dir.empty() &&
	    denpex_metrics_record(s.cfg.metrics_dir.c_str(), d.ok ? v.d.json.c_str() : nullptr, mono_now() - s.t0,
				  !d.ok || report_where == "none", std::max(0.5, std::min(5.0, s.left()))) != DENPEX_OK)
		log_msg(LOG_ERR, "job %s: metrics_dir: %s", s.ctx.job_id_str.c_str(), denpex_last_error());
	if (!s.cfg.keep_state || s.stage_fallback) {
		size_t slash = s.stage_dir.rfind('/');
		std::string parent = slash == 0 ? "/" : s.stage_dir.substr(0, slash);
		int sfd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd >= 0) {
			remove_tree(sfd, s.stage_dir.substr(slash + 1));
			close(sfd);
		}
	}
	// EpilogSlurmctld diagnosing: the nodes left a shared spool dir to us.
	if (!s.ctx.node_context && s.spool_job.empty()) {
		s.spool_job = s.ctx.spool_base + "/" + s.ctx.job_id_str;
		s.spool = check_job_spool(s.ctx.spool_base, s.ctx.job_id, s.ctx.uid, s.ji.restart_cnt, s.ji.start, "");
	}
	remove_spool(s, true);
}

} // namespace

void run_epilog(const config &cfg, double t0)
{
	run_state s(cfg, t0);
	// By hand: say what is meant, do nothing.
	if (from_env_empty("SLURM_JOB_ID") && from_env_empty("SLURM_SCRIPT_CONTEXT")) {
		log_msg(LOG_ERR, "not started by Slurm (no SLURM_JOB_ID): denpex-epilog is Slurm's Epilog (run by slurmd "
				 "as root) or EpilogSlurmctld; to diagnose logs by hand use denpex diagnose; nothing done");
		return;
	}
	if (!read_job_env(s))
		return;
	if (s.ctx.node_context && geteuid() != 0) {
		log_msg(LOG_ERR, "must run as root (slurmd runs the node Epilog as root; it reads the job's files as "
				 "the job's user and /dev/kmsg); running as uid %u; nothing done",
			static_cast<unsigned>(geteuid()));
		return;
	}
	if (s.ctx.opted_out) {
		log_msg(LOG_INFO, "job %s: opted out (--denpex=off); skipped", s.ctx.job_id_str.c_str());
		return;
	}
	// On the controller there is nothing to gather: only the diagnosing site
	// does anything there.
	if (!s.ctx.node_context && cfg.diagnose_in != diagnose_site::slurmctld)
		return;
	// libslurm only now: it exits the process on an unreadable slurm.conf
	// (the watchdog still exits 0).
	slurm_io_init();
	s.diagnoses_here = true;
	if (s.ctx.node_context) {
		std::string first = hostlist_first(s.ctx.nodelist);
		s.diagnoses_here = cfg.diagnose_in == diagnose_site::node && (first.empty() || first == s.ctx.node);
	}
	std::string why;
	if (!job_wanted(s, why)) {
		if (s.diagnoses_here || s.unknown_job)
			log_msg(s.unknown_job ? LOG_WARNING : LOG_INFO, "job %s: %s; skipped", s.ctx.job_id_str.c_str(),
				why.c_str());
		// Nothing to diagnose; the job's spool dir still goes.
		if (s.ctx.node_context && !s.unknown_job) {
			s.spool_job = s.ctx.spool_base + "/" + s.ctx.job_id_str;
			s.spool = check_job_spool(s.ctx.spool_base, s.ctx.job_id, s.ctx.uid, s.ji.restart_cnt, s.ji.start,
						  node_file_name(s.ctx.node));
			remove_spool(s, s.diagnoses_here);
		}
		return;
	}
	s.budget = cfg.max_total_bytes;
	int jfd = open_job_state_dir(s);
	if (jfd < 0)
		return;
	cap_budget_by_state_dir(s);
	if (s.diagnoses_here && s.left() > 30)
		flush_comment_queue(cfg, 3, std::min(15.0, s.left() / 4), false);
	if (s.ctx.node_context)
		gather_node(s, jfd);
	if (s.diagnoses_here)
		diagnose_job(s, jfd);
	else
		log_msg(LOG_DEBUG, "job %s: gathered %zu files on %s (%zu skipped)", s.ctx.job_id_str.c_str(),
			s.rep.files.size(), s.ctx.node.c_str(), s.rep.skipped.size());
	close(jfd);
}

} // namespace denpex::epilog
