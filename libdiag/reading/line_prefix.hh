// Who wrote a line: the prefixes launchers put in front of each rank's
// output. Only `[rankR]`, `[RANK R]`, `[rank=R]` and Open MPI's
// `[J,R]<stderr>:` name a global rank;
// srun's `R: ` is a Slurm task id, torchrun's `[defaultR]:` a local rank and
// NCCL's `[R]` a CUDA device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace diag {

struct line_identity {
	int task = -1;        // srun --label
	int rank = -1;        // global rank
	int local_rank = -1;  // torchrun --tee [defaultN]
	int pid = -1;         // NCCL prefix, Ray prefix
	int cuda_dev = -1;    // NCCL prefix
	bool nccl = false;    // an NCCL debug line (host:pid:tid [dev] ...)
	bool ray_actor = false; // behind a Ray actor's "(Name pid=N, ip=A)" prefix
	std::string_view host;
	std::string_view body; // the text after the prefixes
};

line_identity parse_prefix(std::string_view line);

// The writer of a line, as the readers key it (see line_prefix.cc).
uint64_t writer_ident(const line_identity &id);
// Whether a writer is a host's whole output (a prefix naming only a host):
// many ranks', no one writer of its own.
bool host_writer(uint64_t ident);

// Who wrote seg: its prefixes, except on a kernel log's lines, which carry
// none (the whole line is the body).
line_identity identify(std::string_view seg, bool kernel_log);

// The hosts a file's pdsh-style prefixes ("node07: [rank3] ...") have
// named. pdsh prefixes every line a node writes, so a line that starts with
// one of them is that node's whatever text follows ("node07: memory
// allocation of 2097152 bytes failed"), which the per-line test, knowing no
// hosts, must refuse ("epoch3: loss 2.1" is no host's).
class prefix_hosts {
public:
	// Notes id's host where seg's prefix named it pdsh-style.
	void learn(std::string_view seg, const line_identity &id);
	// A line with no host whose text starts with a learned host's prefix:
	// that host's, with what follows its prefix read as prefixes again.
	void apply(line_identity &id) const;

private:
	std::vector<std::string> hosts_;
};

// Parses a non-negative decimal integer that fills the whole view.
bool parse_uint(std::string_view s, long long &out);

// v without the blanks (spaces, tabs, a CR) around it: a table's cell.
std::string_view trim_blanks(std::string_view v);

// A clock reading of two or three fields, "MM:SS" or "HH:MM:SS" (each field
// at most part_max), as seconds; -1 where v is none. Accounting tables
// write durations so (sacct's Elapsed, Grid Engine's h_rt).
int64_t clock_seconds(std::string_view v, long long part_max);

} // namespace diag
