#include "matching/buffer_literals.hh"

#include "config.h"
#include "matching/compiled_cache.hh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#ifdef HAVE_VECTORSCAN
#include <hs.h>
#endif

namespace diag {

#ifdef HAVE_VECTORSCAN
struct hs_literal_db {
	hs_database_t *db = nullptr;
	std::vector<uint32_t> lengths; // by pattern id
	~hs_literal_db() { hs_free_database(db); }
};

namespace {

std::mutex databases_lock;
std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const hs_literal_db>>> databases;
buffer_literals::database_counts counts;

// The file cache's key for a literal list: the whole list and Vectorscan's
// version (a database is only good for the version that wrote it); and a
// file name from its hash.
std::string cache_key(const std::vector<std::string> &literals)
{
	std::string key = std::string("vectorscan ") + hs_version() + " literals\n";
	for (const auto &l : literals)
		key += std::to_string(l.size()) + ":" + l + "\n";
	return key;
}

std::string cache_name(const std::string &key)
{
	uint64_t h = 14695981039346656037ull; // FNV-1a
	for (unsigned char c : key)
		h = (h ^ c) * 1099511628211ull;
	char name[48];
	snprintf(name, sizeof name, "fault-literals-%016llx.hsdb", static_cast<unsigned long long>(h));
	return name;
}

// The database the user's cache holds for the list (compiled_cache.hh),
// or null.
hs_database_t *cached_database(const std::string &dir, const std::string &key)
{
	std::string bytes;
	if (!compiled_cache::load(dir, cache_name(key), key, bytes))
		return nullptr;
	hs_database_t *db = nullptr;
	if (hs_deserialize_database(bytes.data(), bytes.size(), &db) != HS_SUCCESS)
		return nullptr;
	return db;
}

void store_database(const std::string &dir, const std::string &key, const hs_database_t *db)
{
	char *bytes = nullptr;
	size_t n = 0;
	if (hs_serialize_database(db, &bytes, &n) != HS_SUCCESS)
		return;
	std::string copy(bytes, n);
	free(bytes);
	compiled_cache::store(dir, cache_name(key), key, copy);
}

// The process's databases, by literal list: a diagnosis loads its rules
// anew, but `denpex serve` diagnoses again and again with the same ones.
// Across processes, the user's cache: compiling takes about 10 ms of every
// run on a large input. Null where Vectorscan cannot serve (this CPU, a
// literal it refuses).
std::shared_ptr<const hs_literal_db> database_for(const std::vector<std::string> &literals)
{
	std::lock_guard<std::mutex> held(databases_lock);
	auto &cache = databases;
	for (const auto &c : cache)
		if (c.first == literals)
			return c.second;
	std::shared_ptr<hs_literal_db> made;
	bool usable = !literals.empty() && hs_valid_platform() == HS_SUCCESS;
	for (const auto &l : literals)
		if (l.empty() || l.find('\n') != std::string::npos)
			usable = false; // a literal across lines: the filter's
	if (usable) {
		std::vector<const char *> exprs;
		std::vector<size_t> lens;
		std::vector<unsigned> flags(literals.size(), 0), ids;
		auto db = std::make_shared<hs_literal_db>();
		for (size_t i = 0; i < literals.size(); i++) {
			exprs.push_back(literals[i].data());
			lens.push_back(literals[i].size());
			ids.push_back(static_cast<unsigned>(i));
			db->lengths.push_back(static_cast<uint32_t>(literals[i].size()));
		}
		const std::string dir = compiled_cache::directory(), key = dir.empty() ? std::string() : cache_key(literals);
		hs_compile_error_t *cerr = nullptr;
		if (!dir.empty() && (db->db = cached_database(dir, key))) {
			counts.loaded++;
			made = std::move(db);
		} else if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
						static_cast<unsigned>(literals.size()), HS_MODE_BLOCK, nullptr, &db->db,
						&cerr) == HS_SUCCESS) {
			counts.compiled++;
			if (!dir.empty())
				store_database(dir, key, db->db);
			made = std::move(db);
		} else {
			hs_free_compile_error(cerr);
		}
	}
	if (cache.size() >= 8)
		cache.erase(cache.begin());
	cache.emplace_back(literals, made);
	return made;
}

