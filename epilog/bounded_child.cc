#include "bounded_child.hh"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

namespace denpex::epilog {

namespace {
volatile sig_atomic_t stop_flag = 0;
volatile double stop_at = 0; // monotonic, set before the flag
} // namespace

void request_stop()
{
	if (stop_flag)
		return;
	struct timespec ts; // clock_gettime is async-signal-safe
	clock_gettime(CLOCK_MONOTONIC, &ts);
	stop_at = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
	stop_flag = 1;
}

bool stop_requested()
{
	return stop_flag != 0;
}

double mono_now()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

namespace {

// Waits until fd is readable or until passes: 1 readable, 0 time is up, -1 error.
int wait_readable(int fd, double until, on_stop mode = on_stop::end)
{
	for (;;) {
		if (stop_requested()) {
			if (mode == on_stop::end)
				return 0;
			until = std::min(until, stop_at + finish_grace_s);
		}
		double left = until - mono_now();
		if (left <= 0)
			return 0;
		struct pollfd pfd = {fd, POLLIN, 0};
		int pr = poll(&pfd, 1, static_cast<int>(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -1;
		if (pr > 0)
			return 1;
	}
}

} // namespace

bool read_pipe_bounded(int fd, double until, size_t max_bytes, std::string &out, on_stop mode)
{
	char buf[65536];
	for (;;) {
		if (wait_readable(fd, until, mode) <= 0)
			return false;
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return r == 0;
		if (out.size() < max_bytes)
			out.append(buf, std::min(static_cast<size_t>(r), max_bytes - out.size()));
	}
}

bool read_pipe_exact(int fd, void *p, size_t n, double until, bool *timed_out)
{
	char *c = static_cast<char *>(p);
	*timed_out = false;
	while (n > 0) {
		int w = wait_readable(fd, until);
		if (w == 0)
			*timed_out = true;
		if (w <= 0)
			return false;
		ssize_t r = read(fd, c, n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return false;
		c += r;
		n -= static_cast<size_t>(r);
	}
	return true;
}

bool reap_child(pid_t pid, bool kill_first, double wait_s, int *status)
{
	if (kill_first) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	double until = mono_now() + wait_s;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return true;
		if (w < 0 && errno != EINTR)
			return false;
		if (mono_now() >= until)
			return false;
		sleep_ms(10);
	}
}

std::optional<std::string> run_bounded(double timeout_s, const std::function<std::string()> &fn, on_stop mode)
{
	int p[2];
	if (timeout_s <= 0 || pipe2(p, O_CLOEXEC) != 0)
		return std::nullopt;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return std::nullopt;
	}
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		std::string out;
		try {
			out = fn();
		} catch (...) {
			_exit(1);
		}
		size_t off = 0;
		while (off < out.size()) {
			ssize_t w = write(p[1], out.data() + off, out.size() - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			off += static_cast<size_t>(w);
		}
		_exit(0);
	}
	close(p[1]);
	std::string out;
	bool done = read_pipe_bounded(p[0], mono_now() + timeout_s, 64u << 20, out, mode);
	close(p[0]);
	int status = 0;
	// The child's exit follows its EOF closely; past the deadline it is killed.
	bool reaped = reap_child(pid, !done, 1.0, &status);
	if (!reaped && done)
		reaped = reap_child(pid, true, 1.0, &status), done = false;
	if (!done || !reaped || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return std::nullopt;
	return out;
}

bool run_detached(unsigned timeout_s, const std::function<void()> &fn)
{
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		// The middle child: a session of its own, the worker, and gone (the
		// worker is left to init).
		if (setsid() < 0)
			_exit(1);
		pid_t w = fork();
		if (w != 0)
			_exit(w < 0 ? 1 : 0);
		closelog(); // its descriptor goes below (fn may open it again)
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0)
			_exit(1);
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
		int top = static_cast<int>(std::min<long>(sysconf(_SC_OPEN_MAX), 65536));
		for (int fd = 3; fd < top; fd++)
			close(fd);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, nullptr);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		alarm(timeout_s);
		try {
			fn();
		} catch (...) {
		}
		_exit(0);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return false;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

} // namespace denpex::epilog
