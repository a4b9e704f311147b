#include "reading/event_scan.hh"

#include "reading/fd_io.hh"
#include "reading/line_prefix.hh"
#include "reading/text_clean.hh"
#include "reading/timed_filter.hh"
#include "reading/timestamp.hh"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DENPEX_HAVE_AVX2_PATH 1
#endif

namespace diag {

namespace {

constexpr size_t scan_block = 256 << 10;          // read and scanned in passes while in the CPU's L2 cache (1 MiB: 8% more time)
constexpr size_t max_hits = 256 * 1024;          // beyond: read line by line (hits cost as much)
constexpr uint64_t default_min_size = 1 << 20;   // smaller files: line by line
constexpr uint64_t parallel_min = 1 << 20;       // smaller files: one thread scans (a 2 MB rank file pays for the second: 1.6 s -> 1.2 s on 512 of them)
constexpr uint64_t tail_min = 16 * 1024;         // the tail read covers at least this (then as far again)
constexpr size_t tail_piece_min = 64 * 1024;     // its first read
constexpr uint64_t tail_budget_min = 1 << 20, tail_budget_max = 32ull << 20;
constexpr uint64_t context_reach = 8 << 20;      // how far to look for a line's inherited times
constexpr int context_before = 3;                // a rank named two lines before a traceback
constexpr uint64_t context_writer_bytes = 128 * 1024; // how far back a writer's own time is looked for

#ifdef DENPEX_HAVE_AVX2_PATH
// The whole file passes through count_newlines and first_candidate: where
// the CPU has AVX2 (checked at run time; the build stays portable) they
// take 32 bytes at a time, with the same answers.
// (__builtin_cpu_init: this may run before the constructor that sets up what
// __builtin_cpu_supports reads.)
const bool cpu_avx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
const bool cpu_avx512 = (__builtin_cpu_init(), __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f"));
const bool cpu_vbmi = cpu_avx512 && __builtin_cpu_supports("avx512vbmi");

__attribute__((target("avx2"))) uint64_t count_newlines_avx2(const char *p, size_t n, size_t &i)
{
	uint64_t count = 0;
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	while (i + 32 <= n) {
		__m256i acc = zero;
		for (int k = 0; k < 255 && i + 32 <= n; k++, i += 32) {
			__m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i));
			acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(x, nl));
		}
		__m256i sums = _mm256_sad_epu8(acc, zero);
		count += static_cast<uint64_t>(_mm256_extract_epi64(sums, 0)) +
			 static_cast<uint64_t>(_mm256_extract_epi64(sums, 1)) +
			 static_cast<uint64_t>(_mm256_extract_epi64(sums, 2)) +
			 static_cast<uint64_t>(_mm256_extract_epi64(sums, 3));
	}
	return count;
}
#endif

// How many '\n' in [p, p + n): byte counters summed every 255 blocks (no
// popcount: without -mpopcnt it is a library call per block).
uint64_t count_newlines(const char *p, size_t n)
{
	uint64_t count = 0;
	size_t i = 0;
#ifdef DENPEX_HAVE_AVX2_PATH
	if (cpu_avx2)
		count = count_newlines_avx2(p, n, i);
#endif
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (i + 16 <= n) {
		__m128i acc = zero;
		for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			__m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(x, nl));
		}
		__m128i sums = _mm_sad_epu8(acc, zero);
		count += static_cast<uint64_t>(_mm_cvtsi128_si32(sums)) +
			 static_cast<uint64_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
	}
#endif
	for (; i < n; i++)
		count += p[i] == '\n';
	return count;
}

// Rank-like writers (a rank, a task label, a local rank) print progress
// of their own; unprefixed lines and pids are anyone's.
bool rank_like(uint64_t ident)
{
	uint64_t k = ident >> 40;
	return k >= 1 && k <= 3;
}

// What the choice needs of one raw line: its writer and whether it has a
// time (cleaned first; the first segment names the writer).
struct line_look {
	uint64_t ident = 0;
	bool timed = false;
};

line_look look_at(std::string_view raw, source_kind kind, line_cleaner &cleaner)
{
	line_look l;
	bool first = true;
	cleaner.for_each_segment(raw, [&](std::string_view seg) {
		if (first && kind != source_kind::kernel_log)
			l.ident = writer_ident(parse_prefix(seg));
		first = false;
		if (!l.timed && may_have_timestamp(seg) && find_timestamp(seg))
			l.timed = true;
	});
	return l;
}

// Whether a raw line has a time (what look_at says, without the writer).
bool timed_line(std::string_view raw, line_cleaner &cleaner)
{
	if (!has_control(raw))
		return may_have_timestamp(raw) && find_timestamp(raw);
	bool timed = false;
	cleaner.for_each_segment(raw, [&](std::string_view seg) {
		if (!timed && may_have_timestamp(seg) && find_timestamp(seg))
			timed = true;
	});
	return timed;
}

