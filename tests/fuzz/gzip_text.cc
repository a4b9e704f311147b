// Fuzz target: gzip-compressed logs (reading/gzip_text.hh) from in-memory
// bytes, as an upload is read: the inflating thread behind its pipe, under
// a cap, read to the end, and once given up on after the first bytes. The
// text never passes the cap, finish() always returns, and the text is read
// as a job log.
#include "fuzz_rules.hh"
#include "fuzz_target.hh"

#include "reading/gzip_text.hh"
#include "reading/line_reader.hh"
#include "reading/text_log_reader.hh"

#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once = setenv("DENPEX_THREADS", "1", 1);
	(void)once;
	constexpr uint64_t cap = 4 << 20;
	std::string_view bytes = fuzz_bytes(data, size);
	if (!gzip_magic(bytes))
		return 0;
	std::string err;
	{
		gunzip_stream gz;
		if (!gz.start(bytes, cap, err))
			abort();
		std::string text;
		char buf[64 * 1024];
		ssize_t n;
		while ((n = read(gz.fd(), buf, sizeof(buf))) > 0)
			text.append(buf, static_cast<size_t>(n));
		(void)gz.finish();
		if (text.size() > cap)
			abort();
		rule_set &rules = fuzz_rules();
		evidence ev;
		source_file sf;
		sf.path = "job.out.gz";
		sf.kind = source_kind::job_log;
		uint32_t file = ev.add_source(sf);
		line_reader lr(text);
		(void)read_text_log(lr, file, source_kind::job_log, rules, ev);
	}
	{
		// Given up on after one read: the thread stops, finish() returns.
		gunzip_stream gz;
		if (!gz.start(bytes, cap, err))
			abort();
		char one[16];
		(void)!read(gz.fd(), one, sizeof(one));
	}
	return 0;
}
