#include "verdict_comment.hh"

#include "bounded_child.hh"
#include "comment_queue.hh"
#include "log.hh"
#include "worker_record.hh"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>

namespace denpex::epilog {

namespace {

struct comment_result {
	bool answered = false; // the worker came back in time
	comment_outcome outcome = comment_outcome::failed;
	std::string detail;
};

// write_verdict in a bounded child.
comment_result write_bounded(double timeout_s, uint32_t job_id, const std::string &cluster, bool admin,
			     const std::string &verdict, const std::string &hint)
{
	auto out = run_bounded(timeout_s, [job_id, cluster, admin, verdict, hint]() {
		worker_record r;
		std::string detail;
		r.put_int("outcome", static_cast<int>(write_verdict(job_id, cluster, admin, verdict, hint, detail)));
		r.put("detail", detail);
		return r.encode();
	});
	comment_result c;
	std::optional<worker_record> r = out ? worker_record::decode(*out) : std::nullopt;
	if (!r || !r->has("outcome"))
		return c;
	c.answered = true;
	c.outcome = static_cast<comment_outcome>(r->int_of("outcome"));
	c.detail = r->str("detail");
	return c;
}

// Appends a line to the job's report (ours: root's, in report_dir; no other).
void note_in_report(const config &cfg, uint32_t job_id, const std::string &report, const std::string &what)
{
	if (report.empty() || report.rfind(cfg.report_dir + "/", 0) != 0)
		return;
	int fd = open(report.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	char when[64];
	time_t now = time(nullptr);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	std::string line = "Accounting: " + what + " (" + when + ")\n";
	if (write(fd, line.data(), line.size()) < 0)
		log_msg(LOG_DEBUG, "job %u: report: %s", job_id, strerror(errno));
	close(fd);
}

// The job-completion record may reach slurmdbd after our write and
// overwrite the field: confirm_verdict, in a detached child, so that the job
// does not wait in COMPLETING for it. What it cannot make stick goes to the
// queue (written by later runs and --flush); the report says either.
constexpr unsigned confirm_timeout_s = 40;
void confirm_now(const config &cfg, const queued_comment &q)
{
		int rewrites = 0;
		std::string detail;
		comment_outcome o = confirm_verdict(q.job_id, q.cluster, q.admin, q.verdict, q.hint, rewrites, detail);
		const char *field = q.admin ? "AdminComment" : "Comment";
		if (o == comment_outcome::written) {
			if (rewrites > 0) {
				log_msg(LOG_NOTICE, "job %u: %s overwritten after writing (job-completion record?); written again",
					q.job_id, field);
				note_in_report(cfg, q.job_id, q.report,
					       std::string(field) + " overwritten after writing (job-completion record?); written again");
			}
			return;
		}
		std::string qerr;
		bool queued = queue_put(cfg.state_dir, q, qerr);
		log_msg(LOG_WARNING, "job %u: %s not confirmed: %s; %s", q.job_id, field, detail.c_str(),
			queued ? "queued" : ("could not be queued: " + qerr).c_str());
		note_in_report(cfg, q.job_id, q.report,
			       std::string(field) + " not confirmed: " + detail +
				       (queued ? "; queued: retried by later epilog runs and denpex-epilog --flush"
					       : "; could not be queued: " + qerr));
}

void confirm_in_background(const config &cfg, const queued_comment &q)
{
	auto confirm = [cfg, q]() {
		log_open(); // run_detached closed it
		confirm_now(cfg, q);
	};
	if (!run_detached(confirm_timeout_s, confirm))
		log_msg(LOG_WARNING, "job %u: the Comment's confirmation could not be started", q.job_id);
}

} // namespace

std::string post_verdict(run_state &s, const std::string &verdict, const std::string &report_where)
{
	bool admin = s.cfg.comment_field == comment_field::admin_comment;
	const char *field = admin ? "AdminComment" : "Comment";
	std::string hint = admin ? s.ji.admin_comment : !s.ji.comment.empty() ? s.ji.comment : s.ctx.env_comment;
	comment_result res;
	if (!stop_requested())
		res = write_bounded(std::min(12.0, s.left() - 1), s.ctx.job_id, s.ctx.cluster, admin, verdict, hint);
	queued_comment q;
	q.job_id = s.ctx.job_id;
	q.cluster = s.ctx.cluster;
	q.admin = admin;
	q.verdict = verdict;
	q.hint = hint;
	q.report = report_where == "none" ? "" : report_where;
	q.queued_at = time(nullptr);
	std::string status;
	if (stop_requested() && !res.answered) {
		status = std::string(field) + " not written: stopped by SIGTERM";
	} else if (!res.answered) {
		status = std::string(field) + " not written: no answer from slurmdbd in time";
	} else if (res.outcome == comment_outcome::written) {
		confirm_in_background(s.cfg, q);
		return std::string(field) + " written; confirmed in the background";
	} else if (res.outcome == comment_outcome::already_present) {
		return std::string(field) + " already had it";
	} else {
		status = std::string(field) + " not written: " + res.detail;
	}
	std::string qerr;
	if (queue_put(s.cfg.state_dir, q, qerr))
		status += "; queued: retried by later epilog runs and denpex-epilog --flush";
	else
		status += "; could not be queued: " + qerr;
	return status;
}

void flush_comment_queue(const config &cfg, size_t max, double budget_s, bool confirm_inline)
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
		comment_result res = write_bounded(std::min(10.0, left), q.job_id, q.cluster, q.admin, q.verdict, q.hint);
		const char *field = q.admin ? "AdminComment" : "Comment";
		if (!res.answered ||
		    (res.outcome != comment_outcome::written && res.outcome != comment_outcome::already_present)) {
			log_msg(LOG_INFO, "job %u: queued %s still not written (%s)", q.job_id, field,
				res.answered ? res.detail.c_str() : "no answer from slurmdbd in time");
			continue;
		}
		queue_drop(cfg.state_dir, q.name);
		log_msg(LOG_NOTICE, "job %u: queued verdict written to %s", q.job_id, field);
		note_in_report(cfg, q.job_id, q.report, std::string(field) + " written later from the queue");
		if (res.outcome != comment_outcome::written)
			continue;
		if (confirm_inline)
			run_bounded(std::min<double>(confirm_timeout_s, until - mono_now()), [&cfg, &q]() {
				confirm_now(cfg, q);
				return std::string();
			});
		else
			confirm_in_background(cfg, q);
	}
}

} // namespace denpex::epilog
