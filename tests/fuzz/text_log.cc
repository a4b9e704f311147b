// Fuzz target: the text log reader over in-memory bytes, as the pipeline
// reads a source: sniffing, then line splitting (short pieces included),
// cleaning, rank and host prefixes, timestamps, the literal prefilter and
// the signatures, once as a job log, an NCCL debug file and a kernel log.
#include "fuzz_rules.hh"
#include "fuzz_target.hh"

#include "reading/line_reader.hh"
#include "reading/source_sniff.hh"
#include "reading/text_log_reader.hh"

#include <cstdlib>

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// One thread: the reader's helper threads change only its speed (a
	// unit test holds it to that), and a fuzzer wants it reproducible.
	static int once = setenv("DENPEX_THREADS", "1", 1);
	(void)once;
	rule_set &rules = fuzz_rules();
	std::string_view bytes = fuzz_bytes(data, size);
	(void)sniff_source(bytes.substr(0, 64 * 1024));
	static const struct {
		source_kind kind;
		const char *path;
		size_t max_line;
	} as[] = {
		{source_kind::job_log, "job.out", 64 * 1024},
		{source_kind::nccl_log, "nccl.node01.4242.log", 64 * 1024},
		{source_kind::kernel_log, "kern.node01.log", 256},
	};
	for (const auto &a : as) {
		evidence ev;
		source_file sf;
		sf.path = a.path;
		sf.kind = a.kind;
		if (a.kind != source_kind::job_log)
			sf.host_hint = ev.intern_host(host_from_path(a.path));
		uint32_t file = ev.add_source(sf);
		line_reader lr(bytes, a.max_line);
		if (!read_text_log(lr, file, a.kind, rules, ev))
			abort(); // memory cannot fail to read
	}
	return 0;
}
