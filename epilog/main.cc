// denpex-epilog: Slurm Epilog / EpilogSlurmctld program.
//
// Work split (see denpex-epilog(8)):
//   every node's Epilog   copies its share of evidence (the job's spool files,
//                         read as the job user; its kernel messages of the job
//                         window) into <state_dir>/<job>/ and leaves a marker;
//   the diagnosing site   (diagnose_in: node → the first node of the allocation;
//                         slurmctld → EpilogSlurmctld) waits a bounded time for
//                         all nodes' markers, adds the job's stdout/stderr and
//                         accounting state, runs libdiag once, writes the admin
//                         report and appends the verdict to the job's Comment.
// The stages are files of their own (run.cc runs them: job_context,
// gathering, diagnosing, job_report, verdict_comment). Here: the command
// line and a watchdog parent that kills the worker at deadline_s. Always
// exits 0: a non-zero node epilog drains the node.
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bounded_child.hh"
#include "config.hh"
#include "log.hh"
#include "run.hh"
#include "slurm_io.hh"
#include "verdict_comment.hh"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#ifndef DENPEX_SYSCONFDIR
#define DENPEX_SYSCONFDIR "/etc/denpex"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

namespace denpex::epilog {

namespace {

volatile pid_t worker_pid = 0;
volatile sig_atomic_t stop_signal = 0;

// Exit 0 whatever happens to us: a signal death would drain the node.
extern "C" void on_fatal_signal(int)
{
	if (worker_pid > 0) {
		kill(-worker_pid, SIGKILL);
		kill(worker_pid, SIGKILL);
	}
	_exit(0);
}

// SIGTERM, SIGINT, SIGHUP: the worker is told to stop and gets a short grace
// to write its report (what it has, and that it was stopped).
extern "C" void on_stop_signal(int sig)
{
	if (worker_pid <= 0)
		_exit(0);
	stop_signal = sig;
}

// In the worker.
extern "C" void on_worker_stop(int)
{
	request_stop();
}

// How long a stopped worker may take for its report.
constexpr double stop_grace_s = 3.0;

int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-c CONFIG] [--flush] [--version]\n"
		"  Slurm's Epilog / EpilogSlurmctld (see denpex-epilog(8)); CONFIG defaults to %s\n"
		"  --flush  write verdicts queued while slurmdbd was unreachable, then exit\n",
		argv0, DENPEX_SYSCONFDIR "/denpex.yaml");
	return 0;
}

} // namespace

} // namespace denpex::epilog

int main(int argc, char **argv)
{
	using namespace denpex::epilog;
	try {
		// Slurm gives no PATH; set ours and keep what we create private.
		setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
		umask(027);
		signal(SIGPIPE, SIG_IGN);
		// No SA_RESTART: a wait in progress sees EINTR and the flag.
		struct sigaction sa = {};
		sa.sa_handler = on_stop_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, nullptr);
		sigaction(SIGINT, &sa, nullptr);
		sigaction(SIGHUP, &sa, nullptr);
		signal(SIGALRM, on_fatal_signal);
		alarm(120); // a safety net until the configured deadline is known
		std::string conf_path = DENPEX_SYSCONFDIR "/denpex.yaml";
		bool flush = false;
		for (int i = 1; i < argc; i++) {
			std::string a = argv[i];
			if ((a == "-c" || a == "--config") && i + 1 < argc)
				conf_path = argv[++i];
			else if (a == "--flush")
				flush = true;
			else if (a == "--version") {
				printf("denpex-epilog %s (config %s)\n", PACKAGE_VERSION, DENPEX_SYSCONFDIR "/denpex.yaml");
				return 0;
			} else
				return usage(argv[0]);
		}
		log_open();
		double t0 = mono_now();
		config_result cr = config_load(conf_path);
		for (const std::string &e : cr.errors)
			log_msg(LOG_ERR, "config: %s", e.c_str());

		// The watchdog: the worker runs in its own process group and dies at
		// the deadline with everything it started.
		alarm(cr.cfg.deadline_s + 5);
		pid_t pid = fork();
		if (pid == 0) {
			struct sigaction ws = {};
			ws.sa_handler = on_worker_stop;
			sigemptyset(&ws.sa_mask);
			sigaction(SIGTERM, &ws, nullptr);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGALRM, SIG_DFL);
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			try {
				if (flush) {
					if (geteuid() != 0) {
						log_msg(LOG_ERR, "--flush must run as root (the queue is root's, in %s/.queue)",
							cr.cfg.state_dir.c_str());
					} else {
						slurm_io_init();
						flush_comment_queue(cr.cfg, 1000, cr.cfg.deadline_s - 3, true);
					}
					_exit(0);
				}
				run_epilog(cr.cfg, t0);
			} catch (const std::exception &e) {
				log_msg(LOG_ERR, "internal error: %s", e.what());
			} catch (...) {
				log_msg(LOG_ERR, "internal error");
			}
			_exit(0);
		}
		if (pid < 0) {
			log_msg(LOG_ERR, "fork: %s; nothing done", strerror(errno));
			return 0;
		}
		setpgid(pid, pid);
		worker_pid = pid;
		double deadline = t0 + cr.cfg.deadline_s;
		bool stop_sent = false;
		const char *job = getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "?";
		for (;;) {
			int st;
			pid_t w = waitpid(pid, &st, WNOHANG);
			if (w == pid || (w < 0 && errno != EINTR))
				break;
			if (stop_signal && !stop_sent) {
				stop_sent = true;
				kill(pid, SIGTERM);
				deadline = std::min(deadline, mono_now() + stop_grace_s);
				log_msg(LOG_WARNING, "job %s: signal %d after %.1f s; the run stops and writes its report",
					job, static_cast<int>(stop_signal), mono_now() - t0);
			}
			if (mono_now() >= deadline) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				if (stop_sent)
					log_msg(LOG_ERR, "job %s: stopped by signal; no report within %.0f s", job,
						stop_grace_s);
				else
					log_msg(LOG_ERR, "job %s: deadline of %u s reached; stopped", job,
						cr.cfg.deadline_s);
				for (int i = 0; i < 100 && waitpid(pid, &st, WNOHANG) == 0; i++)
					sleep_ms(10);
				break;
			}
			sleep_ms(50);
		}
	} catch (const std::exception &e) {
		denpex::epilog::log_msg(LOG_ERR, "internal error: %s", e.what());
	} catch (...) {
		denpex::epilog::log_msg(LOG_ERR, "internal error");
	}
	return 0;
}