struct hs_call {
	const hs_literal_db *db;
	void (*call)(void *, size_t);
	void *ctx;
};

int on_match(unsigned id, unsigned long long, unsigned long long to, unsigned, void *ctx)
{
	const hs_call *c = static_cast<const hs_call *>(ctx);
	c->call(c->ctx, static_cast<size_t>(to) - c->db->lengths[id]);
	return 0;
}

// Each thread keeps the scratch space of its last scanner for its next one
// of the same database: allocating one takes about 0.2 ms, and a bundle of
// rank files is hundreds of scans (a scratch serves one scan at a time,
// so a scanner takes it and gives it back when it ends).
struct kept_scratch {
	std::shared_ptr<const hs_literal_db> db;
	hs_scratch_t *scratch = nullptr;
	~kept_scratch()
	{
		if (scratch)
			hs_free_scratch(scratch);
	}
};
thread_local kept_scratch kept;

} // namespace
#else
struct hs_literal_db {};
#endif

buffer_literals::database_counts buffer_literals::vectorscan_counts()
{
#ifdef HAVE_VECTORSCAN
	std::lock_guard<std::mutex> held(databases_lock);
	return counts;
#else
	return database_counts{};
#endif
}

void buffer_literals::forget_databases()
{
#ifdef HAVE_VECTORSCAN
	std::lock_guard<std::mutex> held(databases_lock);
	databases.clear();
#endif
}

void buffer_literals::build(const std::vector<std::string> &literals)
{
	bl_literals = literals;
	bl_filter = literal_set();
	for (const auto &l : literals)
		bl_filter.add(l);
	bl_filter.build();
}

buffer_literals::scanner buffer_literals::make_scanner(bool allow_vectorscan) const
{
	scanner s(this);
#ifdef HAVE_VECTORSCAN
	if (allow_vectorscan) {
		s.sc_db = database_for(bl_literals);
		hs_scratch_t *scratch = nullptr;
		if (s.sc_db && kept.scratch && kept.db == s.sc_db) {
			scratch = kept.scratch;
			kept.scratch = nullptr;
			kept.db.reset();
		}
		if (s.sc_db && (scratch || hs_alloc_scratch(s.sc_db->db, &scratch) == HS_SUCCESS))
			s.sc_scratch = scratch;
		else
			s.sc_db.reset();
	}
#else
	(void)allow_vectorscan;
#endif
	return s;
}

buffer_literals::scanner::scanner(scanner &&o) noexcept
	: sc_owner(o.sc_owner), sc_db(std::move(o.sc_db)), sc_scratch(o.sc_scratch), sc_found(std::move(o.sc_found))
{
	o.sc_scratch = nullptr;
}

buffer_literals::scanner::~scanner()
{
#ifdef HAVE_VECTORSCAN
	if (!sc_scratch)
		return;
	if (!kept.scratch) {
		kept.scratch = static_cast<hs_scratch_t *>(sc_scratch);
		kept.db = std::move(sc_db);
	} else {
		hs_free_scratch(static_cast<hs_scratch_t *>(sc_scratch));
	}
#endif
}

void buffer_literals::scanner::hs_scan(std::string_view text, void (*call)(void *, size_t), void *ctx)
{
#ifdef HAVE_VECTORSCAN
	hs_call c{sc_db.get(), call, ctx};
	::hs_scan(sc_db->db, text.data(), static_cast<unsigned>(text.size()), 0, static_cast<hs_scratch_t *>(sc_scratch),
		  on_match, &c);
#else
	(void)text;
	(void)call;
	(void)ctx;
#endif
}

} // namespace diag
