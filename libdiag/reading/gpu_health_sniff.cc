#include "reading/gpu_health_readers.hh"

#include <cctype>

namespace diag {

const char *gpu_counter_name(gpu_counter c)
{
	switch (c) {
	case gpu_counter::xid: return "Xid";
	case gpu_counter::ecc_dbe: return "uncorrectable ECC errors";
	case gpu_counter::row_remap_failure: return "row remapping failure";
	case gpu_counter::row_remap_pending: return "row remapping pending";
	case gpu_counter::retired_pending: return "page retirement pending";
	case gpu_counter::diag_result: return "diagnostic";
	}
	return "?";
}

const char *gpu_health_format_name(gpu_health_format f)
{
	switch (f) {
	case gpu_health_format::dcgm_exporter: return "dcgm-exporter metrics";
	case gpu_health_format::dcgmi_stats: return "dcgmi stats output";
	case gpu_health_format::dcgmi_diag_json: return "dcgmi diag -j output";
	case gpu_health_format::nvidia_smi_text: return "nvidia-smi -q output";
	case gpu_health_format::nvidia_smi_xml: return "nvidia-smi -q -x output";
	case gpu_health_format::none: break;
	}
	return "none";
}

std::string normalize_bus_id(const std::string &s)
{
	// [domain:]bus:device[.function], hex.
	std::string parts[3];
	int n = 0;
	size_t i = 0;
	std::string cur;
	for (; i < s.size(); i++) {
		char c = static_cast<char>(tolower(static_cast<unsigned char>(s[i])));
		if (c == ':') {
			if (n >= 2)
				return "";
			parts[n++] = cur;
			cur.clear();
		} else if (c == '.') {
			break;
		} else if (isxdigit(static_cast<unsigned char>(c))) {
			cur += c;
		} else {
			return "";
		}
	}
	parts[n++] = cur;
	if (n < 2)
		return "";
	std::string dom = n == 3 ? parts[0] : "0000";
	std::string bus = parts[n - 2], dev = parts[n - 1];
	if (dom.empty() || dom.size() > 8 || bus.empty() || bus.size() > 2 || dev.empty() || dev.size() > 2)
		return "";
	while (dom.size() < 4)
		dom = "0" + dom;
	if (dom.size() > 4) {
		// DCGM and nvidia-smi print an 8-digit domain; the kernel 4.
		if (dom.substr(0, dom.size() - 4).find_first_not_of('0') != std::string::npos)
			return "";
		dom = dom.substr(dom.size() - 4);
	}
	if (bus.size() < 2)
		bus = "0" + bus;
	if (dev.size() < 2)
		dev = "0" + dev;
	return dom + ":" + bus + ":" + dev;
}

gpu_health_format sniff_gpu_health(std::string_view head)
{
	// Only a file that begins as the tool's output: a job log that has an
	// nvidia-smi dump somewhere in it is still a log.
	size_t b = head.find_first_not_of(" \t\r\n");
	if (b == std::string_view::npos)
		return gpu_health_format::none;
	std::string_view h = head.substr(b);
	auto starts = [&](std::string_view p) { return h.substr(0, p.size()) == p; };
	if (starts("==============NVSMI LOG=============="))
		return gpu_health_format::nvidia_smi_text;
	if (starts("<?xml") && h.substr(0, 4096).find("<nvidia_smi_log") != std::string_view::npos)
		return gpu_health_format::nvidia_smi_xml;
	if (starts("{") && h.substr(0, 4096).find("\"DCGM GPU Diagnostic\"") != std::string_view::npos)
		return gpu_health_format::dcgmi_diag_json;
	if (starts("Successfully retrieved statistics for job") ||
	    (starts("+---") && h.substr(0, 1024).find("| GPU ID: ") != std::string_view::npos))
		return gpu_health_format::dcgmi_stats;
	// Exposition text whose first sample or HELP names a DCGM field.
	size_t p = 0;
	while (p < head.size()) {
		size_t e = head.find('\n', p);
		std::string_view l = head.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
		if (!l.empty()) {
			if (l.rfind("DCGM_FI_", 0) == 0 || l.rfind("# HELP DCGM_FI_", 0) == 0 ||
			    l.rfind("# TYPE DCGM_FI_", 0) == 0)
				return gpu_health_format::dcgm_exporter;
			if (l[0] != '#')
				return gpu_health_format::none;
		}
		if (e == std::string_view::npos)
			break;
		p = e + 1;
	}
	return gpu_health_format::none;
}

bool read_gpu_health(gpu_health_format f, const std::string &text, const std::string &file,
		     const std::string &host_hint, gpu_health &out, std::string &why)
{
	gpu_observation proto;
	proto.file = file;
	proto.host = host_hint;
	switch (f) {
	case gpu_health_format::dcgm_exporter:
		return read_dcgm_exporter(text, proto, out, why);
	case gpu_health_format::dcgmi_stats:
		return read_dcgmi_stats(text, proto, out, why);
	case gpu_health_format::dcgmi_diag_json:
		return read_dcgmi_diag_json(text, proto, out, why);
	case gpu_health_format::nvidia_smi_text:
		return read_nvidia_smi_text(text, proto, out, why);
	case gpu_health_format::nvidia_smi_xml:
		return read_nvidia_smi_xml(text, proto, out, why);
	case gpu_health_format::none:
		break;
	}
	why = "not DCGM or nvidia-smi output";
	return false;
}

} // namespace diag
