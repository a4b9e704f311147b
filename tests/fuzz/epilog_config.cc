// Fuzz target: denpex-epilog's configuration (denpex.yaml): a syntax error
// gives the defaults, a bad value that key's default, never a throw.
#include "fuzz_target.hh"

#include "../../epilog/config.hh"

#include <cstdlib>

using namespace denpex::epilog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string text(fuzz_bytes(data, size));
	config_result r = config_parse_string(text, "denpex.yaml");
	for (const char *state : {"FAILED", "COMPLETED", "TIMEOUT", "", "failed"})
		(void)config_state_wanted(r.cfg, state);
	if (r.cfg.deadline_s < 5 || r.cfg.deadline_s > 3600)
		abort(); // denpex.yaml(5): 5..3600, whatever the file says
	return 0;
}
