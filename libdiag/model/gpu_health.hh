// What DCGM and the driver report about a GPU, read from dcgm-exporter,
// dcgmi and nvidia-smi output: counters that can corroborate (or
// contradict) a hardware verdict, never a cause of their own.
#pragma once

#include <string>
#include <vector>

namespace diag {

enum class gpu_counter {
	xid,                // last Xid seen (0: none)
	ecc_dbe,            // uncorrectable (double-bit) ECC errors
	row_remap_failure,  // row remapping failed (1) or not (0)
	row_remap_pending,  // remapped rows pending a reset
	retired_pending,    // retired pages pending a reset
	diag_result,        // dcgmi diag: 1 a test failed on this GPU, 0 all passed
};

const char *gpu_counter_name(gpu_counter c);

struct gpu_observation {
	std::string source; // dcgm | nvidia-smi
	std::string tool;   // dcgm-exporter, dcgmi stats, dcgmi diag, nvidia-smi -q, nvidia-smi -x
	std::string file;   // where it was read
	std::string host;   // empty: unknown
	std::string bus_id; // normalized "0000:5d:00"; empty: unknown
	int gpu_index = -1;
	gpu_counter counter = gpu_counter::xid;
	double value = 0;
	std::string detail; // e.g. the failing test's name
};

struct gpu_health {
	std::vector<gpu_observation> obs;
	std::vector<std::string> notes; // files that looked like DCGM output but were not
};

// "00000000:5D:00.0", "0000:5d:00", "5d:00.0" -> "0000:5d:00" (the kernel's
// Xid form: 4-digit domain, bus, device; the function dropped). Empty when
// it is not a bus id.
std::string normalize_bus_id(const std::string &s);

} // namespace diag
