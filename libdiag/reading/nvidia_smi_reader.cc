// nvidia-smi -q, as text and as -x XML. Shapes from nvidia-smi(1) and the
// DTD it names (nvsmi_device_v12.dtd): per GPU
//   text  "GPU 00000000:5D:00.0" then indented "Key : Value" rows under
//         headings ("ECC Errors" / "Volatile" / "DRAM Uncorrectable : 0",
//         "Remapped Rows" / "Remapping Failure Occurred : No");
//   XML   <gpu id="00000000:5D:00.0"><ecc_errors><volatile>
//         <dram_uncorrectable>0</dram_uncorrectable>...
// The two spell the same field alike once the text's headings are
// lower-cased with '_' for spaces, so one table maps both. The XML goes
// through expat (nesting decides what a value means).
#include "reading/gpu_health_readers.hh"

#include <expat.h>

#include <cctype>
#include <cstdlib>
#include <vector>

namespace diag {

namespace {

std::string xml_spelling(const std::string &heading)
{
	std::string o;
	for (char c : heading) {
		if (c == ' ' || c == '-')
			o += '_';
		else if (isalnum(static_cast<unsigned char>(c)))
			o += static_cast<char>(tolower(static_cast<unsigned char>(c)));
	}
	return o;
}

bool ends_with(const std::string &s, const std::string &suffix)
{
	return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "0", "Yes", "No", "N/A" -> number; false for N/A and the like.
bool field_value(const std::string &v, double &out)
{
	std::string t;
	for (char c : v)
		if (!isspace(static_cast<unsigned char>(c)))
			t += c;
	if (t == "Yes") {
		out = 1;
		return true;
	}
	if (t == "No") {
		out = 0;
		return true;
	}
	char *end = nullptr;
	out = strtod(t.c_str(), &end);
	return !t.empty() && end && !*end;
}

} // namespace

void nvidia_smi_field(const std::string &path, const std::string &value, const gpu_observation &gpu, gpu_health &out)
{
	gpu_counter c;
	if (path.find("ecc_errors/volatile/") != std::string::npos &&
	    (ends_with(path, "/dram_uncorrectable") || ends_with(path, "/sram_uncorrectable") ||
	     ends_with(path, "/double_bit/total")))
		c = gpu_counter::ecc_dbe;
	else if (ends_with(path, "remapped_rows/remapping_failure_occurred") || ends_with(path, "remapped_rows/remapped_row_failure"))
		c = gpu_counter::row_remap_failure;
	else if (ends_with(path, "remapped_rows/pending") || ends_with(path, "remapped_rows/remapped_row_pending"))
		c = gpu_counter::row_remap_pending;
	else if (ends_with(path, "retired_pages/pending_page_blacklist") || ends_with(path, "retired_pages/pending_blacklist") ||
		 ends_with(path, "retired_pages/pending_page_retirement") || ends_with(path, "retired_pages/pending_retirement"))
		c = gpu_counter::retired_pending;
	else
		return;
	double v;
	if (!field_value(value, v))
		return;
	gpu_observation o = gpu;
	o.counter = c;
	o.value = v;
	o.detail = path;
	out.obs.push_back(o);
}

bool read_nvidia_smi_text(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why)
{
	proto.source = "nvidia-smi";
	proto.tool = "nvidia-smi -q";
	size_t before = out.obs.size();
	bool in_gpu = false;
	gpu_observation gpu = proto;
	std::vector<std::pair<size_t, std::string>> headings; // (indent, xml spelling)
	size_t gpus = 0;
	size_t p = 0;
	while (p < text.size()) {
		size_t e = text.find('\n', p);
		std::string l = text.substr(p, (e == std::string::npos ? text.size() : e) - p);
		p = e == std::string::npos ? text.size() : e + 1;
		if (!l.empty() && l.back() == '\r')
			l.pop_back();
		size_t indent = l.find_first_not_of(' ');
		if (indent == std::string::npos)
			continue;
		if (indent == 0) {
			in_gpu = l.rfind("GPU ", 0) == 0 && !normalize_bus_id(l.substr(4)).empty();
			if (in_gpu) {
				gpu = proto;
				gpu.bus_id = normalize_bus_id(l.substr(4));
				gpu.gpu_index = static_cast<int>(gpus++);
			}
			headings.clear();
			continue;
		}
		if (!in_gpu)
			continue;
		while (!headings.empty() && headings.back().first >= indent)
			headings.pop_back();
		size_t colon = l.find(" : ");
		std::string key = l.substr(indent, colon == std::string::npos ? std::string::npos : colon - indent);
		while (!key.empty() && key.back() == ' ')
			key.pop_back();
		if (colon == std::string::npos) {
			headings.push_back({indent, xml_spelling(key)});
			continue;
		}
		std::string path;
		for (const auto &h : headings)
			path += h.second + "/";
		nvidia_smi_field(path + xml_spelling(key), l.substr(colon + 3), gpu, out);
	}
	if (gpus == 0) {
		why = "nvidia-smi -q output without a \"GPU <bus id>\" section";
		return false;
	}
	if (out.obs.size() == before) {
		why = "nvidia-smi -q output without ECC, retired-page or remapped-row fields";
		return false;
	}
	return true;
}

namespace {

struct xml_walk {
	gpu_observation proto;
	gpu_health *out = nullptr;
	std::vector<std::string> path; // below <gpu>
	bool in_gpu = false;
	gpu_observation gpu;
	std::string chars;
	size_t gpus = 0;
	size_t depth = 0;
};

void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
	xml_walk &w = *static_cast<xml_walk *>(ud);
	w.depth++;
	w.chars.clear();
	if (w.depth > 64)
		return;
	std::string n = name;
	if (!w.in_gpu && n == "gpu") {
		w.in_gpu = true;
		w.gpu = w.proto;
		w.gpu.gpu_index = static_cast<int>(w.gpus++);
		for (size_t i = 0; attrs && attrs[i] && attrs[i + 1]; i += 2)
			if (std::string(attrs[i]) == "id")
				w.gpu.bus_id = normalize_bus_id(attrs[i + 1]);
		w.path.clear();
		return;
	}
	if (w.in_gpu)
		w.path.push_back(n);
}

void XMLCALL on_end(void *ud, const XML_Char *name)
{
	xml_walk &w = *static_cast<xml_walk *>(ud);
	if (w.depth > 0)
		w.depth--;
	if (!w.in_gpu)
		return;
	if (w.path.empty()) {
		if (std::string(name) == "gpu")
			w.in_gpu = false;
		return;
	}
	std::string p;
	for (const auto &s : w.path)
		p += (p.empty() ? "" : "/") + s;
	nvidia_smi_field(p, w.chars, w.gpu, *w.out);
	w.path.pop_back();
	w.chars.clear();
}

void XMLCALL on_chars(void *ud, const XML_Char *s, int len)
{
	xml_walk &w = *static_cast<xml_walk *>(ud);
	if (w.chars.size() < 256)
		w.chars.append(s, static_cast<size_t>(len));
}

} // namespace

bool read_nvidia_smi_xml(const std::string &text, gpu_observation proto, gpu_health &out, std::string &why)
{
	proto.source = "nvidia-smi";
	proto.tool = "nvidia-smi -x";
	XML_Parser xp = XML_ParserCreate(nullptr);
	if (!xp) {
		why = "out of memory";
		return false;
	}
	xml_walk w;
	w.proto = proto;
	w.out = &out;
	size_t before = out.obs.size();
	XML_SetUserData(xp, &w);
	XML_SetElementHandler(xp, on_start, on_end);
	XML_SetCharacterDataHandler(xp, on_chars);
	// The DOCTYPE names an external DTD: never fetched (expat does not).
	bool ok = XML_Parse(xp, text.data(), static_cast<int>(std::min<size_t>(text.size(), 1u << 30)), 1) == XML_STATUS_OK;
	if (!ok)
		why = std::string("nvidia-smi -x output is not well-formed XML: ") + XML_ErrorString(XML_GetErrorCode(xp)) +
		      " at line " + std::to_string(XML_GetCurrentLineNumber(xp));
	XML_ParserFree(xp);
	if (!ok) {
		out.obs.resize(before);
		return false;
	}
	if (w.gpus == 0) {
		why = "nvidia-smi -x output without a <gpu> element";
		return false;
	}
	if (out.obs.size() == before) {
		why = "nvidia-smi -x output without ECC, retired-page or remapped-row fields";
		return false;
	}
	return true;
}

} // namespace diag
