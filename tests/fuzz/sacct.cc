// Fuzz target: Slurm accounting as the pipeline reads it, `sacct -P` text
// and `sacct --json`.
#include "fuzz_target.hh"

#include "reading/sacct_reader.hh"

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view text = fuzz_bytes(data, size);
	{
		evidence ev;
		(void)read_sacct_text(text, ev);
	}
	{
		evidence ev;
		(void)read_sacct_json(text, ev);
	}
	return 0;
}
