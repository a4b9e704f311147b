// Fuzz target: the plugin's --denpex=VALUE option callback and the $DENPEX
// fallback, with any bytes as the value (srun passes the user's verbatim).
#include "fuzz_target.hh"

#include "spank_denpex.hh"

#include <cstdlib>
#include <string>

extern "C" void stub_reset(void);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string value(fuzz_bytes(data, size)); // C code sees up to the first NUL
	stub_reset();
	denpex::options_reset();
	int rc = denpex::options_cb(0, value.c_str(), 0);
	int state = denpex::options_state();
	if ((rc == 0) != (state == 0 || state == 1))
		abort(); // accepted exactly when it set the state
	(void)denpex::options_cb(0, value.c_str(), 1);
	bool bad_env = false;
	int on = denpex::resolve_enabled(-1, value.c_str(), 1, &bad_env);
	if (on != 0 && on != 1)
		abort();
	(void)denpex::options_cb(0, nullptr, 0);
	return 0;
}
