#include "reading/stop_tracebacks.hh"

#include "reading/line_prefix.hh"

#include <cctype>
#include <utility>

namespace diag {

namespace {

constexpr size_t max_tracebacks = 4096;
constexpr int max_frames = 512;

bool has(std::string_view s, std::string_view part)
{
	return s.find(part) != std::string_view::npos;
}

// A frame of a launcher's own process, waiting for its workers: torchrun's
// agent, the legacy launcher, DeepSpeed's and accelerate's, mp.spawn's
// parent joining its children.
bool launcher_frame(std::string_view path, std::string_view func)
{
	if (has(path, "torch/distributed/elastic/") || has(path, "torch/distributed/run.py") ||
	    has(path, "torch/distributed/launch.py") || has(path, "deepspeed/launcher/") ||
	    has(path, "accelerate/commands/"))
		return true;
	return has(path, "torch/multiprocessing/spawn.py") &&
	       (func == "join" || func == "start_processes" || func == "spawn");
}

} // namespace

void stop_traceback_reader::note(uint32_t key, int rank, std::string_view body, uint64_t line)
{
	std::string_view t = trim_blanks(body);
	if (t.rfind("Traceback (most recent call last)", 0) == 0) {
		open_traceback &w = writers[key];
		open_count += !w.open;
		w.open = true;
		w.tb = stop_traceback{};
		w.tb.line = line;
		w.tb.rank = rank;
		return;
	}
	// (Most lines are no traceback's: no lookup while none is open.)
	if (open_count == 0)
		return;
	auto it = writers.find(key);
	if (it == writers.end() || !it->second.open)
		return;
	open_traceback &w = it->second;
	// A frame: File "/path/x.py", line 196, in fit
	if (t.rfind("File \"", 0) == 0) {
		size_t close = t.find('"', 6);
		if (close == std::string_view::npos || w.tb.frames >= max_frames)
			return;
		std::string_view path = t.substr(6, close - 6);
		size_t in = t.find(", in ", close);
		std::string_view func = in == std::string_view::npos ? std::string_view() : t.substr(in + 5);
		w.tb.frames++;
		w.tb.in_collective = w.tb.in_collective || has(path, "torch/distributed/distributed_c10d.py");
		w.tb.launcher = w.tb.launcher || launcher_frame(path, func);
		if (!has(path, "site-packages") && !has(path, "dist-packages") && path.rfind("<frozen", 0) != 0) {
			size_t slash = path.rfind('/');
			w.tb.where = std::string(func) + " (" + std::string(path.substr(slash == std::string_view::npos ? 0 : slash + 1)) + ")";
		}
		return;
	}
	// The exception ends it: an interrupt is kept, any other exception (a
	// word ending in Error, Exception, Exit or Interrupt before ':' or the
	// line's end) drops it. Code lines and markers under frames (their
	// indent may be gone with the prefix) pass.
	if (t.rfind("KeyboardInterrupt", 0) == 0) {
		w.open = false;
		open_count--;
		if (w.tb.frames > 0 && done.size() < max_tracebacks)
			done.push_back(std::move(w.tb));
		return;
	}
	size_t word = 0;
	while (word < t.size() && (std::isalnum(static_cast<unsigned char>(t[word])) || t[word] == '_' || t[word] == '.'))
		word++;
	std::string_view name = t.substr(0, word);
	auto ends = [&](std::string_view suffix) {
		return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
	};
	if (word > 0 && (word == t.size() || t[word] == ':') &&
	    (ends("Error") || ends("Exception") || ends("Exit") || ends("Interrupt"))) {
		w.open = false;
		open_count--;
	}
}

void stop_traceback_reader::conclude(uint32_t file, std::vector<stop_traceback> &out)
{
	for (auto &tb : done) {
		tb.file = file;
		out.push_back(std::move(tb));
	}
	done.clear();
	writers.clear();
	open_count = 0;
}

} // namespace diag
