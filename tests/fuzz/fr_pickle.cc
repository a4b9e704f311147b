// Fuzz target: flight-recorder dumps as pickles (what
// TORCH_NCCL_DEBUG_INFO_TEMP_FILE gets): the unpickler under its default and
// under tight limits, the dump decoder, and the analysis and report of the
// dump as one rank of a job.
#include "fr_report_renders.hh"
#include "fuzz_target.hh"

#include "fr/fr_analysis.hh"
#include "fr/fr_dump.hh"
#include "fr/fr_pickle.hh"

#include <cstdlib>

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view bytes = fuzz_bytes(data, size);
	pickle_limits tight;
	tight.max_depth = 8;
	tight.max_items = 2000;
	tight.max_string = 512;
	tight.max_total_bytes = 8192;
	tight.max_memo = 64;
	for (const pickle_limits &lim : {pickle_limits{}, tight}) {
		pickle_result p = pickle_load(bytes, lim);
		if (!p.ok() && p.offset > size)
			abort(); // an error must point into the input
	}
	(void)fr_sniff(bytes.substr(0, 4096));
	fr_load_options opt;
	fr_dump_result r = fr_parse_dump(bytes, "fr/rank_3", opt);
	std::vector<fr_dump> dumps;
	std::vector<fr_unreadable> bad;
	if (r.dump)
		dumps.push_back(std::move(*r.dump));
	else
		bad.push_back({"fr/rank_3", 3, r.error});
	fr_report_must_render(dumps, bad);
	return 0;
}
