// The event-first reader's timed-line filter (event_scan.cc) at a chosen
// SIMD level: the reader runs the best level the CPU has, and the tests
// hold every level it has against the byte-by-byte walk.
#pragma once

#include <cstddef>

namespace diag::timed_filter {

// Each level also runs the ones below it on what its wider loads leave.
enum class level { scalar, sse2, avx2, avx512, avx512vbmi };

// The best level this build and CPU run (what the reader uses).
level best();

// The first (last) position in p[from, to) of p[0, n) that may hold or
// join a time (the filter's candidate), or SIZE_MAX; p[0] starts a line.
// The answer is the same at every level up to best().
size_t first_candidate(const unsigned char *p, size_t n, size_t from, size_t to, level l);
size_t last_candidate(const unsigned char *p, size_t n, size_t from, size_t to, level l);

} // namespace diag::timed_filter
