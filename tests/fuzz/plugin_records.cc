// Fuzz target: the SPANK plugin's per-task records (ranks/ and exits/ in
// the job's spool dir, written where the user can write too), read and
// then applied to the evidence as the pipeline does once all is read.
#include "fuzz_target.hh"

#include "reading/plugin_records.hh"

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	evidence ev;
	source_file sf;
	sf.path = "ranks/0.3.json";
	sf.kind = source_kind::rank_map_file;
	uint32_t file = ev.add_source(sf);
	long long refused_schema = 0;
	if (read_plugin_records(fuzz_bytes(data, size), file, ev, refused_schema) == records_read::read)
		apply_plugin_records(ev);
	return 0;
}
