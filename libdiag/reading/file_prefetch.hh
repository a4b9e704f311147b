// Choosing the lines of the files a walk is about to read, ahead of it, on a
// small pool of threads: a bundle of per-rank files is hundreds of
// event-first scans (reading/event_scan.hh) that need nothing of each other.
// The reading itself stays on the caller's thread, file by file in the walk's
// order, so the evidence (and the verdict) does not depend on the threads.
//
// Bounded: a few threads (DENPEX_THREADS, the CPUs, at most max_workers),
// each with its own copy of the rules and the scan's own buffers, and at most
// a few files chosen ahead of the reader. A worker opens a file as the
// reader will (no symlink followed where the reader follows none) and only
// reads it; the reader takes a choice only for the very file it opened
// (device, inode, size and times equal), else chooses itself. Threads are
// joined by the destructor, on every path; a thread that cannot be started,
// or a worker that fails, only leaves the choosing to the reader.
#pragma once

#include "matching/signature.hh"
#include "reading/event_scan.hh"
#include "reading/source_sniff.hh"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace diag {

struct file_prefetch_options {
	size_t max_line = 64 * 1024;
	uint64_t max_bytes = 0; // the reader's byte cap (a capped file is read line by line)
	bool no_follow = false;
};

class file_prefetch {
public:
	// paths: the regular files the walk will read, in its order.
	file_prefetch(const std::vector<std::string> &paths, const rule_set &rules, const file_prefetch_options &o);
	~file_prefetch();
	file_prefetch(const file_prefetch &) = delete;
	file_prefetch &operator=(const file_prefetch &) = delete;

	// The choice made ahead for path, now open as fd and sniffed as kind:
	// true with out filled when a worker chose the lines of this very file
	// (waiting for it if it is at it: meanwhile, with mine, the reader's
	// own rules, choosing a later file ahead itself); false when the reader
	// must choose (not listed, not begun yet, another file now, a failure).
	bool take(const std::string &path, int fd, source_kind kind, chosen_lines &out, rule_set *mine = nullptr);

	// What a worker's sniff of path's head found, where it sniffed this
	// very file (open as fd: device, inode, size and times equal) as text
	// of no GPU-health format (the only files it chooses): true with out
	// set, the reader's own sniff of the same bytes spared; else false.
	bool sniffed(const std::string &path, int fd, sniff_result &out);
	// How many threads choose ahead (0: none, the reader does it all).
	size_t workers() const { return fp_threads.size(); }

private:
	enum class state { waiting, choosing, chosen, none };
	struct item {
		std::string path;
		state st = state::waiting;
		source_kind kind = source_kind::job_log;
		uint64_t dev = 0, ino = 0, size = 0;
		int64_t mtime_ns = 0, ctime_ns = 0;
		chosen_lines result;
		bool sniffed = false; // sniff and the identity above are set (under the lock)
		sniff_result sniff;
	};
	void work(rule_set rules);
	bool choose(item &it, rule_set &rules);

	file_prefetch_options fp_opts;
	std::vector<item> fp_items;
	std::unordered_map<std::string, std::vector<size_t>> fp_by_path; // path -> its items, in order
	std::mutex fp_lock;
	std::condition_variable fp_changed;
	size_t fp_next = 0;     // the next item a worker takes up
	size_t fp_consumed = 0; // one past the last item the reader took
	size_t fp_window = 0;   // how far ahead of it the workers go
	bool fp_stop = false;
	std::vector<std::thread> fp_threads;
};

} // namespace diag
