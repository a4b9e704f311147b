// Fuzz target: the event-first reader (reading/event_scan.hh) over a file of
// the input's bytes, as it reads large files: the fault scan over whole
// buffers, the timed blocks, the tail read and the walks for inherited
// times, then the text log reader on the lines it chose. Forced onto every
// size (DENPEX_EVENT_SCAN_MIN=0), as a job log, an NCCL file and a kernel
// log; the chosen lines must be lines of the file, in order, each once.
#include "fuzz_rules.hh"
#include "fuzz_target.hh"

#include "reading/event_scan.hh"
#include "reading/line_reader.hh"
#include "reading/text_log_reader.hh"

#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

using namespace diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once = setenv("DENPEX_EVENT_SCAN_MIN", "0", 1) + setenv("DENPEX_THREADS", "1", 1);
	(void)once;
	rule_set &rules = fuzz_rules();
	int fd = memfd_create("event_scan", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != static_cast<ssize_t>(size))
		abort();
	for (source_kind kind : {source_kind::job_log, source_kind::nccl_log, source_kind::kernel_log}) {
		std::vector<chosen_line> chosen;
		event_scan_stats st;
		if (choose_lines(fd, size, kind, rules, 64 * 1024, chosen, st)) {
			uint64_t prev_no = 0;
			for (const auto &l : chosen) {
				// A line of the file: it starts the file or follows a '\n',
				// and ends at one or at the end; numbers ascend.
				if (l.off + l.len > size || l.line_no <= prev_no)
					abort();
				if (l.off > 0 && data[l.off - 1] != '\n')
					abort();
				if (l.off + l.len < size && data[l.off + l.len] != '\n')
					abort();
				if (memchr(data + l.off, '\n', l.len))
					abort();
				prev_no = l.line_no;
			}
		}
		evidence ev;
		source_file sf;
		sf.path = kind == source_kind::kernel_log ? "kern.node01.log" : "job.out";
		sf.kind = kind;
		uint32_t file = ev.add_source(sf);
		if (lseek(fd, 0, SEEK_SET) != 0)
			abort();
		line_reader lr(fd);
		if (!read_text_log(lr, file, kind, rules, ev))
			abort(); // a regular file cannot fail to read
	}
	close(fd);
	return 0;
}
