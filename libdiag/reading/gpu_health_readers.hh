// Readers of what DCGM and the driver leave beside a job: dcgm-exporter's
// Prometheus text, `dcgmi stats -j JOB -v`, `dcgmi diag -j`, and
// `nvidia-smi -q` (text and -x XML). Each gives gpu_observations; a file
// that looks like one of them but is not gives a note, never an exception.
#pragma once

#include "model/gpu_health.hh"

#include <string>
#include <string_view>

namespace diag {

enum class gpu_health_format { none, dcgm_exporter, dcgmi_stats, dcgmi_diag_json, nvidia_smi_text, nvidia_smi_xml };

const char *gpu_health_format_name(gpu_health_format f);

// Told from the first bytes of a file.
gpu_health_format sniff_gpu_health(std::string_view head);

// Reads the whole text (bounded by the caller). host_hint: the host the
// file's path names, for formats that do not name it. False with why
// when nothing could be read from it.
bool read_gpu_health(gpu_health_format f, const std::string &text, const std::string &file,
		     const std::string &host_hint, gpu_health &out, std::string &why);

bool read_dcgm_exporter(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why);
bool read_dcgmi_stats(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why);
bool read_dcgmi_diag_json(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why);
bool read_nvidia_smi_text(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why);
bool read_nvidia_smi_xml(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why);

// nvidia-smi's text and XML name the same fields: "ECC Errors / Volatile /
// DRAM Uncorrectable" and <ecc_errors><volatile><dram_uncorrectable>.
// Given the path in XML spelling, adds the observation it stands for.
void nvidia_smi_field(const std::string &path, const std::string &value, const gpu_observation &gpu,
		      gpu_health &out);

} // namespace diag
