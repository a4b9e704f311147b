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

} // namespace

std::string post_verdict(run_state &s, const std::string &verdict, const std::string &report_where)
{
	bool admin = s.cfg.comment_field == comment_field::admin_comment;
	const char *field = admin ? "AdminComment" : "Comment";
	std::string hint = admin ? s.ji.admin_comment : !s.ji.comment.empty() ? s.ji.comment : s.ctx.env_comment;
	comment_result res;
	if (!stop_requested())
		res = write_bounded(std::min(12.0, s.left() - 1), s.ctx.job_id, s.ctx.cluster, admin, verdict, hint);
	std::string status;
	if (stop_requested() && !res.answered)
		status = std::string(field) + " not written: stopped by SIGTERM";
	else if (!res.answered)
		status = std::string(field) + " not written: no answer from slurmdbd in time";
	else if (res.outcome == comment_outcome::written)
		return std::string(field) + " written" + (res.detail.empty() ? "" : " (" + res.detail + ")");
	else if (res.outcome == comment_outcome::already_present)
		return std::string(field) + " already had it";
	else
		status = std::string(field) + " not written: " + res.detail;
	queued_comment q;
	q.job_id = s.ctx.job_id;
	q.cluster = s.ctx.cluster;
	q.admin = admin;
	q.verdict = verdict;
	q.hint = hint;
	q.report = report_where == "none" ? "" : report_where;
	q.queued_at = time(nullptr);
	std::string qerr;
	if (queue_put(s.cfg.state_dir, q, qerr))
		status += "; queued: retried by later epilog runs and denpex-epilog --flush";
	else
		status += "; could not be queued: " + qerr;
	return status;
}

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

} // namespace denpex::epilog