inline bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Whether a line holding byte q of p[0, n) (lo: whether p[0] starts a
// line) may have a time, by the shapes may_have_timestamp looks for,
// loosely: a clock "dd:dd:d", a dmesg stamp "[  12.345", a
// line that starts with a blank or nine digits (epoch seconds), or any
// control byte (cleaning may join a time). Every timed line has one.
bool candidate_at(const unsigned char *p, size_t n, size_t q, bool line_start)
{
	unsigned char c = p[q];
	// A carriage return starts a segment (cleaning splits there): as a
	// line start. Other control bytes (escapes, tabs, NULs) may hide or
	// join a time.
	if (c == '\r')
		return q + 1 < n && p[q + 1] != '\n' && p[q + 1] != '\r' && candidate_at(p, n, q + 1, true);
	// An escape sequence, once removed, joins what was around it: a time
	// only where it sat inside one (after a digit, ':' or '['), or where
	// it leads the line.
	if (c == 0x1b)
		return line_start || (q > 0 && (digit(p[q - 1]) || p[q - 1] == ':' || p[q - 1] == '['));
	if ((c < 0x20 && c != '\n') || c == 0x7f)
		return true;
	if (c == ':' && q >= 2 && q + 4 < n && digit(p[q - 2]) && digit(p[q - 1]) && digit(p[q + 1]) &&
	    digit(p[q + 2]) && p[q + 3] == ':' && digit(p[q + 4]))
		return true;
	if (c == '[') {
		// dmesg's "[  123.456789]": blanks, digits, a dot.
		size_t r = q + 1;
		for (int pad = 0; pad < 12 && r < n && p[r] == ' '; pad++)
			r++;
		size_t d = r;
		while (d < n && d - r <= 10 && digit(p[d]))
			d++;
		return d >= n || (d > r && p[d] == '.');
	}
	if (line_start && c == ' ')
		return true;
	if (line_start && digit(c)) {
		size_t d = q;
		while (d < n && d - q < 9 && digit(p[d]))
			d++;
		return d - q >= 9 || d == n; // at the buffer's end: cannot tell
	}
	return false;
}

// The bits of candidate_mask, 16 (SSE2) or 32 (AVX2) positions at a time,
// from loads at p + i - 1, + 1, + 2, + 3 and + 8 (xm1, x1, x2, x3, x8).
// A '[' counts when the three bytes after it may begin dmesg's "[ 1." (blanks
// and digits, a dot: of "[1.5", "[ 12.", "[  1" each byte is one of those),
// an escape where candidate_at takes it (after a digit, ':', '[' or at a
// line start), a line start before a blank or before digits at 0-3 and 8.
// A whole file of untimed lines passes through here: a first, looser test
// (a colon pair, a control byte as the full test takes it, a '[' before
// what may end dmesg's "[ 1.", a line start before a blank or digits at 0,
// 3 and 8) from five loads lets most chunks of such a file go at a third
// of the cost (a bundle of rank files: its scan 20% faster; the digit at 8
// passes a line led by a 4-digit rank, "1461: step ...", the '[' test
// tqdm's "[01:02<03:04" and the escape test a colour's "\033[36m" after a
// blank: a quarter of a training log's chunks passed, now one in eight).
#define DENPEX_CANDIDATE_BITS(V, set1, cmpeq, and_, or_, andnot, min, sub, movemask, loadu, T)               \
	const V colon = set1(':'), bracket = set1('['), nl = set1('\n'), lo = set1(0x1f), del = set1(0x7f),     \
		blank = set1(' '), dot = set1('.'), esc = set1(0x1b), zero = set1('0'), nine = set1(9);          \
	const V x = loadu(reinterpret_cast<const T *>(p + i)), x3 = loadu(reinterpret_cast<const T *>(p + i + 3)), \
		xm1 = loadu(reinterpret_cast<const T *>(p + i - 1)), x8 = loadu(reinterpret_cast<const T *>(p + i + 8)); \
	V d_ = sub(x, zero);                                                                                    \
	const V dg = cmpeq(min(d_, nine), d_);                                                                  \
	d_ = sub(x3, zero);                                                                                     \
	const V dg3 = cmpeq(min(d_, nine), d_);                                                                 \
	d_ = sub(x8, zero);                                                                                     \
	const V dg8 = cmpeq(min(d_, nine), d_);                                                                 \
	const V start = cmpeq(xm1, nl), is_bracket = cmpeq(x, bracket), x_blank = cmpeq(x, blank);             \
	const V pair = and_(cmpeq(x, colon), cmpeq(x3, colon));                                                 \
	const V ctl = andnot(cmpeq(x, nl), or_(cmpeq(min(x, lo), x), cmpeq(x, del)));                           \
	const V x2 = loadu(reinterpret_cast<const T *>(p + i + 2));                                             \
	const V x2dot = cmpeq(x2, dot);                                                                         \
	const V x3dm = or_(x2dot, or_(or_(cmpeq(x3, blank), dg3), cmpeq(x3, dot)));                            \
	d_ = sub(xm1, zero);                                                                                    \
	const V dgm1 = cmpeq(min(d_, nine), d_);                                                                \
	const V is_esc = cmpeq(x, esc);                                                                         \
	const V esc_ok = or_(or_(start, dgm1), or_(cmpeq(xm1, colon), cmpeq(xm1, bracket)));                    \
	V m = or_(or_(pair, andnot(is_esc, ctl)), and_(is_esc, esc_ok));                                        \
	if (movemask(or_(or_(m, and_(is_bracket, x3dm)), and_(start, or_(x_blank, and_(and_(dg, dg3), dg8))))) == 0) \
		return 0;                                                                                       \
	const V x1 = loadu(reinterpret_cast<const T *>(p + i + 1));                                             \
	d_ = sub(x1, zero);                                                                                     \
	const V dg1 = cmpeq(min(d_, nine), d_);                                                                 \
	d_ = sub(x2, zero);                                                                                     \
	const V dg2 = cmpeq(min(d_, nine), d_);                                                                 \
	const V dm = and_(and_(is_bracket, or_(cmpeq(x1, blank), dg1)),                                        \
			  and_(or_(or_(cmpeq(x2, blank), dg2), x2dot), x3dm));                                  \
	m = or_(m, dm);                                                                                         \
	const V lead = or_(x_blank, and_(and_(and_(dg, dg1), and_(dg2, dg3)), dg8));                            \
	m = or_(m, and_(start, lead));                                                                          \
	return static_cast<uint32_t>(movemask(m))

#ifdef __SSE2__
// Bits of the 16 positions from p + i that candidate_at may accept (a
// superset, DENPEX_CANDIDATE_BITS). Reads p[i - 1, i + 24).
inline unsigned candidate_mask(const unsigned char *p, size_t i)
{
	DENPEX_CANDIDATE_BITS(__m128i, _mm_set1_epi8, _mm_cmpeq_epi8, _mm_and_si128, _mm_or_si128, _mm_andnot_si128,
			      _mm_min_epu8, _mm_sub_epi8, _mm_movemask_epi8, _mm_loadu_si128, __m128i);
}
#endif

// The lowest candidate among the mask's bits for the bytes from i on
// (i >= 1), or SIZE_MAX: the mask is a superset, so each bit is re-checked.
inline size_t lowest_candidate(const unsigned char *p, size_t n, size_t i, uint64_t bits)
{
	while (bits) {
		size_t at = i + static_cast<size_t>(__builtin_ctzll(bits));
		if (candidate_at(p, n, at, p[at - 1] == '\n'))
			return at;
		bits &= bits - 1;
	}
	return SIZE_MAX;
}

// The highest candidate among the mask's bits for the bytes from i on
// (i >= 1), or SIZE_MAX: the mask is a superset, so each bit is re-checked.
inline size_t highest_candidate(const unsigned char *p, size_t n, size_t i, uint64_t bits)
{
	while (bits) {
		unsigned b = 63u - static_cast<unsigned>(__builtin_clzll(bits));
		size_t at = i + b;
		if (candidate_at(p, n, at, p[at - 1] == '\n'))
			return at;
		bits &= ~(1ull << b);
	}
	return SIZE_MAX;
}

#ifdef DENPEX_HAVE_AVX2_PATH
// candidate_mask for the 32 positions from p + i: reads p[i - 1, i + 40).
__attribute__((target("avx2"), always_inline)) inline uint32_t candidate_mask_avx2(const unsigned char *p, size_t i)
{
	DENPEX_CANDIDATE_BITS(__m256i, _mm256_set1_epi8, _mm256_cmpeq_epi8, _mm256_and_si256, _mm256_or_si256,
			      _mm256_andnot_si256, _mm256_min_epu8, _mm256_sub_epi8, _mm256_movemask_epi8,
			      _mm256_loadu_si256, __m256i);
}

// candidate_mask for the 64 positions from p + i, where the CPU has
// AVX-512BW (the same tests as DENPEX_CANDIDATE_BITS, its compares giving
// bit masks at once: a file of untimed lines passes at about twice the
// speed of the AVX2 loop). Reads p[i - 1, i + 72).
#define DENPEX_AVX512 __attribute__((target("avx512f,avx512bw"), always_inline)) inline
DENPEX_AVX512 uint64_t eq512(__m512i v, char c) { return _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c)); }
DENPEX_AVX512 uint64_t digit512(__m512i v)
{
	return _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('0')), _mm512_set1_epi8(10));
}
DENPEX_AVX512 __m512i load512(const unsigned char *p) { return _mm512_loadu_si512(p); }
DENPEX_AVX512 uint64_t candidate_mask_avx512(const unsigned char *p, size_t i)
{
	const __m512i x = load512(p + i), x3 = load512(p + i + 3), xm1 = load512(p + i - 1), x8 = load512(p + i + 8);
	const uint64_t dg = digit512(x), dg3 = digit512(x3), dg8 = digit512(x8), start = eq512(xm1, '\n'),
		       bracket = eq512(x, '['), blank = eq512(x, ' '), pair = eq512(x, ':') & eq512(x3, ':');
	const uint64_t ctl =
		(_mm512_cmple_epu8_mask(x, _mm512_set1_epi8(0x1f)) & ~eq512(x, '\n')) | eq512(x, 0x7f);
	const __m512i x2 = load512(p + i + 2);
	const uint64_t x2dot = eq512(x2, '.'), x3dm = x2dot | eq512(x3, ' ') | dg3 | eq512(x3, '.');
	const uint64_t esc = eq512(x, 0x1b);
	const uint64_t esc_ok = start | digit512(xm1) | eq512(xm1, ':') | eq512(xm1, '[');
	const uint64_t m = pair | (ctl & ~esc) | (esc & esc_ok);
	if (!(m | (bracket & x3dm) | (start & (blank | (dg & dg3 & dg8)))))
		return 0;
	const __m512i x1 = load512(p + i + 1);
	const uint64_t dg1 = digit512(x1), dg2 = digit512(x2);
	const uint64_t dm = bracket & (eq512(x1, ' ') | dg1) & (eq512(x2, ' ') | dg2 | x2dot) & x3dm;
	return m | dm | (start & (blank | (dg & dg1 & dg2 & dg3 & dg8)));
}
#undef DENPEX_AVX512

