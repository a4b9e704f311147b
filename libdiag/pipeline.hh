// From paths to a verdict: walks directories, sniffs and reads every source
// with bounded memory, aligns the clocks and runs the diagnosis.
#pragma once

#include "aligning/clock.hh"
#include "deciding/diagnose.hh"
#include "model/evidence.hh"
#include "model/gpu_health.hh"
#include "reading/gpu_health_readers.hh"
#include "deciding/knowledge.hh"
#include "matching/signature.hh"
#include "rendering/verdict.hh"

#include <functional>
#include <string>
#include <vector>

namespace diag {

struct pipeline_options {
	std::string conf_dir;               // empty: $DENPEX_CONF_DIR, else the installed one
	uint64_t max_bytes_per_file = 0;    // 0: no cap (head and tail kept under a cap)
	size_t max_line = 64 * 1024;        // longer lines are read in pieces
	bool no_follow = false;             // refuse symlinks (O_NOFOLLOW), for root
	int default_tz_offset_s = 0;        // zone for local times without one
	bool tz_given = false;              // default_tz_offset_s was set: do not infer a zone
	std::string job_id;                 // used when no source names the job
	std::function<void(const std::string &)> warn;     // skipped sources and such
	std::function<void(const std::string &, uint64_t)> progress; // (path, bytes) per source
};

// The configuration directory to use: explicit, $DENPEX_CONF_DIR, installed.
std::string resolve_conf_dir(const std::string &explicit_dir);

// Where the signature layers of a configuration directory are: the shipped
// rules (the installed data directory's, or the signatures/ of another
// configuration directory) and the site's (its signatures.d/, which may
// be missing).
struct signature_dirs {
	std::string shipped;
	std::string site;
};
signature_dirs resolve_signature_dirs(const std::string &conf_dir);

class analysis {
public:
	// Loads signatures and knowledge tables. False with err on bad config.
	bool init(const pipeline_options &opts, std::string &err);

	// Adds a file or a directory (walked, in name order). Unreadable or
	// binary files are skipped with a warning. job_output: written by the
	// job (not collected from the kernel or Slurm by the caller).
	void add_path(const std::string &path, bool job_output = false);
	// Adds several, as add_path one after the other (the same evidence),
	// with the files' lines chosen ahead on a few threads
	// (reading/file_prefetch.hh).
	struct path_source {
		std::string path;
		bool job_output = false;
	};
	void add_paths(const std::vector<path_source> &paths);
	// Reads a pasted log from an open descriptor (stdin).
	void add_fd(int fd, const std::string &name);
	// Reads a log held in memory (an upload; nothing touches the disk).
	// A flight-recorder dump is skipped with a warning: it is read from files.
	void add_buffer(std::vector<char> &&bytes, const std::string &name);

	// Sources that gave something to read.
	size_t usable_sources() const { return an_usable; }

	// Aligns clocks and diagnoses. Call once, after all sources.
	verdict run();

	evidence &ev() { return an_ev; }
	rule_set &rules() { return an_rules; }
	const knowledge &kn() const { return an_kn; }
	const clock_result &clock() const { return an_clock; }
	const gpu_health &health() const { return an_health; }

private:
	void add_file(const std::string &path, int depth);
	void list_files(const std::string &path, int depth, std::vector<std::string> &out) const;
	void read_source(class line_reader &lr, const std::string &path, bool seekable_path);
	void read_gzip(class gunzip_stream &gz, const std::string &name);
	void warn(const std::string &msg);
	void add_gpu_health(class line_reader &lr, const std::string &path, gpu_health_format gf);

	pipeline_options an_opts;
	rule_set an_rules;
	knowledge an_kn;
	evidence an_ev;
	clock_result an_clock;
	hang_structure an_fr;
	gpu_health an_health; // DCGM and nvidia-smi output: corroboration only
	std::vector<std::string> an_fr_paths;
	std::vector<std::string> an_notes; // for the verdict (sources refused)
	size_t an_usable = 0;
	bool an_job_output = false; // provenance of the path being added
	class file_prefetch *an_prefetch = nullptr; // lines chosen ahead, while add_paths runs
};

} // namespace diag
