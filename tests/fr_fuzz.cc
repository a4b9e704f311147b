// Fuzz target for the flight-recorder reader: mutates the fixture dumps
// (and a few hand-made pickles) with a deterministic PRNG and feeds them to
// the unpickler, the dump decoder and the analysis. The test is that nothing
// crashes, hangs or trips the sanitizers; results are not judged beyond a
// few invariants.
//
// Usage: fr_fuzz [ITERATIONS [SECONDS [SEED]]]   (default 20000, 20 s, 1)
// Environment FR_FUZZ_ITERATIONS / FR_FUZZ_SECONDS override the defaults.
#include "fuzz/fr_report_renders.hh"
#include "fr/fr_analysis.hh"
#include "fr/fr_dump.hh"
#include "fr/fr_pickle.hh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

using namespace diag;
using namespace std::string_literals;

namespace {

struct prng {
	uint64_t s;
	uint64_t next()
	{
		// xorshift64*: deterministic across platforms, good enough here.
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		return s * 2685821657736338717ULL;
	}
	size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
};

struct seed_file {
	std::string name;
	std::string data;
};

bool read_file(const std::string &path, std::string &out)
{
	FILE *f = fopen(path.c_str(), "rb");
	if (!f)
		return false;
	char buf[65536];
	size_t n;
	out.clear();
	while ((n = fread(buf, 1, sizeof buf, f)) > 0 && out.size() < (4u << 20))
		out.append(buf, n);
	fclose(f);
	return true;
}

void collect(const std::string &dir, std::vector<seed_file> &out, int depth = 0)
{
	DIR *d = opendir(dir.c_str());
	if (!d)
		return;
	std::vector<std::string> names;
	while (struct dirent *e = readdir(d))
		if (e->d_name[0] != '.')
			names.push_back(e->d_name);
	closedir(d);
	std::sort(names.begin(), names.end());
	for (const std::string &n : names) {
		std::string p = dir + "/" + n;
		struct stat st;
		if (stat(p.c_str(), &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth < 2) {
			collect(p, out, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			seed_file s;
			s.name = p;
			if (read_file(p, s.data))
				out.push_back(std::move(s));
		}
	}
}

// Bytes that make the unpickler take interesting paths.
const unsigned char interesting[] = {
	0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, '(', '.', '0', '1', '2', 'a', 'e', 'h', 'j', 'q',
	'r', 's', 'u', 'l', 't', 'd', '}', ']', ')', 'N', 'K', 'J', 'M', 'X', 'B', 'C', 'U',
	'T', 'V', 'I', 'L', 'F', 'G', 'g', 'p', 'c', 'R', 'b', 0x85, 0x86, 0x87, 0x88, 0x89,
	0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x93, 0x94, 0x95, 0x96, '{', '[', '"',
	':', ',', '\\', 'n',
};

const uint32_t interesting32[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fffffff,
				  0x80000000u, 0xffffffffu, 0x100, 0x10000};

void mutate(std::string &d, prng &r, const std::vector<seed_file> &seeds)
{
	int rounds = 1 + static_cast<int>(r.below(4));
	for (int k = 0; k < rounds; k++) {
		size_t n = d.size();
		switch (r.below(9)) {
		case 0: // flip a bit
			if (n)
				d[r.below(n)] ^= static_cast<char>(1u << r.below(8));
			break;
		case 1: // interesting byte
			if (n)
				d[r.below(n)] = static_cast<char>(interesting[r.below(sizeof interesting)]);
			break;
		case 2: { // interesting 32-bit little-endian value (lengths, memo keys)
			if (n < 4)
				break;
			uint32_t v = interesting32[r.below(sizeof interesting32 / 4)];
			size_t at = r.below(n - 3);
			for (int b = 0; b < 4; b++)
				d[at + b] = static_cast<char>((v >> (8 * b)) & 0xff);
			break;
		}
		case 3: // truncate
			d.resize(r.below(n + 1));
			break;
		case 4: { // delete a range
			if (!n)
				break;
			size_t at = r.below(n), len = 1 + r.below(std::min<size_t>(64, n - at));
			d.erase(at, len);
			break;
		}
		case 5: { // duplicate a range (more nesting, repeated memo ops)
			if (!n || n > (1u << 20))
				break;
			size_t at = r.below(n), len = 1 + r.below(std::min<size_t>(256, n - at));
			d.insert(r.below(n + 1), d.substr(at, len));
			break;
		}
		case 6: { // insert random bytes
			size_t len = 1 + r.below(8);
			std::string ins;
			for (size_t b = 0; b < len; b++)
				ins += static_cast<char>(r.below(256));
			d.insert(r.below(n + 1), ins);
			break;
		}
		case 7: { // splice from another seed
			const std::string &o = seeds[r.below(seeds.size())].data;
			if (o.empty())
				break;
			size_t at = r.below(o.size()), len = 1 + r.below(std::min<size_t>(512, o.size() - at));
			size_t to = r.below(n + 1);
			d.replace(to, std::min(len, n - to), o.substr(at, len));
			break;
		}
		case 8: // swap two bytes
			if (n >= 2)
				std::swap(d[r.below(n)], d[r.below(n)]);
			break;
		}
	}
}

void check_value(const pickle_value &v, size_t depth, const pickle_limits &lim)
{
	if (depth > lim.max_depth + 1) {
		fprintf(stderr, "fr_fuzz: value deeper than the limit\n");
		abort();
	}
	if (v.kind == pickle_kind::dict && v.items.size() % 2) {
		fprintf(stderr, "fr_fuzz: dict with an odd item count\n");
		abort();
	}
	for (const pickle_value &c : v.items)
		check_value(c, depth + 1, lim);
}

} // namespace

int main(int argc, char **argv)
{
	long iterations = 20000;
	double seconds = 20.0;
	uint64_t seed = 1;
	if (const char *e = getenv("FR_FUZZ_ITERATIONS"))
		iterations = atol(e);
	if (const char *e = getenv("FR_FUZZ_SECONDS"))
		seconds = atof(e);
	if (argc > 1)
		iterations = atol(argv[1]);
	if (argc > 2)
		seconds = atof(argv[2]);
	if (argc > 3)
		seed = strtoull(argv[3], nullptr, 10);

	std::vector<seed_file> seeds;
	collect(std::string(TEST_DATADIR) + "/fr", seeds);
	// Hand-made seeds reach opcodes the fixtures do not use.
	const std::string extra[] = {
		"\200\002]q\000(K\001G\077\370\000\000\000\000\000\000\214\001a\205q\001h\001\217(K\002\220e."s,
		"\200\004\225 \000\000\000\000\000\000\000}\224(\214\001k\224]\224(\210\211N\212\002\001\001eu."s,
		"(lp0\012I1\012aI01\012aF1.5\012aL12L\012aVab\134u00e9\012ag0\012a."s,
		"\200\002}q\000(X\007\000\000\000entriesq\001]q\002}q\003(X\011\000\000\000record_idq\004K\000uau."s,
		"\200\004\225H\000\000\000\000\000\000\000}\224(\214\001a\224]\224(K\001G@\004\000\000\000\000\000\000\214\001x\224C\002yz\224N\210\206\224e\214\003big\224\212\010\000\000\000\000\000\000\000@\214\001s\224\217\224(K\003\220\214\001f\224(K\004\221\224u."s,
		"\200\005\225\020\000\000\000\000\000\000\000]\224\226\002\000\000\000\000\000\000\000ab\224a."s,
	};
	for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++)
		seeds.push_back({"extra" + std::to_string(k), extra[k]});
	if (seeds.empty()) {
		fprintf(stderr, "fr_fuzz: no seeds under %s/fr\n", TEST_DATADIR);
		return 1;
	}
	// Scenario sets for the analysis: every dump of one directory, one mutated.
	std::vector<std::vector<size_t>> sets;
	{
		std::string cur;
		for (size_t k = 0; k < seeds.size(); k++) {
			std::string dir = seeds[k].name.substr(0, seeds[k].name.rfind('/'));
			if (seeds[k].name.rfind("extra", 0) == 0)
				continue;
			if (dir != cur) {
				sets.emplace_back();
				cur = dir;
			}
			sets.back().push_back(k);
		}
	}

	prng r{seed * 0x9e3779b97f4a7c15ULL + 1};
	pickle_limits small;
	small.max_depth = 8;
	small.max_items = 2000;
	small.max_string = 512;
	small.max_total_bytes = 8192;
	small.max_memo = 64;
	fr_load_options opt;
	auto start = std::chrono::steady_clock::now();
	long done = 0, ok_pickles = 0, ok_dumps = 0, analyses = 0;
	for (; done < iterations; done++) {
		if ((done & 63) == 0) {
			std::chrono::duration<double> el = std::chrono::steady_clock::now() - start;
			if (el.count() > seconds)
				break;
		}
		const seed_file &s = seeds[r.below(seeds.size())];
		std::string d = s.data;
		mutate(d, r, seeds);
		const pickle_limits &lim = (done % 4 == 3) ? small : opt.limits;
		pickle_result p = pickle_load(d, lim);
		if (p.ok()) {
			ok_pickles++;
			check_value(p.value, 0, lim);
		} else if (p.error.empty() || p.offset > d.size()) {
			fprintf(stderr, "fr_fuzz: bad error report\n");
			abort();
		}
		fr_dump_result fd = fr_parse_dump(d, s.name, opt);
		if (fd.dump) {
			ok_dumps++;
			(void)fr_rank_from_name(s.name);
		}
		(void)fr_sniff(std::string_view(d).substr(0, 4096));

		if (done % 97 == 0 && !sets.empty()) {
			const std::vector<size_t> &set = sets[r.below(sets.size())];
			size_t victim = r.below(set.size());
			std::vector<fr_dump> dumps;
			std::vector<fr_unreadable> bad;
			for (size_t k = 0; k < set.size(); k++) {
				const seed_file &f = seeds[set[k]];
				std::string data = f.data;
				if (k == victim)
					mutate(data, r, seeds);
				fr_dump_result x = fr_parse_dump(data, f.name, opt);
				if (x.dump)
					dumps.push_back(std::move(*x.dump));
				else
					bad.push_back({f.name, fr_rank_from_name(f.name).value_or(-1), x.error});
			}
			fr_report_must_render(dumps, bad);
			analyses++;
		}
	}
	std::chrono::duration<double> el = std::chrono::steady_clock::now() - start;
	printf("fr_fuzz: %ld iterations in %.1f s (%zu seeds): %ld pickles and %ld dumps "
	       "accepted, %ld analyses, no crash\n",
	       done, el.count(), seeds.size(), ok_pickles, ok_dumps, analyses);
	return 0;
}
