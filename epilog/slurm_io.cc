#include "slurm_io.hh"

#include "comment.hh"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

// Exported by libslurm but not declared in the 22.05 public headers.
extern "C" char *slurm_job_reason_string(enum job_state_reason inx);

namespace denpex::epilog {

namespace {

std::string str(const char *s)
{
	return s ? std::string(s) : std::string();
}

std::string slurm_err()
{
	return str(slurm_strerror(slurm_get_errno()));
}

std::string step_name(uint32_t id)
{
	switch (id) {
	case SLURM_BATCH_SCRIPT: return "batch";
	case SLURM_EXTERN_CONT: return "extern";
	case SLURM_INTERACTIVE_STEP: return "interactive";
	case SLURM_PENDING_STEP: return "pending";
	default: return std::to_string(id);
	}
}

std::string time_str(time_t t)
{
	if (t <= 0)
		return "Unknown";
	struct tm tm;
	char buf[32];
	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return buf;
}

std::string field(const std::string &s)
{
	std::string o;
	for (char c : s)
		o += (c == '|' || c == '\n' || c == '\r') ? ' ' : c;
	return o;
}

// One job selected by id, as slurmdb wants it. The lists get no destructor:
// the items are ours (Slurm would xfree() them and abort).
struct job_cond {
	slurmdb_job_cond_t cond;
	slurm_selected_step_t sel;
	explicit job_cond(uint32_t job_id, const std::string &cluster)
	{
		memset(&cond, 0, sizeof(cond));
		memset(&sel, 0, sizeof(sel));
		cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
		cond.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
		cond.step_list = slurm_list_create(nullptr);
		sel.array_task_id = NO_VAL;
		sel.het_job_offset = NO_VAL;
		sel.step_id.job_id = job_id;
		sel.step_id.step_id = NO_VAL;
		sel.step_id.step_het_comp = NO_VAL;
		slurm_list_append(cond.step_list, &sel);
		if (!cluster.empty()) {
			cond.cluster_list = slurm_list_create(nullptr);
			slurm_list_append(cond.cluster_list, const_cast<char *>(cluster.c_str()));
		}
	}
	~job_cond()
	{
		slurm_list_destroy(cond.step_list);
		if (cond.cluster_list)
			slurm_list_destroy(cond.cluster_list);
	}
	job_cond(const job_cond &) = delete;
	job_cond &operator=(const job_cond &) = delete;
};

bool acct_read(void *db, uint32_t job_id, const std::string &cluster, acct_job &out, std::string &err)
{
	job_cond jc(job_id, cluster);
	List l = slurmdb_jobs_get(db, &jc.cond);
	if (!l) {
		err = "slurmdb_jobs_get: " + slurm_err();
		return false;
	}
	out = acct_job();
	ListIterator it = slurm_list_iterator_create(l);
	slurmdb_job_rec_t *j;
	while ((j = static_cast<slurmdb_job_rec_t *>(slurm_list_next(it))) != nullptr) {
		if (j->jobid != job_id)
			continue;
		// With requeues several records exist; the last one is the current run.
		out.found = true;
		out.derived_es = str(j->derived_es);
		out.admin_comment = str(j->admin_comment);
		out.state = job_state_name(j->state);
		out.nodes = str(j->nodes);
		out.name = str(j->jobname);
		out.exitcode = j->exitcode;
		out.derived_ec = j->derived_ec;
		out.start = j->start;
		out.end = j->end;
		out.steps.clear();
		if (j->steps) {
			ListIterator si = slurm_list_iterator_create(j->steps);
			slurmdb_step_rec_t *s;
			while ((s = static_cast<slurmdb_step_rec_t *>(slurm_list_next(si))) != nullptr) {
				acct_step st;
				st.id = step_name(s->step_id.step_id);
				st.name = str(s->stepname);
				st.state = job_state_name(s->state);
				st.nodes = str(s->nodes);
				st.exitcode = s->exitcode;
				st.start = s->start;
				st.end = s->end;
				out.steps.push_back(st);
			}
			slurm_list_iterator_destroy(si);
		}
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
	return true;
}

bool acct_modify(void *db, uint32_t job_id, const std::string &cluster, bool admin,
		 const std::string &value, std::string &err)
{
	job_cond jc(job_id, cluster);
	slurmdb_job_rec_t rec;
	memset(&rec, 0, sizeof(rec));
	rec.derived_ec = NO_VAL; // 0 would overwrite DerivedExitCode
	std::string v = value;
	if (admin)
		rec.admin_comment = &v[0];
	else
		rec.derived_es = &v[0];
	errno = 0;
	List ret = slurmdb_job_modify(db, &jc.cond, &rec);
	bool ok = ret && slurm_list_count(ret) > 0;
	if (ok) {
		// Without the commit the change is rolled back on close.
		if (slurmdb_connection_commit(db, 1) != SLURM_SUCCESS) {
			ok = false;
			err = "slurmdb_connection_commit: " + slurm_err();
		}
	} else {
		err = "slurmdb_job_modify: nothing modified (" + slurm_err() + ")";
	}
	if (ret)
		slurm_list_destroy(ret);
	return ok;
}

void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

} // namespace

void slurm_io_init()
{
	slurm_init(nullptr);
}

void slurm_io_fini()
{
	slurm_fini();
}

std::string job_state_name(uint32_t state)
{
	static const char *names[] = {"PENDING", "RUNNING",   "SUSPENDED", "COMPLETED",
				      "CANCELLED", "FAILED",  "TIMEOUT",   "NODE_FAIL",
				      "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
	uint32_t b = state & JOB_STATE_BASE;
	return b < sizeof(names) / sizeof(names[0]) ? names[b] : "UNKNOWN";
}

std::string exit_pair(uint32_t status)
{
	int st = static_cast<int>(status);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (status == NO_VAL)
		return "";
	return std::to_string(code) + ":" + std::to_string(sig);
}

bool load_job(uint32_t job_id, job_info &out, std::string &err)
{
	job_info_msg_t *msg = nullptr;
	if (slurm_load_job(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !msg) {
		err = "slurm_load_job: " + slurm_err();
		return false;
	}
	bool found = false;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];
		if (j->job_id != job_id)
			continue;
		found = true;
		out.loaded = true;
		out.state = job_state_name(j->job_state);
		const char *r = slurm_job_reason_string(static_cast<enum job_state_reason>(j->state_reason));
		out.reason = str(r);
		out.exit_code = j->exit_code;
		out.derived_ec = j->derived_ec;
		out.comment = str(j->comment);
		out.admin_comment = str(j->admin_comment);
		out.std_out = str(j->std_out);
		out.std_err = str(j->std_err);
		out.work_dir = str(j->work_dir);
		out.name = str(j->name);
		out.batch_host = str(j->batch_host);
		out.nodes = str(j->nodes);
		out.start = j->start_time;
		out.end = j->end_time;
		out.array_job_id = j->array_job_id;
		out.array_task_id = j->array_task_id;
		out.restart_cnt = j->restart_cnt;
		out.uid = j->user_id;
		out.gid = j->group_id;
		out.exclusive = j->shared == JOB_SHARED_NONE;
	}
	slurm_free_job_info_msg(msg);
	if (!found)
		err = "slurm_load_job: job not in the answer";
	return found;
}

// A connection to slurmdbd, or null with why in err.
static void *connect_db(std::string &err)
{
	uint16_t flags = 0;
	void *db = slurmdb_connection_get(&flags);
	if (!db)
		err = "slurmdb_connection_get: " + slurm_err();
	return db;
}

bool acct_load(uint32_t job_id, const std::string &cluster, acct_job &out, std::string &err)
{
	void *db = connect_db(err);
	if (!db)
		return false;
	bool ok = acct_read(db, job_id, cluster, out, err);
	slurmdb_connection_close(&db);
	return ok;
}

std::string acct_as_sacct(uint32_t job_id, const job_info &ji, const acct_job &aj)
{
	std::string o = "JobID|JobName|State|ExitCode|DerivedExitCode|Start|End|NodeList|Reason\n";
	std::string id = std::to_string(job_id);
	std::string state = ji.loaded ? ji.state : aj.state;
	o += id + "|" + field(ji.loaded ? ji.name : aj.name) + "|" + state + "|" +
	     exit_pair(ji.loaded ? ji.exit_code : aj.exitcode) + "|" +
	     exit_pair(ji.loaded ? ji.derived_ec : aj.derived_ec) + "|" +
	     time_str(ji.loaded ? ji.start : aj.start) + "|" + time_str(ji.loaded ? ji.end : aj.end) +
	     "|" + field(aj.nodes.empty() ? ji.nodes : aj.nodes) + "|" + field(ji.reason) + "\n";
	for (const acct_step &s : aj.steps)
		o += id + "." + s.id + "|" + field(s.name) + "|" + s.state + "|" +
		     exit_pair(static_cast<uint32_t>(s.exitcode)) + "||" + time_str(s.start) + "|" +
		     time_str(s.end) + "|" + field(s.nodes) + "|\n";
	return o;
}

comment_outcome write_verdict(uint32_t job_id, const std::string &cluster, bool admin,
			      const std::string &verdict, const std::string &hint, std::string &detail)
{
	void *db = connect_db(detail);
	if (!db)
		return comment_outcome::failed;
	comment_outcome res = comment_outcome::failed;
	for (int attempt = 0; attempt < 2; attempt++) {
		acct_job aj;
		std::string err;
		if (!acct_read(db, job_id, cluster, aj, err)) {
			detail = err;
			break;
		}
		if (!aj.found) {
			detail = "job not (yet) in the accounting database";
			sleep_ms(1000);
			continue;
		}
		std::string existing = admin ? aj.admin_comment : aj.derived_es;
		// The completion record may not have landed yet; build on the job's own
		// comment so that it is kept even then.
		if (existing.empty())
			existing = hint;
		auto next = comment_compose(existing, verdict);
		if (!next) {
			if (existing.find(verdict) != std::string::npos) {
				res = comment_outcome::already_present;
				detail.clear();
			} else {
				res = comment_outcome::skipped;
				detail = "field too long to append to";
			}
			break;
		}
		if (!acct_modify(db, job_id, cluster, admin, *next, err)) {
			detail = err;
			break;
		}
		res = comment_outcome::written;
		detail.clear();
		break;
	}
	slurmdb_connection_close(&db);
	return res;
}

comment_outcome confirm_verdict(uint32_t job_id, const std::string &cluster, bool admin,
				const std::string &verdict, const std::string &hint, int &rewrites,
				std::string &detail)
{
	// When to look again, after the write and after each other: the
	// completion record comes within seconds when it comes late.
	static const long look_ms[] = {700, 1500, 3000, 5000};
	constexpr int max_rewrites = 3;
	rewrites = 0;
	void *db = connect_db(detail);
	if (!db)
		return comment_outcome::failed;
	comment_outcome res = comment_outcome::failed;
	const size_t n = sizeof(look_ms) / sizeof(look_ms[0]);
	size_t looks = n;
	for (size_t i = 0; i < looks; i++) {
		sleep_ms(look_ms[std::min(i, n - 1)]);
		acct_job aj;
		std::string err;
		if (!acct_read(db, job_id, cluster, aj, err) || !aj.found) {
			res = comment_outcome::failed;
			detail = aj.found || !err.empty() ? err : "job not in the accounting database";
			continue;
		}
		std::string existing = admin ? aj.admin_comment : aj.derived_es;
		if (existing.find(verdict) != std::string::npos) {
			res = comment_outcome::written;
			detail.clear();
			continue;
		}
		// Overwritten (the job-completion record): written again, on what is
		// there now, and looked at once more.
		res = comment_outcome::failed;
		detail = "overwritten after writing (job-completion record?)";
		if (rewrites >= max_rewrites)
			break;
		auto next = comment_compose(existing.empty() ? hint : existing, verdict);
		if (!next) {
			detail = "overwritten after writing, and the field is now too long to append to";
			break;
		}
		if (!acct_modify(db, job_id, cluster, admin, *next, err)) {
			detail = "overwritten after writing; writing again: " + err;
			continue;
		}
		rewrites++;
		if (i + 1 == looks && looks == n)
			looks++; // written at the last look: one more
	}
	slurmdb_connection_close(&db);
	return res;
}

std::string hostlist_first(const std::string &expr)
{
	if (expr.empty())
		return "";
	hostlist_t hl = slurm_hostlist_create(expr.c_str());
	if (!hl)
		return "";
	char *h = slurm_hostlist_shift(hl);
	std::string r = str(h);
	free(h);
	slurm_hostlist_destroy(hl);
	return r;
}

std::vector<std::string> hostlist_all(const std::string &expr, size_t max)
{
	std::vector<std::string> r;
	if (expr.empty())
		return r;
	hostlist_t hl = slurm_hostlist_create(expr.c_str());
	if (!hl)
		return r;
	while (r.size() < max) {
		char *h = slurm_hostlist_shift(hl);
		if (!h)
			break;
		r.push_back(h);
		free(h);
	}
	slurm_hostlist_destroy(hl);
	return r;
}

int hostlist_count(const std::string &expr)
{
	if (expr.empty())
		return 0;
	hostlist_t hl = slurm_hostlist_create(expr.c_str());
	if (!hl)
		return 0;
	int n = slurm_hostlist_count(hl);
	slurm_hostlist_destroy(hl);
	return n;
}

} // namespace denpex::epilog
