#include "reading/stack_dumps.hh"

#include "reading/line_prefix.hh"

#include <cctype>
#include <utility>

namespace diag {

namespace {

// Bounds: processes per file, frames hashed per stack, a header's length.
constexpr size_t max_processes = 4096;
constexpr int max_frames = 256;
constexpr size_t max_header = 200;

bool starts_with(std::string_view s, std::string_view p)
{
	return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// Digits at the start of s, as a number (-1: none, or too many).
long long leading_number(std::string_view s)
{
	long long n = -1;
	for (size_t i = 0; i < s.size() && i < 9; i++) {
		if (s[i] < '0' || s[i] > '9')
			return n;
		n = (n < 0 ? 0 : n * 10) + (s[i] - '0');
	}
	return s.size() >= 9 ? -1 : n;
}

// A command line's own local rank ("--local_rank=1", "--local-rank 1",
// "LOCAL_RANK=1"): launchers that spawn ranks pass it.
int local_rank_of(std::string_view cmd)
{
	for (std::string_view key : {"--local_rank=", "--local-rank=", "--local_rank ", "--local-rank ", "LOCAL_RANK="}) {
		size_t at = cmd.find(key);
		if (at != std::string_view::npos) {
			long long n = leading_number(cmd.substr(at + key.size()));
			if (n >= 0 && n < 100000)
				return static_cast<int>(n);
		}
	}
	return -1;
}

// The rank a dump's own header names: a loop over a job's pids that
// prints each one's environment ("== pid 88148 RANK=7"). Not LOCAL_RANK=.
int rank_in_header(std::string_view h)
{
	for (size_t at = h.find("RANK="); at != std::string_view::npos; at = h.find("RANK=", at + 1)) {
		if (at > 0 && (std::isalnum(static_cast<unsigned char>(h[at - 1])) || h[at - 1] == '_'))
			continue;
		long long n = leading_number(h.substr(at + 5));
		if (n >= 0 && n < 100000)
			return static_cast<int>(n);
	}
	return -1;
}

// A launcher's own frames: the process that spawned the ranks and waits
// for them (torchrun's elastic agent, torch.distributed.launch, the parent
// of mp.spawn joining its children). It sits in its own loop whatever the
// ranks do, so it is not one of them. (A child of mp.spawn runs under
// spawn.py's _wrap, not its join.)
bool launcher_frame(std::string_view frame)
{
	for (std::string_view f : {"elastic/agent/server/api.py", "torch/distributed/launch.py", "torch/distributed/run.py"})
		if (frame.find(f) != std::string_view::npos)
			return true;
	return frame.rfind("join (", 0) == 0 && frame.find("torch/multiprocessing/spawn.py") != std::string_view::npos;
}

} // namespace

void stack_dump_reader::close_process()
{
	if (in_process && done.size() < max_processes)
		done.push_back(std::move(cur));
	cur = stack_dump{};
	in_process = false;
	in_main = false;
}

void stack_dump_reader::note(std::string_view body, std::string_view host, uint64_t line)
{
	// A dump's own header (a sweep's "### node07: py-spy dump --pid N",
	// "=== node07 pid=N RANK=3", tail's "==> spy-node07.out <=="): it may
	// name the host.
	const size_t rule = body.find_first_not_of('=');
	const bool ruled = rule >= 2 && rule != std::string_view::npos && (body[rule] == ' ' || body[rule] == '>');
	if (starts_with(body, "###") || ruled) {
		close_process();
		header.assign(trim_blanks(body).substr(0, max_header));
		header_rank = rank_in_header(header);
		return;
	}
	if (starts_with(body, "Process ")) {
		std::string_view rest = body.substr(8);
		long long pid = leading_number(rest);
		size_t digits = rest.find_first_not_of("0123456789");
		if (pid > 0 && digits != std::string_view::npos && rest[digits] == ':') {
			close_process();
			in_process = true;
			cur.line = line;
			cur.pid = static_cast<int>(pid);
			cur.local_rank = local_rank_of(rest.substr(digits + 1));
			cur.host.assign(host);
			cur.header = header;
			cur.rank = header_rank;
			header_rank = -1; // a header names one process's rank, not a sweep's
			return;
		}
	}
	if (!in_process)
		return;
	if (starts_with(body, "Thread ")) {
		in_main = body.find("\"MainThread\"") != std::string_view::npos;
		return;
	}
	// A frame: "    function (file.py:123)", native ones "(libc.so.6)"
	// (its indent may be gone with the line's prefix); not the dump's
	// "Python v3.9.15 (/usr/bin/python3)".
	std::string_view frame = trim_blanks(body);
	if (frame.size() < 5 || frame.back() != ')' || frame.find(" (") == std::string_view::npos ||
	    starts_with(frame, "Python "))
		return;
	if (starts_with(frame, "_worker_loop ("))
		cur.worker = true; // a DataLoader worker's process
	if (launcher_frame(frame))
		cur.launcher = true;
	if (!in_main || cur.main_frames >= max_frames)
		return;
	if (cur.main_frames == 0) {
		cur.main_stack = 1469598103934665603ull;
		cur.main_top.assign(frame.substr(0, 160));
	}
	for (unsigned char c : frame)
		cur.main_stack = (cur.main_stack ^ c) * 1099511628211ull;
	cur.main_stack = (cur.main_stack ^ '\n') * 1099511628211ull;
	cur.main_frames++;
}

void stack_dump_reader::conclude(uint32_t file, std::vector<stack_dump> &out)
{
	close_process();
	for (auto &d : done) {
		d.file = file;
		out.push_back(std::move(d));
	}
	done.clear();
}

} // namespace diag
