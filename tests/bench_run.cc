// bench_run: runs a command several times and reports the median wall time
// and the peak resident set size of the runs (getrusage of each child, via
// wait4), for tests/bench.sh and tests/rss.sh. Standard output and error of
// the command go to /dev/null.
//
//   bench_run [-n RUNS] [--out FILE] [--max-rss-kib K] -- COMMAND [ARG...]
//
// --out: standard output goes to FILE instead (GNU grep stops at the first
// match when it writes to /dev/null, which would not be a fair race).
// Prints one line: "<median seconds> <peak rss KiB> <exit status of the last run>".
// With --max-rss-kib, exits 1 when a run's peak RSS went over K KiB, and 2
// when the command failed; otherwise 0.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

int main(int argc, char **argv)
{
	int runs = 5;
	long max_rss = 0;
	const char *out = "/dev/null";
	int i = 1;
	for (; i < argc; i++) {
		std::string a = argv[i];
		if (a == "-n" && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (a == "--out" && i + 1 < argc)
			out = argv[++i];
		else if (a == "--max-rss-kib" && i + 1 < argc)
			max_rss = atol(argv[++i]);
		else if (a == "--") {
			i++;
			break;
		} else {
			fprintf(stderr, "bench_run: unknown argument '%s'\n", a.c_str());
			return 2;
		}
	}
	if (i >= argc || runs < 1) {
		fprintf(stderr, "usage: bench_run [-n RUNS] [--out FILE] [--max-rss-kib K] -- COMMAND [ARG...]\n");
		return 2;
	}
	std::vector<double> times;
	long peak = 0;
	int status = 0;
	for (int r = 0; r < runs; r++) {
		auto t0 = std::chrono::steady_clock::now();
		pid_t pid = fork();
		if (pid < 0) {
			perror("bench_run: fork");
			return 2;
		}
		if (pid == 0) {
			int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			int null = open("/dev/null", O_WRONLY);
			if (o >= 0)
				dup2(o, 1);
			if (null >= 0)
				dup2(null, 2);
			execvp(argv[i], argv + i);
			_exit(127);
		}
		int st = 0;
		struct rusage ru;
		while (wait4(pid, &st, 0, &ru) < 0) {
			if (errno != EINTR) {
				perror("bench_run: wait4");
				return 2;
			}
		}
		auto t1 = std::chrono::steady_clock::now();
		times.push_back(std::chrono::duration<double>(t1 - t0).count());
		peak = std::max(peak, ru.ru_maxrss); // KiB on Linux
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	std::sort(times.begin(), times.end());
	double med = times.size() % 2 ? times[times.size() / 2]
				      : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
	printf("%.4f %ld %d\n", med, peak, status);
	if (max_rss > 0) {
		if (status != 0)
			return 2;
		if (peak > max_rss)
			return 1;
	}
	return 0;
}