// Where the CPU has AVX-512 VBMI, candidate_mask_avx512's tests by table:
// a byte permute (vpermi2b, 128 entries) turns each of six loads into the
// conditions it meets in its place (x: a control byte, an escape, ':',
// '[', a blank, a digit; x1: a blank or digit; x2: a blank, digit or dot;
// x3: ':', a blank, digit or dot; x8: a digit; xm1: '\n', a digit, ':' or
// '['), one bit per condition (set for a condition that does not look at
// that place), and three ANDs join them: eleven vector operations for its
// thirty-odd. Bytes from 0x80 are never x's condition (the permute's mask
// drops them); in the other places they read as their low seven bits: a
// looser test, never a stricter one, so candidate_mask_avx512 still
// refines the bits where any are set (a file of untimed lines is mostly
// chunks with none: colour escapes after a blank, a "\033[0m " pass here
// no more than there).
enum : uint8_t {
	loose_ctl = 1,     // x a control byte (not '\n', not an escape; 0x7f included)
	loose_esc = 2,     // x an escape, xm1 '\n', a digit, ':' or '['
	loose_pair = 4,    // x ':' and x3 ':'
	loose_br3 = 8,     // x '[', x1 a blank or digit, x2 and x3 a blank, digit or dot
	loose_br2 = 16,    // x '[', x1 a blank or digit, x2 a dot
	loose_blank = 32,  // xm1 '\n' and x a blank
	loose_digits = 64, // xm1 '\n' and x, x1, x2, x3 and x8 digits
	loose_all = 127
};

struct loose_tables {
	uint8_t x[128], x1[128], x2[128], x3[128], x8[128], xm1[128];
};

constexpr loose_tables make_loose_tables()
{
	loose_tables t{};
	for (int c = 0; c < 128; c++) {
		const bool dg = c >= '0' && c <= '9', bl = c == ' ', dot = c == '.';
		uint8_t x = 0;
		if ((c < 0x20 && c != '\n' && c != 0x1b) || c == 0x7f)
			x |= loose_ctl;
		if (c == 0x1b)
			x |= loose_esc;
		if (c == ':')
			x |= loose_pair;
		if (c == '[')
			x |= loose_br3 | loose_br2;
		if (bl)
			x |= loose_blank;
		if (dg)
			x |= loose_digits;
		t.x[c] = x;
		auto place = [](uint8_t looked, uint8_t met) {
			return static_cast<uint8_t>((loose_all & ~looked) | met);
		};
		t.x1[c] = place(loose_br3 | loose_br2 | loose_digits,
				(bl || dg ? loose_br3 | loose_br2 : 0) | (dg ? loose_digits : 0));
		t.x2[c] = place(loose_br3 | loose_br2 | loose_digits,
				(bl || dg || dot ? loose_br3 : 0) | (dot ? loose_br2 : 0) | (dg ? loose_digits : 0));
		t.x3[c] = place(loose_pair | loose_br3 | loose_digits,
				(c == ':' ? loose_pair : 0) | (bl || dg || dot ? loose_br3 : 0) | (dg ? loose_digits : 0));
		t.x8[c] = place(loose_digits, dg ? loose_digits : 0);
		t.xm1[c] = place(loose_esc | loose_blank | loose_digits,
				 (c == '\n' ? loose_esc | loose_blank | loose_digits : 0) |
					 (dg || c == ':' || c == '[' ? loose_esc : 0));
	}
	return t;
}

constexpr loose_tables loose = make_loose_tables();

#define DENPEX_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) inline

// The conditions of the bytes at p in a place (t: its 128 entries).
DENPEX_VBMI __m512i loose_place(const unsigned char *p, const uint8_t *t)
{
	return _mm512_permutex2var_epi8(_mm512_loadu_si512(t), _mm512_loadu_si512(p), _mm512_loadu_si512(t + 64));
}

// The table test's bits for the 64 positions from p + i (reads p[i - 1, i + 72)).
DENPEX_VBMI uint64_t loose_mask_vbmi(const unsigned char *p, size_t i)
{
	const __m512i x = _mm512_loadu_si512(p + i);
	const __m512i cx = _mm512_maskz_permutex2var_epi8(~_mm512_movepi8_mask(x), _mm512_loadu_si512(loose.x), x,
							   _mm512_loadu_si512(loose.x + 64));
	const __m512i a = _mm512_ternarylogic_epi32(cx, loose_place(p + i + 1, loose.x1), loose_place(p + i + 2, loose.x2),
						    0x80);
	const __m512i b = _mm512_ternarylogic_epi32(a, loose_place(p + i + 3, loose.x3), loose_place(p + i + 8, loose.x8),
						    0x80);
	return _mm512_test_epi8_mask(b, loose_place(p + i - 1, loose.xm1));
}

// first_candidate_avx512's loop with the test by table.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t first_candidate_vbmi(const unsigned char *p, size_t n,
										     size_t &q, size_t to)
{
	for (;;) {
		uint64_t bits = 0; // (as in first_candidate_avx512: no call in the loop)
		while (q + 64 <= to && q + 72 <= n && !(bits = loose_mask_vbmi(p, q)))
			q += 64;
		if (!bits)
			return SIZE_MAX;
		bits &= candidate_mask_avx512(p, q);
		if (size_t at = lowest_candidate(p, n, q, bits); at != SIZE_MAX)
			return at;
		q += 64;
	}
}

