// dcgmi's own output. Shapes from the DCGM User Guide (docs.nvidia.com,
// "Job Statistics" and "DCGM Diagnostics"):
//   dcgmi stats -j JOB -v   a box per GPU, "| GPU ID: 0 |", then
//                           "| Double Bit ECC Errors | 0 |",
//                           "| Critical XID Errors | 1 |" rows;
//   dcgmi diag -r N -j      {"DCGM GPU Diagnostic": {"test_categories":
//                           [{"category": .., "tests": [{"name": ..,
//                           "results": [{"gpu_id"|"gpu_ids": "0",
//                           "status": "Pass"|"Fail"|"Skip"|"Warn"}]}]}]}}
// Neither names a PCI bus id: observations carry the GPU index only.
#include "matching/regex.hh"
#include "reading/gpu_health_readers.hh"

#include <jansson.h>

#include <cstdlib>
#include <optional>

namespace diag {

bool read_dcgmi_stats(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why)
{
	regex_error re;
	std::optional<regex> gpu = regex::compile(R"(^\|\s*GPU ID:\s*(\d+)\s*\|?)", false, re);
	std::optional<regex> row = regex::compile(R"(^\|\s*(Double Bit ECC Errors|Critical XID Errors|XID Errors)\s*\|\s*(\d+)\s*\|)", true, re);
	if (!gpu || !row) {
		why = "internal: " + re.message;
		return false;
	}
	proto.source = "dcgm";
	proto.tool = "dcgmi stats";
	int cur = -1;
	size_t kept = 0;
	size_t p = 0;
	while (p < text.size()) {
		size_t e = text.find('\n', p);
		std::string_view l(text.data() + p, (e == std::string::npos ? text.size() : e) - p);
		p = e == std::string::npos ? text.size() : e + 1;
		if (gpu->search(l)) {
			cur = atoi(std::string(gpu->group(l, 1)).c_str());
			continue;
		}
		if (cur < 0 || !row->search(l))
			continue;
		gpu_observation o = proto;
		o.gpu_index = cur;
		std::string name(row->group(l, 1));
		// A count of critical Xids, not an Xid number: any non-zero agrees.
		o.counter = name.find("ECC") != std::string::npos ? gpu_counter::ecc_dbe : gpu_counter::xid;
		o.value = strtod(std::string(row->group(l, 2)).c_str(), nullptr);
		o.detail = name;
		out.obs.push_back(o);
		kept++;
	}
	if (kept == 0) {
		why = "dcgmi stats output without a GPU's ECC or XID rows";
		return false;
	}
	return true;
}

namespace {

// "0", "0,1", 3 -> indices.
std::vector<int> gpu_ids(json_t *v)
{
	std::vector<int> r;
	if (json_is_integer(v))
		r.push_back(static_cast<int>(json_integer_value(v)));
	else if (json_is_string(v)) {
		std::string s = json_string_value(v);
		size_t i = 0;
		while (i < s.size()) {
			size_t c = s.find(',', i);
			std::string part = s.substr(i, c == std::string::npos ? std::string::npos : c - i);
			char *end = nullptr;
			long n = strtol(part.c_str(), &end, 10);
			if (end != part.c_str() && n >= 0 && n < 4096)
				r.push_back(static_cast<int>(n));
			if (c == std::string::npos)
				break;
			i = c + 1;
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) if (json_is_integer(x)) r.push_back(static_cast<int>(json_integer_value(x)));
	}
	return r;
}

} // namespace

bool read_dcgmi_diag_json(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why)
{
	json_error_t je;
	json_t *root = json_loadb(text.data(), text.size(), 0, &je);
	if (!root) {
		why = std::string("dcgmi diag output is not valid JSON: ") + je.text + " at line " + std::to_string(je.line);
		return false;
	}
	proto.source = "dcgm";
	proto.tool = "dcgmi diag";
	json_t *cats = json_object_get(json_object_get(root, "DCGM GPU Diagnostic"), "test_categories");
	size_t kept = 0, i, j, k;
	json_t *cat, *test, *res;
	json_array_foreach(cats, i, cat) {
		json_array_foreach(json_object_get(cat, "tests"), j, test) {
			json_t *nm = json_object_get(test, "name");
			std::string name = json_is_string(nm) ? json_string_value(nm) : "?";
			json_array_foreach(json_object_get(test, "results"), k, res) {
				json_t *st = json_object_get(res, "status");
				if (!json_is_string(st))
					continue;
				std::string status = json_string_value(st);
				if (status != "Pass" && status != "Fail")
					continue; // Skip, Warn, Not run: no word on the GPU
				json_t *ids = json_object_get(res, "gpu_ids");
				if (!ids)
					ids = json_object_get(res, "gpu_id");
				for (int g : gpu_ids(ids)) {
					gpu_observation o = proto;
					o.gpu_index = g;
					o.counter = gpu_counter::diag_result;
					o.value = status == "Fail" ? 1 : 0;
					o.detail = name;
					out.obs.push_back(o);
					kept++;
				}
			}
		}
	}
	json_decref(root);
	if (kept == 0) {
		why = "dcgmi diag output without a per-GPU Pass or Fail";
		return false;
	}
	return true;
}

} // namespace diag
