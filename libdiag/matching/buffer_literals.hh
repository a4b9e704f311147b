// The fault literals found over whole buffers (the event-first reader's
// forward scan, reading/event_scan.hh): Vectorscan's literal matcher where
// it is built in (configure: HAVE_VECTORSCAN) and the CPU runs it, else the
// in-house literal_set. Vectorscan scans a training log about three times
// as fast, but compiling its database takes about 10 ms: it is made on the
// first scan of a large file, once per process for a list of literals (read
// back from the user's cache, matching/compiled_cache.hh, where a run
// before stored it), and small inputs never pay for it.
#pragma once

#include "matching/literal_set.hh"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

struct hs_literal_db; // a compiled Vectorscan database (buffer_literals.cc)

class buffer_literals {
public:
	// The literals to find (none empty). The in-house filter is built
	// now, Vectorscan's database on the first scanner that wants it.
	void build(const std::vector<std::string> &literals);
	size_t size() const { return bl_literals.size(); }
	const std::vector<std::string> &literals() const { return bl_literals; }

	// A scan of one thread at a time (it holds the thread's scratch space
	// where Vectorscan serves).
	class scanner {
	public:
		scanner(scanner &&o) noexcept;
		scanner &operator=(scanner &&) = delete;
		~scanner();
		// Whether Vectorscan scans (else the in-house filter).
		bool vectorscan() const { return sc_scratch != nullptr; }
		// fn(start) for every occurrence of every literal in text, in
		// order of where they end (so of their lines: no literal holds a
		// '\n').
		template <typename F>
		void scan(std::string_view text, F &&fn)
		{
			// (Vectorscan's block mode takes an unsigned length.)
			if (vectorscan() && text.size() < (1u << 31)) {
				auto call = [](void *ctx, size_t start) { (*static_cast<F *>(ctx))(start); };
				hs_scan(text, call, &fn);
				return;
			}
			std::vector<std::pair<size_t, size_t>> &found = sc_found;
			found.clear();
			sc_owner->bl_filter.scan_at(text, [&](int id, size_t end) {
				found.emplace_back(end, end - sc_owner->bl_filter.literal_size(id));
			});
			// The filter's calls come by position tested, not by end.
			std::sort(found.begin(), found.end());
			for (const auto &f : found)
				fn(f.second);
		}

	private:
		friend class buffer_literals;
		explicit scanner(const buffer_literals *owner) : sc_owner(owner) {}
		void hs_scan(std::string_view text, void (*call)(void *, size_t), void *ctx);
		const buffer_literals *sc_owner;
		std::shared_ptr<const hs_literal_db> sc_db;
		void *sc_scratch = nullptr;
		std::vector<std::pair<size_t, size_t>> sc_found; // (end, start), the filter's
	};

	// A scanner; allow_vectorscan false: the in-house filter's (to
	// compare the two).
	scanner make_scanner(bool allow_vectorscan = true) const;

	// How the process's Vectorscan databases were made (for tests):
	// compiled, or read from the user's cache.
	struct database_counts {
		unsigned compiled = 0, loaded = 0;
	};
	static database_counts vectorscan_counts();
	// Forgets the process's databases (for tests: the next scanner's is
	// made again, from the cache or compiled); scanners keep theirs.
	static void forget_databases();

private:
	std::vector<std::string> bl_literals;
	literal_set bl_filter;
};

} // namespace diag