// last_candidate_avx512's loop with the test by table.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t last_candidate_vbmi(const unsigned char *p, size_t n,
										    size_t from, size_t &q)
{
	for (;;) {
		uint64_t bits = 0;
		while (q >= from + 64 && q >= 65 && !(bits = loose_mask_vbmi(p, q - 64)))
			q -= 64;
		if (!bits)
			return SIZE_MAX;
		bits &= candidate_mask_avx512(p, q - 64);
		if (size_t at = highest_candidate(p, n, q - 64, bits); at != SIZE_MAX)
			return at;
		q -= 64;
	}
}

// first_candidate's 64-byte loop, from q while q + 64 <= to and q + 72 <= n
// (q >= 1): the candidate, or SIZE_MAX with q where it stopped.
__attribute__((target("avx512f,avx512bw"))) size_t first_candidate_avx512(const unsigned char *p, size_t n, size_t &q,
									     size_t to)
{
	for (;;) {
		// The masks in a loop of their own, without a call: a call
		// clobbers the vector registers, and their constants would be
		// set up again for every 64 bytes.
		uint64_t bits = 0;
		while (q + 64 <= to && q + 72 <= n && !(bits = candidate_mask_avx512(p, q)))
			q += 64;
		if (!bits)
			return SIZE_MAX;
		if (size_t at = lowest_candidate(p, n, q, bits); at != SIZE_MAX)
			return at;
		q += 64;
	}
}

// last_candidate's 64-byte loop, down from q while q >= from + 64 and q >=
// 65 (q + 8 <= n): the candidate, or SIZE_MAX with q where it stopped.
__attribute__((target("avx512f,avx512bw"))) size_t last_candidate_avx512(const unsigned char *p, size_t n, size_t from,
									    size_t &q)
{
	for (;;) {
		uint64_t bits = 0; // (as in first_candidate_avx512: no call in the loop)
		while (q >= from + 64 && q >= 65 && !(bits = candidate_mask_avx512(p, q - 64)))
			q -= 64;
		if (!bits)
			return SIZE_MAX;
		if (size_t at = highest_candidate(p, n, q - 64, bits); at != SIZE_MAX)
			return at;
		q -= 64;
	}
}

// first_candidate's loop, 32 bytes at a time, from q while q + 32 <= to and
// q + 40 <= n (q >= 1): the candidate, or SIZE_MAX with q where it stopped.
__attribute__((target("avx2"))) size_t first_candidate_avx2(const unsigned char *p, size_t n, size_t &q, size_t to)
{
	for (;;) {
		uint32_t bits = 0; // (as in first_candidate_avx512: no call in the loop)
		while (q + 32 <= to && q + 40 <= n && !(bits = candidate_mask_avx2(p, q)))
			q += 32;
		if (!bits)
			return SIZE_MAX;
		if (size_t at = lowest_candidate(p, n, q, bits); at != SIZE_MAX)
			return at;
		q += 32;
	}
}

// last_candidate's loop, 32 bytes at a time, down from q while q >= from +
// 32 and q >= 33 (q + 8 <= n): the candidate, or SIZE_MAX with q where it
// stopped.
__attribute__((target("avx2"))) size_t last_candidate_avx2(const unsigned char *p, size_t n, size_t from, size_t &q)
{
	for (;;) {
		uint32_t bits = 0; // (as in first_candidate_avx512: no call in the loop)
		while (q >= from + 32 && q >= 33 && !(bits = candidate_mask_avx2(p, q - 32)))
			q -= 32;
		if (!bits)
			return SIZE_MAX;
		if (size_t at = highest_candidate(p, n, q - 32, bits); at != SIZE_MAX)
			return at;
		q -= 32;
	}
}
#endif

using filter_level = timed_filter::level;

filter_level best_filter_level()
{
#ifdef DENPEX_HAVE_AVX2_PATH
	if (cpu_vbmi)
		return filter_level::avx512vbmi;
	if (cpu_avx512)
		return filter_level::avx512;
	if (cpu_avx2)
		return filter_level::avx2;
#endif
#ifdef __SSE2__
	return filter_level::sse2;
#else
	return filter_level::scalar;
#endif
}

const filter_level cpu_filter_level = best_filter_level();

// The last candidate (see candidate_at) in p[from, to), or SIZE_MAX;
// p[0] starts a line. Sixteen bytes at a time where SSE2 is there: a
// chunk with no colon pair, bracket, control byte or line start passes.
// l: the widest loop to use (tests ask for each; the reader for the CPU's).
size_t last_candidate(const unsigned char *p, size_t n, size_t from, size_t to, filter_level l = cpu_filter_level)
{
	size_t q = to;
	// The last bytes, whose 16-byte loads would pass the end: one by one.
	const size_t simd_top = n >= 24 ? n - 8 : 0;
	while (q > from && q > simd_top) {
		q--;
		if (candidate_at(p, n, q, q == 0 || p[q - 1] == '\n'))
			return q;
	}
#ifdef DENPEX_HAVE_AVX2_PATH
	if (l >= filter_level::avx512vbmi && q > from) {
		size_t at = last_candidate_vbmi(p, n, from, q);
		if (at != SIZE_MAX)
			return at;
	}
	if (l >= filter_level::avx512 && q > from) {
		size_t at = last_candidate_avx512(p, n, from, q);
		if (at != SIZE_MAX)
			return at;
	}
	if (l >= filter_level::avx2 && q > from) {
		size_t at = last_candidate_avx2(p, n, from, q);
		if (at != SIZE_MAX)
			return at;
	}
#endif
#ifdef __SSE2__
	while (l >= filter_level::sse2) {
		unsigned bits = 0; // (as in first_candidate_avx512: no call in the loop)
		while (q >= from + 16 && q >= 17 && !(bits = candidate_mask(p, q - 16)))
			q -= 16;
		if (!bits)
			break;
		if (size_t at = highest_candidate(p, n, q - 16, bits); at != SIZE_MAX)
			return at;
		q -= 16;
	}
#endif
	while (q > from) {
		q--;
		if (candidate_at(p, n, q, q == 0 || p[q - 1] == '\n'))
			return q;
	}
	return SIZE_MAX;
}

