// Fuzz target: torchelastic error files (TORCHELASTIC_ERROR_FILE), whose
// message is matched against the signatures.
#include "fuzz_rules.hh"
#include "fuzz_target.hh"

#include "reading/torchelastic_reader.hh"

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rule_set &rules = fuzz_rules();
	evidence ev;
	source_file sf;
	sf.path = "torchelastic/node01/attempt_0/3/error.json";
	sf.kind = source_kind::torchelastic;
	uint32_t file = ev.add_source(sf);
	(void)read_torchelastic(fuzz_bytes(data, size), file, rules, ev);
	return 0;
}
