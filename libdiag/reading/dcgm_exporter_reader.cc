// dcgm-exporter's Prometheus text exposition (NVIDIA/dcgm-exporter README,
// default-counters.csv): one sample a line,
//   DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-..",pci_bus_id="00000000:5D:00.0",
//                          device="nvidia0",modelName="..",Hostname="node02"} 79
// Samples are line-shaped, so PCRE2 reads them (names, labels, value).
#include "matching/regex.hh"
#include "reading/gpu_health_readers.hh"

#include <cstdlib>
#include <optional>

namespace diag {

namespace {

std::optional<gpu_counter> dcgm_field(std::string_view name)
{
	if (name == "DCGM_FI_DEV_XID_ERRORS")
		return gpu_counter::xid;
	if (name == "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" || name == "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL")
		return gpu_counter::ecc_dbe;
	if (name == "DCGM_FI_DEV_ROW_REMAP_FAILURE")
		return gpu_counter::row_remap_failure;
	if (name == "DCGM_FI_DEV_ROW_REMAP_PENDING")
		return gpu_counter::row_remap_pending;
	if (name == "DCGM_FI_DEV_RETIRED_PENDING")
		return gpu_counter::retired_pending;
	return std::nullopt;
}

} // namespace

bool read_dcgm_exporter(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why)
{
	regex_error re;
	std::optional<regex> sample =
		regex::compile(R"(^(DCGM_FI_[A-Z0-9_]+)(?:\{([^}]*)\})?[ \t]+([-+0-9.eE]+|NaN)(?:[ \t]+\d+)?[ \t]*$)", false, re);
	std::optional<regex> label = regex::compile(R"re(([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)")re", false, re);
	if (!sample || !label) {
		why = "internal: " + re.message;
		return false;
	}
	proto.source = "dcgm";
	proto.tool = "dcgm-exporter";
	size_t samples = 0, bad = 0, kept = 0;
	size_t p = 0;
	while (p < text.size()) {
		size_t e = text.find('\n', p);
		std::string_view l(text.data() + p, (e == std::string::npos ? text.size() : e) - p);
		p = e == std::string::npos ? text.size() : e + 1;
		if (!l.empty() && l.back() == '\r')
			l.remove_suffix(1);
		if (l.empty() || l[0] == '#')
			continue;
		if (!sample->search(l)) {
			bad++;
			continue;
		}
		samples++;
		auto field = dcgm_field(sample->group(l, 1));
		if (!field)
			continue;
		gpu_observation o = proto;
		o.counter = *field;
		std::string v(sample->group(l, 3));
		char *end = nullptr;
		o.value = strtod(v.c_str(), &end);
		if (v == "NaN" || !end || *end)
			continue;
		std::string_view labels = sample->group(l, 2);
		while (!labels.empty() && label->search(labels)) {
			std::string_view k = label->group(labels, 1), val = label->group(labels, 2);
			if (k == "pci_bus_id")
				o.bus_id = normalize_bus_id(std::string(val));
			else if (k == "Hostname" && !val.empty())
				o.host = std::string(val);
			else if (k == "gpu")
				o.gpu_index = atoi(std::string(val).c_str());
			size_t used = static_cast<size_t>(val.data() + val.size() - labels.data()) + 1;
			labels.remove_prefix(std::min(used, labels.size()));
		}
		out.obs.push_back(o);
		kept++;
	}
	if (kept == 0) {
		why = samples ? "dcgm-exporter metrics without Xid, ECC or row-remap fields"
			      : "no dcgm-exporter samples (" + std::to_string(bad) + " unreadable lines)";
		return false;
	}
	return true;
}

} // namespace diag