// The first candidate in p[from, to), or SIZE_MAX (as last_candidate).
size_t first_candidate(const unsigned char *p, size_t n, size_t from, size_t to, filter_level l = cpu_filter_level)
{
	size_t q = from;
	// The first bytes, whose loads would start before the buffer.
	while (q < to && q < 1) {
		if (candidate_at(p, n, q, true))
			return q;
		q++;
	}
#ifdef DENPEX_HAVE_AVX2_PATH
	if (l >= filter_level::avx512vbmi && q < to) {
		size_t at = first_candidate_vbmi(p, n, q, to);
		if (at != SIZE_MAX)
			return at;
	}
	if (l >= filter_level::avx512 && q < to) {
		size_t at = first_candidate_avx512(p, n, q, to);
		if (at != SIZE_MAX)
			return at;
	}
	if (l >= filter_level::avx2 && q < to) {
		size_t at = first_candidate_avx2(p, n, q, to);
		if (at != SIZE_MAX)
			return at;
	}
#endif
#ifdef __SSE2__
	while (l >= filter_level::sse2) {
		unsigned bits = 0; // (as in first_candidate_avx512: no call in the loop)
		while (q + 16 <= to && q + 24 <= n && !(bits = candidate_mask(p, q)))
			q += 16;
		if (!bits)
			break;
		if (size_t at = lowest_candidate(p, n, q, bits); at != SIZE_MAX)
			return at;
		q += 16;
	}
#endif
	for (; q < to; q++)
		if (candidate_at(p, n, q, q == 0 || p[q - 1] == '\n'))
			return q;
	return SIZE_MAX;
}

// Lines of the file around an offset, read on demand (one window cached).
class file_lines {
public:
	file_lines(int fd, uint64_t size) : fl_fd(fd), fl_size(size) {}
	bool failed() const { return fl_failed; }

	// The line that ends just before offset end (end: the offset of a
	// line's first byte); false at the file's start.
	bool line_before(uint64_t end, chosen_line &l)
	{
		if (end == 0)
			return false;
		uint64_t stop = end - 1; // its '\n'
		uint64_t from = stop;
		// Its start: after the '\n' before it.
		for (;;) {
			uint64_t lo = from >= window ? from - window : 0;
			if (!load(lo, from - lo))
				return false;
			const char *p = fl_buf.get() + (lo - fl_off);
			const void *nl = memrchr(p, '\n', from - lo);
			if (nl) {
				l.off = lo + static_cast<uint64_t>(static_cast<const char *>(nl) - p) + 1;
				break;
			}
			if (lo == 0) {
				l.off = 0;
				break;
			}
			if (stop - lo > context_reach)
				return false;
			from = lo;
		}
		l.len = static_cast<uint32_t>(stop - l.off);
		return true;
	}

	// The line that starts at offset start; false at the end.
	bool line_at(uint64_t start, chosen_line &l)
	{
		if (start >= fl_size)
			return false;
		uint64_t from = start;
		for (;;) {
			uint64_t n = std::min<uint64_t>(window, fl_size - from);
			if (!load(from, n))
				return false;
			const char *p = fl_buf.get() + (from - fl_off);
			const void *nl = memchr(p, '\n', n);
			if (nl) {
				l.len = static_cast<uint32_t>(from + static_cast<uint64_t>(static_cast<const char *>(nl) - p) - start);
				break;
			}
			if (from + n >= fl_size) {
				l.len = static_cast<uint32_t>(fl_size - start);
				break;
			}
			if (from + n - start > context_reach)
				return false;
			from += n;
		}
		l.off = start;
		return true;
	}

	// The bytes [off, off + n), n at most a window's worth.
	std::string_view bytes(uint64_t off, uint64_t n)
	{
		if (!load(off, n))
			return {};
		return std::string_view(fl_buf.get() + (off - fl_off), static_cast<size_t>(n));
	}

	std::string_view text(const chosen_line &l)
	{
		if (!load(l.off, l.len))
			return {};
		return std::string_view(fl_buf.get() + (l.off - fl_off), l.len);
	}

private:
	static constexpr uint64_t window = 64 * 1024;
	// Makes [off, off + n) resident.
	bool load(uint64_t off, uint64_t n)
	{
		if (fl_failed)
			return false;
		if (off >= fl_off && off + n <= fl_off + fl_len)
			return true;
		// Centre the window a little behind: walks go both ways.
		uint64_t want = std::max<uint64_t>(n, 4 * window);
		uint64_t lo = off > window ? off - window : 0;
		if (lo + want < off + n)
			lo = off;
		uint64_t hi = std::min(fl_size, lo + want);
		if (hi < off + n)
			hi = std::min(fl_size, off + n);
		// Not zeroed: every byte looked at was read.
		if (hi - lo > fl_cap) {
			fl_cap = hi - lo;
			fl_buf.reset(new char[static_cast<size_t>(fl_cap)]);
		}
		if (!pread_all(fl_fd, fl_buf.get(), static_cast<size_t>(hi - lo), lo)) {
			fl_failed = true;
			return false;
		}
		fl_off = lo;
		fl_len = hi - lo;
		return true;
	}

	int fl_fd;
	uint64_t fl_size;
	std::unique_ptr<char[]> fl_buf;
	uint64_t fl_cap = 0;
	uint64_t fl_off = 0, fl_len = 0;
	bool fl_failed = false;
};

double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

// Where the timed lines of a scan block are: its first and its last (in a
// log whose lines are timed, the block's first lines and its last). The
// walks for the times an untimed line inherits (choose_lines, 3.) jump over
// blocks without one instead of reading them again; in a log where a time
// is rare that was a second pass over the file.
struct timed_block {
	uint64_t begin = 0, end = 0; // [begin, end): whole lines
	uint64_t line_no = 0;        // of the line at begin
	uint64_t newlines = 0;       // in [begin, end)
	bool any = false;            // a timed line: first and last
	chosen_line first{}, last{};
};

// A forward scan of [begin, end) (begin a line start): its fault lines and
// timed blocks, numbered from 1 at begin, and its newlines.
struct range_scan {
	uint64_t begin = 0, end = 0;
	std::vector<chosen_line> hits;
	std::vector<timed_block> blocks;
	uint64_t newlines = 0;
	bool bad = false;
};

namespace {

// The first and last timed line of p[0, n) (whole lines, p[0] a line
// start, pos its offset in the file, line_no its number).
void find_timed(const char *text, size_t n, uint64_t pos, uint64_t line_no, uint64_t newlines, line_cleaner &cleaner,
		timed_block &tb)
{
	const unsigned char *p = reinterpret_cast<const unsigned char *>(text);
	auto line_of = [&](size_t q, size_t &ls, size_t &le) {
		const void *b = q ? memrchr(text, '\n', q) : nullptr;
		ls = b ? static_cast<size_t>(static_cast<const char *>(b) - text) + 1 : 0;
		const void *e = memchr(text + q, '\n', n - q);
		le = e ? static_cast<size_t>(static_cast<const char *>(e) - text) : n;
	};
	size_t from = 0, ls = 0, le = 0;
	for (;;) {
		size_t q = first_candidate(p, n, from, n);
		if (q == SIZE_MAX)
			return;
		line_of(q, ls, le);
		if (le > ls && timed_line(std::string_view(text + ls, le - ls), cleaner))
			break;
		from = le + 1;
		if (from >= n)
			return;
	}
	tb.any = true;
	tb.first = chosen_line{pos + ls, static_cast<uint32_t>(le - ls), line_no + count_newlines(text, ls)};
	tb.last = tb.first;
	const size_t first_end = le;
	size_t to = n;
	while (to > first_end) {
		size_t q = last_candidate(p, n, first_end, to);
		if (q == SIZE_MAX)
			return;
		line_of(q, ls, le);
		if (le > ls && timed_line(std::string_view(text + ls, le - ls), cleaner)) {
			tb.last = chosen_line{pos + ls, static_cast<uint32_t>(le - ls),
					      line_no + newlines - count_newlines(text + ls, n - ls)};
			return;
		}
		to = ls;
	}
}

} // namespace

