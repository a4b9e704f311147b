#include "reading/file_prefetch.hh"

#include "reading/fd_io.hh"

#include "reading/gpu_health_readers.hh"
#include "reading/source_sniff.hh"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace diag {

namespace {

constexpr size_t max_workers = 3;            // beyond the reader's own thread
constexpr size_t ahead_per_worker = 2;       // files chosen ahead of the reader, per worker
constexpr uint64_t split_min = 64ull << 20;  // a file this large still scans in two halves
constexpr size_t sniff_bytes = 64 * 1024;    // what the reader sniffs

// All threads, the reader's included: DENPEX_THREADS (1: no pool) or the CPUs.
size_t thread_count()
{
	if (const char *e = getenv("DENPEX_THREADS"); e && *e)
		return static_cast<size_t>(std::max(1, atoi(e)));
	return std::max(1u, std::thread::hardware_concurrency());
}

int64_t ns(const struct timespec &t)
{
	return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

} // namespace

file_prefetch::file_prefetch(const std::vector<std::string> &paths, const rule_set &rules,
			     const file_prefetch_options &o)
	: fp_opts(o)
{
	fp_items.resize(paths.size());
	for (size_t i = 0; i < paths.size(); i++) {
		fp_items[i].path = paths[i];
		fp_by_path[paths[i]].push_back(i);
	}
	if (paths.size() < 2)
		return; // one file: the reader chooses (in two halves)
	size_t n = std::min(thread_count() - 1, max_workers);
	fp_window = ahead_per_worker * std::max<size_t>(1, n);
	try {
		for (size_t i = 0; i < n; i++) {
			rule_set own = rules.copy_for_thread();
			fp_threads.emplace_back([this, r = std::move(own)]() mutable { work(std::move(r)); });
		}
	} catch (...) {
		// Fewer threads (none at worst): the reader chooses the rest.
	}
}

file_prefetch::~file_prefetch()
{
	{
		std::lock_guard<std::mutex> held(fp_lock);
		fp_stop = true;
	}
	fp_changed.notify_all();
	for (auto &t : fp_threads)
		t.join();
}

void file_prefetch::work(rule_set rules)
{
	for (;;) {
		size_t i;
		{
			std::unique_lock<std::mutex> held(fp_lock);
			fp_changed.wait(held, [&] {
				return fp_stop || fp_next >= fp_items.size() || fp_next < fp_consumed + fp_window;
			});
			if (fp_stop || fp_next >= fp_items.size())
				return;
			i = fp_next++;
			if (fp_items[i].st != state::waiting)
				continue; // the reader got there first
			fp_items[i].st = state::choosing;
		}
		state done = state::none;
		try {
			done = choose(fp_items[i], rules) ? state::chosen : state::none;
		} catch (...) {
			done = state::none; // out of memory and such: the reader chooses
		}
		{
			std::lock_guard<std::mutex> held(fp_lock);
			fp_items[i].st = done;
		}
		fp_changed.notify_all();
	}
}

// Opens the file as the reader will, and chooses its lines where the reader
// would read it event-first (true); false where it would not.
bool file_prefetch::choose(item &it, rule_set &rules)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	if (fp_opts.no_follow)
		flags |= O_NOFOLLOW;
	int fd = open(it.path.c_str(), flags);
	if (fd < 0)
		return false;
	unique_fd closer(fd);
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	const uint64_t size = static_cast<uint64_t>(st.st_size);
	if ((fp_opts.max_bytes != 0 && size > fp_opts.max_bytes) || !event_scan_pays(size))
		return false;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	std::vector<char> head(static_cast<size_t>(std::min<uint64_t>(size, sniff_bytes)));
	if (!pread_all(fd, head.data(), head.size(), 0))
		return false;
	std::string_view h(head.data(), head.size());
	sniff_result sr = sniff_source(h);
	if (sr.what != sniffed::text || sniff_gpu_health(h) != gpu_health_format::none)
		return false;
	{
		std::lock_guard<std::mutex> held(fp_lock);
		it.kind = sr.kind;
		it.size = size;
		it.mtime_ns = ns(st.st_mtim);
		it.ctime_ns = ns(st.st_ctim);
		it.dev = static_cast<uint64_t>(st.st_dev);
		it.ino = static_cast<uint64_t>(st.st_ino);
		it.sniff = sr;
		it.sniffed = true;
	}
	it.result.served = choose_lines(fd, size, sr.kind, rules, fp_opts.max_line, it.result.lines, it.result.stats,
					size >= split_min);
	return true;
}

bool file_prefetch::sniffed(const std::string &path, int fd, sniff_result &out)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return false;
	std::lock_guard<std::mutex> held(fp_lock);
	auto at = fp_by_path.find(path);
	if (at == fp_by_path.end() || at->second.empty())
		return false;
	const item &it = fp_items[at->second.front()];
	if (!it.sniffed || static_cast<uint64_t>(st.st_dev) != it.dev || static_cast<uint64_t>(st.st_ino) != it.ino ||
	    static_cast<uint64_t>(st.st_size) != it.size || ns(st.st_mtim) != it.mtime_ns || ns(st.st_ctim) != it.ctime_ns)
		return false;
	out = it.sniff;
	return true;
}

bool file_prefetch::take(const std::string &path, int fd, source_kind kind, chosen_lines &out, rule_set *mine)
{
	std::unique_lock<std::mutex> held(fp_lock);
	auto at = fp_by_path.find(path);
	if (at == fp_by_path.end() || at->second.empty())
		return false;
	size_t i = at->second.front();
	at->second.erase(at->second.begin());
	item &it = fp_items[i];
	if (i + 1 > fp_consumed) {
		fp_consumed = i + 1;
		fp_changed.notify_all(); // the window moves on
	}
	if (it.st == state::waiting) {
		it.st = state::none; // not begun: the reader chooses now
		return false;
	}
	// A worker is at it. Rather than wait idle (the reader and one worker
	// would take turns, one CPU scanning), the reader chooses a later file
	// of the window as a worker would, for when it gets there.
	while (it.st == state::choosing) {
		size_t j = SIZE_MAX;
		for (size_t k = std::max(fp_next, i + 1); mine && k < fp_items.size() && k < fp_consumed + fp_window; k++)
			if (fp_items[k].st == state::waiting) {
				j = k;
				break;
			}
		if (j == SIZE_MAX) {
			fp_changed.wait(held, [&] { return it.st != state::choosing; });
			break;
		}
		fp_items[j].st = state::choosing;
		held.unlock();
		state done = state::none;
		try {
			done = choose(fp_items[j], *mine) ? state::chosen : state::none;
		} catch (...) {
			done = state::none; // the reader chooses it when it gets there
		}
		held.lock();
		fp_items[j].st = done;
		fp_changed.notify_all();
	}
	if (it.st != state::chosen)
		return false;
	it.st = state::none;
	struct stat st;
	if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_dev) != it.dev ||
	    static_cast<uint64_t>(st.st_ino) != it.ino || static_cast<uint64_t>(st.st_size) != it.size ||
	    ns(st.st_mtim) != it.mtime_ns || ns(st.st_ctim) != it.ctime_ns || kind != it.kind)
		return false; // another file, or this one changed since
	out = std::move(it.result);
	it.result = chosen_lines();
	return true;
}

} // namespace diag
