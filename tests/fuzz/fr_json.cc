// Fuzz target: flight-recorder dumps as JSON (torch's JSON dump, or what a
// tool converted): the sniffers, the JSON decoder into the dump tree under
// default and tight limits, and the analysis and report of the dump as one
// rank of a job beside an unreadable one.
#include "fr_report_renders.hh"
#include "fuzz_target.hh"

#include "fr/fr_analysis.hh"
#include "fr/fr_bridge.hh"
#include "fr/fr_dump.hh"

#include <cstdlib>

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view bytes = fuzz_bytes(data, size);
	(void)looks_like_fr_json(bytes);
	(void)fr_sniff(bytes.substr(0, 4096));
	fr_load_options tight;
	tight.max_entries = 16;
	tight.limits.max_depth = 8;
	tight.limits.max_items = 2000;
	tight.limits.max_string = 512;
	tight.limits.max_total_bytes = 8192;
	(void)fr_parse_dump(bytes, "fr_dump_5.json", tight);
	fr_dump_result r = fr_parse_dump(bytes, "fr_dump_5.json", fr_load_options{});
	std::vector<fr_dump> dumps;
	std::vector<fr_unreadable> bad{{"fr_dump_6.json", 6, "truncated"}};
	if (r.dump)
		dumps.push_back(std::move(*r.dump));
	fr_report_must_render(dumps, bad);
	return 0;
}
