// Fuzz target: the signature loader (conf/signatures/*.yaml, checked
// against its own samples at load), then the loaded rules, prefilter and
// patterns over the input's own lines.
#include "fuzz_target.hh"

#include "matching/signature.hh"

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view text = fuzz_bytes(data, size);
	rule_set rules;
	std::string err;
	if (!rules.load_string(text, "fuzz.yaml", err))
		return 0;
	rules.finalize();
	(void)rules.sample_conflicts();
	(void)rules.all_literals();
	capture_list caps;
	line_hits hits;
	size_t begin = 0;
	while (begin <= text.size()) {
		size_t end = text.find('\n', begin);
		if (end == std::string_view::npos)
			end = text.size();
		std::string_view line = text.substr(begin, end - begin);
		(void)rules.match(line, src_all, caps);
		rules.scan_line(line, hits);
		size_t off = line.size() / 2;
		(void)rules.hit_reach(off, hits);
		(void)rules.match_hits(line.substr(off), off, hits, src_log, caps);
		begin = end + 1;
	}
	return 0;
}