void scan_range(int fd, const rule_set &rules, size_t max_line, range_scan &rs)
{
	// Not zeroed: every byte looked at was read.
	std::unique_ptr<char[]> buf(new char[static_cast<size_t>(std::min<uint64_t>(scan_block, rs.end - rs.begin))]);
	buffer_literals::scanner faults = rules.fault_scanner();
	line_cleaner cleaner;
	uint64_t pos = rs.begin;
	while (pos < rs.end && !rs.bad) {
		size_t n = static_cast<size_t>(std::min<uint64_t>(scan_block, rs.end - pos));
		if (!pread_all(fd, buf.get(), n, pos)) {
			rs.bad = true;
			return;
		}
		size_t end = n;
		if (pos + n < rs.end) {
			const void *nl = memrchr(buf.get(), '\n', n);
			if (!nl) {
				rs.bad = true; // a line longer than a block
				return;
			}
			end = static_cast<size_t>(static_cast<const char *>(nl) - buf.get()) + 1;
		}
		std::string_view view(buf.get(), end);
		size_t counted = 0; // newlines counted up to here
		uint64_t line_at_counted = rs.newlines + 1;
		size_t last_end = 0;
		bool any = false;
		faults.scan(view, [&](size_t start) {
			if (rs.bad || (any && start < last_end))
				return;
			const void *b = start ? memrchr(view.data(), '\n', start) : nullptr;
			size_t ls = b ? static_cast<size_t>(static_cast<const char *>(b) - view.data()) + 1 : 0;
			const void *e = memchr(view.data() + start, '\n', end - start);
			size_t le = e ? static_cast<size_t>(static_cast<const char *>(e) - view.data()) : end;
			line_at_counted += count_newlines(view.data() + counted, ls - counted);
			counted = ls;
			any = true;
			last_end = le + 1;
			if (le - ls > max_line || rs.hits.size() >= max_hits) {
				rs.bad = true;
				return;
			}
			rs.hits.push_back(chosen_line{pos + ls, static_cast<uint32_t>(le - ls), line_at_counted});
		});
		timed_block tb;
		tb.begin = pos;
		tb.end = pos + end;
		tb.line_no = rs.newlines + 1;
		tb.newlines = count_newlines(view.data(), end);
		find_timed(view.data(), end, pos, tb.line_no, tb.newlines, cleaner, tb);
		rs.blocks.push_back(tb);
		rs.newlines += tb.newlines;
		pos += end;
	}
}

namespace timed_filter {

level best()
{
	return cpu_filter_level;
}

size_t first_candidate(const unsigned char *p, size_t n, size_t from, size_t to, level l)
{
	return diag::first_candidate(p, n, from, to, std::min(l, cpu_filter_level));
}

size_t last_candidate(const unsigned char *p, size_t n, size_t from, size_t to, level l)
{
	return diag::last_candidate(p, n, from, to, std::min(l, cpu_filter_level));
}

} // namespace timed_filter

bool event_scan_pays(uint64_t size)
{
	uint64_t min = default_min_size;
	if (const char *e = getenv("DENPEX_EVENT_SCAN_MIN"); e && *e)
		min = strtoull(e, nullptr, 10);
	return size >= min && size > 0;
}

