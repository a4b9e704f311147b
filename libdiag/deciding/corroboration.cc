#include "deciding/corroboration.hh"

#include <cstdio>
#include <map>
#include <set>

namespace diag {

namespace {

std::string count_str(double v)
{
	char b[32];
	snprintf(b, sizeof b, "%.0f", v);
	return b;
}

std::string where(const gpu_observation &o)
{
	std::string s = !o.bus_id.empty() ? o.bus_id : "GPU " + std::to_string(o.gpu_index);
	if (!o.host.empty())
		s += " on " + o.host;
	return s + " (" + o.tool + ", " + o.file + ")";
}

std::string label(const gpu_observation &o)
{
	return o.source == "dcgm" ? "DCGM" : "nvidia-smi";
}

void step(std::string &confidence, int dir)
{
	static const char *levels[] = {"low", "medium", "high"};
	int i = confidence == "high" ? 2 : confidence == "medium" ? 1 : 0;
	i = std::max(0, std::min(2, i + dir));
	confidence = levels[i];
}

} // namespace

void corroborate(verdict &v, const evidence &ev, const gpu_health &health)
{
	if (v.cls != failure_class::gpu_hardware)
		return;
	if (v.first_event >= 0 && static_cast<size_t>(v.first_event) < ev.events.size()) {
		const event &e = ev.events[static_cast<size_t>(v.first_event)];
		v.gpu_bus = normalize_bus_id(e.capture("pci"));
		v.gpu_xid = e.xid;
		v.gpu_host = v.first_host;
		if (v.gpu_host.empty() && e.host >= 0)
			v.gpu_host = ev.host_name(e.host);
	}
	if (health.obs.empty())
		return;
	int agree = 0, contradict = 0;
	auto add = [&](const gpu_observation &o, bool agrees, const std::string &what) {
		v.corroboration.push_back({o.source, agrees, label(o) + ": " + what + " on " + where(o)});
		(agrees ? agree : contradict)++;
	};
	// Files that name no bus id (dcgmi): one word per file and counter, on
	// whether any of its GPUs shows a fault.
	struct per_file {
		const gpu_observation *fault = nullptr;
		const gpu_observation *clean = nullptr;
		size_t gpus = 0;
	};
	std::map<std::pair<std::string, int>, per_file> by_file;
	size_t relevant = 0;
	for (const gpu_observation &o : health.obs) {
		if (!o.host.empty() && !v.gpu_host.empty() && o.host != v.gpu_host)
			continue;
		if (!o.bus_id.empty() && !v.gpu_bus.empty()) {
			if (o.bus_id != v.gpu_bus)
				continue;
			relevant++;
			if (o.counter == gpu_counter::xid) {
				if (o.value == v.gpu_xid)
					add(o, true, "Xid " + count_str(o.value));
				else if (o.value > 0)
					add(o, true, "Xid " + count_str(o.value) + " (the kernel log's was " + std::to_string(v.gpu_xid) + ")");
				else
					add(o, false, "no Xid (DCGM_FI_DEV_XID_ERRORS 0)");
			} else if (o.value > 0) {
				add(o, true, std::string(gpu_counter_name(o.counter)) + " " + count_str(o.value));
			}
			continue;
		}
		relevant++;
		per_file &f = by_file[{o.file, static_cast<int>(o.counter)}];
		f.gpus++;
		if (o.value > 0 && !f.fault)
			f.fault = &o;
		else if (o.value <= 0 && !f.clean)
			f.clean = &o;
	}
	for (const auto &kv : by_file) {
		const per_file &f = kv.second;
		gpu_counter c = static_cast<gpu_counter>(kv.first.second);
		if (f.fault) {
			std::string what = c == gpu_counter::diag_result ? "diagnostic " + f.fault->detail + " failed"
					   : (f.fault->detail.empty() ? gpu_counter_name(c) : f.fault->detail) + std::string(" ") +
						     count_str(f.fault->value);
			add(*f.fault, true, what);
		} else if (f.clean && (c == gpu_counter::xid || c == gpu_counter::diag_result)) {
			// Only an Xid count or a diagnostic can deny a fault; a zero ECC
			// count says nothing about a GPU that fell off the bus.
			std::string what = c == gpu_counter::diag_result ? "diagnostics passed" : "no critical Xid";
			gpu_observation o = *f.clean;
			o.bus_id.clear();
			std::string detail = label(o) + ": " + what + " on any of " + std::to_string(f.gpus) +
					     " GPU" + (f.gpus == 1 ? "" : "s") + (o.host.empty() ? "" : " on " + o.host) +
					     " (" + o.tool + ", " + o.file + ")";
			v.corroboration.push_back({o.source, false, detail});
			contradict++;
		}
	}
	if (relevant == 0)
		v.notes.push_back("GPU health data (DCGM, nvidia-smi) said nothing about GPU " +
				  (v.gpu_bus.empty() ? std::string("?") : v.gpu_bus) +
				  (v.gpu_host.empty() ? "" : " on " + v.gpu_host));
	if (agree && !contradict)
		step(v.confidence, +1);
	else if (contradict && !agree)
		step(v.confidence, -1);
}

} // namespace diag