bool choose_lines(int fd, uint64_t size, source_kind kind, rule_set &rules, size_t max_line,
		  std::vector<chosen_line> &out, event_scan_stats &stats, bool may_split)
{
	out.clear();
	if (!rules.fault_scan_complete() || size == 0)
		return false;
	const unsigned srcbit = kind == source_kind::kernel_log ? src_kernel
				: kind == source_kind::nccl_log ? src_nccl
								 : src_log;
	line_cleaner cleaner;
	capture_list caps;

	// 1. Forward: the lines with a fault literal.
	auto t0 = std::chrono::steady_clock::now();
	std::vector<chosen_line> hits;
	std::vector<timed_block> blocks; // in order, covering the file
	// Per writer, the last line whose rule starts a failure: the tail
	// must reach back to it unless the writer's progress comes after it
	// (a failure the writer carried on from was caught).
	std::unordered_map<uint64_t, uint64_t> need;
	std::unordered_set<uint64_t> known; // rank-like writers of fault lines
	uint64_t total_lines = 0;
	{
		// Two halves at a line start, one on a second thread where the
		// CPUs allow; numbered and looked at in order after.
		uint64_t mid = size;
		if (may_split && size >= parallel_min && std::thread::hardware_concurrency() > 1) {
			std::vector<char> probe(64 * 1024);
			uint64_t at = size / 2;
			size_t n = static_cast<size_t>(std::min<uint64_t>(probe.size(), size - at));
			if (pread_all(fd, probe.data(), n, at)) {
				const void *nl = memchr(probe.data(), '\n', n);
				if (nl)
					mid = at + static_cast<uint64_t>(static_cast<const char *>(nl) - probe.data()) + 1;
			}
		}
		range_scan first, second;
		first.begin = 0;
		first.end = second.begin = mid;
		second.end = size;
		std::thread helper;
		if (mid < size) {
			try {
				helper = std::thread([&] { scan_range(fd, rules, max_line, second); });
			} catch (const std::system_error &) {
				first.end = size; // no thread: this one reads it all
				mid = size;
			}
		}
		scan_range(fd, rules, max_line, first);
		if (helper.joinable())
			helper.join();
		if (first.bad || (mid < size && second.bad))
			return false;
		hits = std::move(first.hits);
		blocks = std::move(first.blocks);
		total_lines = first.newlines;
		if (mid < size) {
			for (auto &h : second.hits) {
				h.line_no += total_lines;
				hits.push_back(h);
			}
			for (auto &b : second.blocks) {
				b.line_no += total_lines;
				b.first.line_no += total_lines;
				b.last.line_no += total_lines;
				blocks.push_back(b);
			}
			total_lines += second.newlines;
		}
		if (hits.size() > max_hits)
			return false;
		char last = 0;
		if (!pread_all(fd, &last, 1, size - 1))
			return false;
		if (last != '\n')
			total_lines++;
		// What the tail read needs from them.
		std::vector<char> text;
		for (const chosen_line &l : hits) {
			text.resize(l.len);
			if (l.len && !pread_all(fd, text.data(), l.len, l.off))
				return false;
			cleaner.for_each_segment(std::string_view(text.data(), l.len), [&](std::string_view seg) {
				line_identity id = identify(seg, kind == source_kind::kernel_log);
				uint64_t ident = writer_ident(id);
				if (rank_like(ident))
					known.insert(ident);
				const rule *r = rules.match(id.body, srcbit, caps);
				if (r && r->role == event_role::initiating && kind != source_kind::kernel_log) {
					uint64_t &n_ = need[ident];
					n_ = std::max(n_, l.line_no);
				}
			});
		}
	}
	stats.scan_s += seconds_since(t0);
	stats.hits += hits.size();

	// 2. Backward from the end: each writer's last progress line.
	auto t1 = std::chrono::steady_clock::now();
	std::vector<chosen_line> anchors = hits;
	{
		const uint64_t budget = std::min(tail_budget_max, std::max(tail_budget_min, size / 64));
		std::unordered_set<uint64_t> seen, progressed;
		size_t known_unseen = known.size();
		// Needs by line, latest first: satisfied by the writer's progress
		// or by reading back to the line.
		std::vector<std::pair<uint64_t, uint64_t>> needs; // (line, ident)
		for (const auto &n : need)
			needs.emplace_back(n.second, n.first);
		std::sort(needs.rbegin(), needs.rend());
		size_t needs_open = needs.size(), needs_passed = 0;
		std::unordered_set<uint64_t> need_idents;
		for (const auto &n : needs)
			need_idents.insert(n.second);
		line_hits h;
		std::unique_ptr<char[]> buf(new char[static_cast<size_t>(std::min<uint64_t>(scan_block, size))]);
		uint64_t end = size, line_no = total_lines + 1;
		uint64_t settled_at = 0; // bytes back when the stop condition first held
		bool done = false;
		// The last line may lack its '\n': the loop below treats the
		// file as if it had one.
		bool tail_nl_missing = true;
		{
			char last = 0;
			if (pread_all(fd, &last, 1, size - 1) && last == '\n')
				tail_nl_missing = false;
		}
		// Read back in growing pieces: the walk mostly stops within the
		// first tens of kilobytes, and a rank file is two blocks in all.
		size_t piece = tail_piece_min;
		while (end > 0 && !done) {
			uint64_t lo = end > piece ? end - piece : 0;
			size_t n = static_cast<size_t>(end - lo);
			if (!pread_all(fd, buf.get(), n, lo))
				return false;
			size_t first = 0;
			if (lo > 0) {
				const void *nl = memchr(buf.get(), '\n', n);
				if (!nl && piece < scan_block) {
					piece = std::min(piece * 2, scan_block); // a long line: a larger piece
					continue;
				}
				if (!nl)
					return false;
				first = static_cast<size_t>(static_cast<const char *>(nl) - buf.get()) + 1;
			}
			// Lines in [first, n), from the last: each ends at a '\n' (or
			// at the file's end).
			size_t q = n; // one past the current line's '\n'
			while (q > first && !done) {
				size_t line_end = (end == size && tail_nl_missing && q == n) ? n : q - 1;
				size_t s = first;
				if (line_end > first) {
					const void *nl = memrchr(buf.get() + first, '\n', line_end - first);
					if (nl)
						s = static_cast<size_t>(static_cast<const char *>(nl) - buf.get()) + 1;
				}
				q = s;
				line_no--;
				std::string_view raw(buf.get() + s, line_end - s);
				uint64_t off = lo + s;
				if (raw.size() > max_line)
					return false;
				if (!raw.empty()) {
					cleaner.for_each_segment(raw, [&](std::string_view seg) {
						line_identity id = identify(seg, kind == source_kind::kernel_log);
						uint64_t ident = writer_ident(id);
						if (rank_like(ident)) {
							if (known.insert(ident).second)
								known_unseen++;
							if (seen.insert(ident).second)
								known_unseen--;
						}
						if (progressed.count(ident))
							return;
						rules.scan_line(seg, h);
						if (!h.rule_hit)
							return;
						size_t boff = static_cast<size_t>(id.body.data() - seg.data());
						if (rules.hit_reach(boff, h) == 0)
							return;
						const rule *r = rules.match_hits(id.body, boff, h, srcbit, caps);
						if (!r || r->kind != rule_kind::progress)
							return;
						progressed.insert(ident);
						anchors.push_back(chosen_line{off, static_cast<uint32_t>(raw.size()), line_no});
						if (need_idents.erase(ident))
							needs_open--;
					});
				}
				while (needs_passed < needs.size() && needs[needs_passed].first >= line_no) {
					if (need_idents.erase(needs[needs_passed].second))
						needs_open--;
					needs_passed++;
				}
				uint64_t back = size - off;
				if (back >= budget) {
					done = true;
				} else if (back >= tail_min && needs_open == 0 && known_unseen == 0 && !progressed.empty()) {
					// Every writer seen and the faults covered: a margin as
					// long again, for progress a little before a writer's
					// last line.
					if (!settled_at)
						settled_at = back;
					else if (back >= 2 * settled_at)
						done = true;
				}
			}
			if (done) {
				end = lo + q;
				break;
			}
			end = lo + first;
			piece = std::min(piece * 2, scan_block);
		}
		stats.tail_bytes += size - std::min(size, end);
	}
	stats.tail_s += seconds_since(t1);

	// 3. Around each line: what its reading depends on.
	auto t2 = std::chrono::steady_clock::now();
	std::sort(anchors.begin(), anchors.end(),
		  [](const chosen_line &a, const chosen_line &b) { return a.line_no < b.line_no; });
	anchors.erase(std::unique(anchors.begin(), anchors.end(),
				  [](const chosen_line &a, const chosen_line &b) { return a.line_no == b.line_no; }),
		      anchors.end());
	file_lines fl(fd, size);
	out.reserve(anchors.size() * 3);
	// Walks back stop where an earlier walk (or an anchor) already knows
	// the answer: where the file's last timed line was last established,
	// and per writer where it was last looked for.
	uint64_t any_known_off = 0; // the file's last time is known (chosen) at the line starting here
	uint64_t next_timed_after = 0; // the timed line a forward walk found (UINT64_MAX: none to the end)
	std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> looked_up; // writer -> line (and offset) it was last looked up from
	bool have_memo_t = false; // the nearest timed line before any_known_off
	chosen_line memo_t{};
	// The nearest timed line before offset end (a line start, or inside
	// the line numbered no), not before floor: 1 found (end, no moved to
	// it), 0 none, -1 a read error.
	// The block holding byte off (off < size).
	auto block_at = [&](uint64_t off) -> const timed_block & {
		auto it = std::upper_bound(blocks.begin(), blocks.end(), off,
					   [](uint64_t o, const timed_block &b) { return o < b.begin; });
		return *(it - 1);
	};
	auto prev_timed = [&](uint64_t &end, uint64_t &no, uint64_t floor, chosen_line &found) -> int {
		bool line_start = true; // end is a line start (callers give one)
		while (end > floor) {
			if (line_start) {
				// What the scan knows of the block before end: no timed
				// line there (jump to its start), or its last one.
				const timed_block &tb = block_at(end - 1);
				if (!tb.any || tb.first.off >= end) {
					if (tb.begin < floor)
						return 0; // (a timed line astride floor starts in it)
					end = tb.begin;
					no = tb.line_no;
					continue;
				}
				if (tb.any && tb.last.off < end && tb.last.off >= floor) {
					found = tb.last;
					end = found.off;
					no = found.line_no;
					return 1;
				}
			}
			uint64_t lo = end - std::min<uint64_t>(end - floor, 60 * 1024);
			std::string_view w = fl.bytes(lo ? lo - 1 : 0, end - (lo ? lo - 1 : 0));
			if (w.empty())
				return -1;
			const size_t pre = lo ? 1 : 0; // the byte before lo, to tell a line start
			const unsigned char *base = reinterpret_cast<const unsigned char *>(w.data());
			size_t n = static_cast<size_t>(end - lo);
			size_t q = last_candidate(base, n + pre, pre, n + pre);
			if (q == SIZE_MAX) {
				no -= count_newlines(w.data() + pre, n);
				end = lo; // may sit inside a line: line numbers count '\n's
				line_start = false;
				continue;
			}
			q -= pre;
			const void *nl = memrchr(w.data() + pre, '\n', q);
			uint64_t ls;
			if (nl) {
				ls = lo + static_cast<uint64_t>(static_cast<const char *>(nl) - (w.data() + pre)) + 1;
			} else if (lo == 0) {
				ls = 0;
			} else {
				chosen_line prev{};
				if (!fl.line_before(lo + q + 1, prev))
					return -1;
				ls = prev.off;
			}
			chosen_line c{};
			if (!fl.line_at(ls, c))
				return -1;
			if (c.off + c.len >= end) {
				c.line_no = no; // its end is where the walk is (a window began inside it)
			} else {
				std::string_view between = fl.bytes(c.off + c.len, end - (c.off + c.len));
				c.line_no = no - count_newlines(between.data(), between.size());
			}
			end = c.off;
			no = c.line_no;
			line_start = true;
			if (c.len > 0 && timed_line(fl.text(c), cleaner)) {
				found = c;
				return 1;
			}
		}
		return 0;
	};
	for (const auto &a : anchors) {
		out.push_back(a);
		line_look me = look_at(fl.text(a), kind, cleaner);
		bool any_timed = me.timed, mine_timed = me.timed;
		auto lu = looked_up.find(me.ident);
		uint64_t mine_known_off = lu == looked_up.end() ? 0 : lu->second.second;
		bool mine_known = lu != looked_up.end();
		// The lines just before, whatever they are.
		chosen_line l = a, last_ctx_timed{};
		for (int k = 1; k <= context_before && fl.line_before(l.off, l); k++) {
			l.line_no = a.line_no - static_cast<uint64_t>(k);
			if (l.len == 0)
				continue;
			out.push_back(l);
			if ((!mine_timed || !any_timed) && timed_line(fl.text(l), cleaner)) {
				if (!any_timed)
					last_ctx_timed = l;
				any_timed = true;
				if (!mine_timed && look_at(fl.text(l), kind, cleaner).ident == me.ident)
					mine_timed = true;
			}
		}
		// Then the nearest timed line before (the file's last time), back to
		// where it is known; from there back, the writer's own (so far
		// back): a writer's timed line is a timed line. Both by jumping
		// over bytes that cannot hold a time.
		uint64_t end = l.off, no = l.line_no; // a line start (or inside one) and its number
		bool have_t = false;
		chosen_line t{};
		if (me.timed) {
			have_t = true;
			t = a;
		} else if (any_timed) {
			have_t = true;
			t = last_ctx_timed;
		} else {
			int r = prev_timed(end, no, any_known_off, t);
			if (r < 0)
				return false;
			if (r > 0) {
				out.push_back(t);
				have_t = true;
			} else if (have_memo_t) {
				have_t = true;
				t = memo_t;
			}
			any_timed = true;
		}
		if (!mine_timed && have_t) {
			uint64_t floor = a.off > context_writer_bytes ? a.off - context_writer_bytes : 0;
			if (mine_known)
				floor = std::max(floor, mine_known_off);
			chosen_line c = t;
			while (c.off >= floor) {
				if (look_at(fl.text(c), kind, cleaner).ident == me.ident) {
					out.push_back(c);
					break;
				}
				uint64_t e2 = c.off, n2 = c.line_no;
				int r = c.off > floor ? prev_timed(e2, n2, floor, c) : 0;
				if (r < 0)
					return false;
				if (r == 0)
					break;
			}
		}
		have_memo_t = have_t;
		if (have_t)
			memo_t = t;
		any_known_off = a.off;
		looked_up[me.ident] = {a.line_no, a.off};
		// The first time after it: an untimed event lies before it. An
		// earlier walk may have found it already (or that there is none
		// up to where it went).
		if (!me.timed && a.line_no >= next_timed_after) {
			next_timed_after = UINT64_MAX;
			uint64_t pos = a.off + a.len + 1, no = a.line_no + 1; // a line start and its number
			while (pos < size) {
				// pos is a line start: what the scan knows of its block.
				const timed_block &tb = block_at(pos);
				if (!tb.any || tb.last.off < pos) {
					pos = tb.end;
					no = tb.line_no + tb.newlines;
					continue;
				}
				if (tb.first.off >= pos) {
					out.push_back(tb.first);
					next_timed_after = tb.first.line_no;
					break;
				}
				uint64_t hi = std::min<uint64_t>(size, pos + 60 * 1024);
				std::string_view w = fl.bytes(pos - 1, hi - (pos - 1)); // the '\n' before: a line start
				if (w.empty())
					return false;
				const unsigned char *base = reinterpret_cast<const unsigned char *>(w.data());
				size_t q = first_candidate(base, w.size(), 1, w.size());
				if (q == SIZE_MAX) {
					// On from the last line start in the window.
					const void *nl = memrchr(w.data() + 1, '\n', w.size() - 1);
					if (!nl) {
						if (hi >= size)
							break;
						chosen_line f{};
						if (!fl.line_at(pos, f))
							return false;
						pos = f.off + f.len + 1;
						no++;
						continue;
					}
					size_t k = static_cast<size_t>(static_cast<const char *>(nl) - w.data()) + 1;
					no += count_newlines(w.data() + 1, k - 1);
					pos = pos - 1 + k;
					continue;
				}
				// The line holding it.
				const void *nl = q > 1 ? memrchr(w.data() + 1, '\n', q - 1) : nullptr;
				size_t ls = nl ? static_cast<size_t>(static_cast<const char *>(nl) - w.data()) + 1 : 1;
				no += count_newlines(w.data() + 1, ls - 1);
				chosen_line f{};
				if (!fl.line_at(pos - 1 + ls, f))
					return false;
				f.line_no = no;
				if (f.len > 0 && timed_line(fl.text(f), cleaner)) {
					out.push_back(f);
					next_timed_after = f.line_no;
					break;
				}
				pos = f.off + f.len + 1;
				no++;
			}
		}
		if (fl.failed())
			return false;
	}
	std::sort(out.begin(), out.end(), [](const chosen_line &a, const chosen_line &b) { return a.line_no < b.line_no; });
	out.erase(std::unique(out.begin(), out.end(),
			      [](const chosen_line &a, const chosen_line &b) { return a.line_no == b.line_no; }),
		  out.end());
	for (const auto &l : out)
		if (l.len > max_line)
			return false;
	stats.context_s += seconds_since(t2);
	return true;
}

} // namespace diag
