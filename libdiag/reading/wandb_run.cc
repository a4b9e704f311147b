#include "reading/wandb_run.hh"

#include <jansson.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace diag {

namespace {

// A control character no metric name or logged string starts with; it is
// written escaped, as JSON wants.
constexpr const char *nonfinite_mark = "\x01" "denpex-nonfinite:";
constexpr const char *nonfinite_mark_json = "\\u0001" "denpex-nonfinite:";
constexpr int max_summary_depth = 4;
constexpr size_t max_named_metrics = 4;

bool all_of(std::string_view s, int (*pred)(int))
{
	if (s.empty())
		return false;
	for (char c : s)
		if (!pred(static_cast<unsigned char>(c)))
			return false;
	return true;
}

// "run-20260301_101010-1a2b3c" / "offline-run-...": the run id.
bool run_dir_name(std::string_view name, std::string &id, bool &offline)
{
	offline = false;
	if (name.substr(0, 8) == "offline-") {
		offline = true;
		name.remove_prefix(8);
	}
	if (name.substr(0, 4) != "run-" || name.size() < 4 + 15 + 2)
		return false;
	std::string_view date = name.substr(4, 8), time = name.substr(13, 6);
	if (!all_of(date, isdigit) || name[12] != '_' || !all_of(time, isdigit) || name[19] != '-')
		return false;
	std::string_view rid = name.substr(20);
	if (!all_of(rid, isalnum) || rid.size() > 64)
		return false;
	id = std::string(rid);
	return true;
}

// Python's json module writes NaN, Infinity and -Infinity bare, which no
// JSON parser (jansson included) accepts. Outside strings they become
// marked strings, so jansson reads the file and the reader still knows
// which values were not finite.
std::string quote_nonfinite(std::string_view text)
{
	std::string out;
	out.reserve(text.size() + 64);
	bool in_string = false, escaped = false;
	for (size_t i = 0; i < text.size(); i++) {
		char c = text[i];
		if (in_string) {
			out.push_back(c);
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == '"') {
			in_string = true;
			out.push_back(c);
			continue;
		}
		static const char *words[] = {"-Infinity", "Infinity", "NaN"};
		bool done = false;
		for (const char *w : words) {
			std::string_view ws(w);
			if (text.substr(i, ws.size()) == ws) {
				out += '"';
				out += nonfinite_mark_json;
				out += ws;
				out += '"';
				i += ws.size() - 1;
				done = true;
				break;
			}
		}
		if (!done)
			out.push_back(c);
	}
	return out;
}

// The path of the source an event came from; empty for synthetic events
// (sacct's, the engine's), which have none.
std::string event_path(const evidence &ev, const event &e)
{
	return e.file < ev.sources().size() ? ev.sources()[e.file].path : std::string();
}

bool is_nonfinite(json_t *v, std::string &what)
{
	if (!json_is_string(v))
		return false;
	std::string s = json_string_value(v);
	std::string mark = nonfinite_mark;
	if (s.compare(0, mark.size(), mark) != 0)
		return false;
	what = s.substr(mark.size());
	return true;
}

void find_nonfinite(json_t *obj, const std::string &prefix, int depth, std::vector<std::pair<std::string, std::string>> &out)
{
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v)
	{
		std::string name = prefix.empty() ? key : prefix + "/" + key;
		std::string what;
		if (is_nonfinite(v, what))
			out.emplace_back(name, what);
		else if (json_is_object(v) && depth < max_summary_depth && key[0] != '_')
			find_nonfinite(v, name, depth + 1, out);
	}
}

std::string source_dir(const std::string &path)
{
	size_t slash = path.rfind('/');
	return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

bool wandb_run_from_path(const std::string &path, std::string &run_dir, std::string &run_id, bool &offline)
{
	size_t start = 0;
	while (start < path.size()) {
		size_t slash = path.find('/', start);
		size_t end = slash == std::string::npos ? path.size() : slash;
		if (run_dir_name(std::string_view(path).substr(start, end - start), run_id, offline)) {
			run_dir = path.substr(0, end);
			return true;
		}
		if (slash == std::string::npos)
			break;
		start = slash + 1;
	}
	return false;
}

bool wandb_walk_skips(const std::string &path)
{
	std::string dir, id;
	bool offline;
	if (!wandb_run_from_path(path, dir, id, offline) || path.size() <= dir.size() + 1)
		return false;
	std::string rel = path.substr(dir.size() + 1);
	static const char *kept[] = {"files", "files/output.log", "files/wandb-metadata.json", "files/wandb-summary.json", "logs"};
	for (const char *k : kept)
		if (rel == k)
			return false;
	return rel.compare(0, 5, "logs/") != 0;
}

bool read_wandb_json(std::string_view text, uint32_t file, evidence &ev)
{
	std::string quoted = quote_nonfinite(text);
	json_error_t err;
	json_t *root = json_loadb(quoted.data(), quoted.size(), 0, &err);
	if (!root)
		return false;
	if (!json_is_object(root)) {
		json_decref(root);
		return false;
	}
	const std::string &path = ev.source(file).path;
	bool ok = false;
	json_t *started = json_object_get(root, "startedAt");
	json_t *heartbeat = json_object_get(root, "heartbeatAt");
	if ((json_is_string(started) || json_is_string(heartbeat)) &&
	    (json_object_get(root, "program") || json_object_get(root, "python") || json_object_get(root, "os"))) {
		// wandb-metadata.json: the machine the run ran on.
		wandb_run_dir d;
		std::string id;
		bool offline;
		if (!wandb_run_from_path(path, d.dir, id, offline))
			d.dir = source_dir(source_dir(path)); // files/.. is the run
		json_t *host = json_object_get(root, "host");
		if (json_is_string(host))
			d.host = json_string_value(host);
		ev.links.wandb_dirs.push_back(d);
		ok = true;
	} else if (json_object_get(root, "_step") || json_object_get(root, "_runtime") || json_object_get(root, "_wandb") ||
		   json_object_get(root, "_timestamp")) {
		// wandb-summary.json: the last value of every metric. A non-finite
		// one says the run went to NaN/Inf by its last logged step.
		ok = true;
		std::vector<std::pair<std::string, std::string>> bad;
		find_nonfinite(root, "", 0, bad);
		if (!bad.empty()) {
			event e;
			e.rule_id = "wandb.summary_nonfinite";
			e.cls = failure_class::nan_inf;
			e.role = event_role::initiating;
			e.weight = 60;
			std::string list;
			for (size_t i = 0; i < bad.size() && i < max_named_metrics; i++)
				list += (i ? ", " : "") + bad[i].first + " = " + bad[i].second;
			if (bad.size() > max_named_metrics)
				list += ", ...";
			json_t *step = json_object_get(root, "_step");
			e.text = "W&B summary: " + list;
			if (json_is_integer(step)) {
				e.text += " at step " + std::to_string(json_integer_value(step));
				e.captures.emplace_back("step", std::to_string(json_integer_value(step)));
			}
			e.captures.emplace_back("metric", bad[0].first);
			e.captures.emplace_back("value", bad[0].second);
			json_t *ts = json_object_get(root, "_timestamp");
			if (json_is_number(ts) && json_number_value(ts) > 0) {
				e.ts.kind = ts_kind::absolute;
				e.ts.epoch_us = static_cast<int64_t>(json_number_value(ts) * 1e6);
			}
			e.file = file;
			e.line = 1;
			e.host = ev.source(file).host_hint;
			ev.add(std::move(e));
		}
	}
	json_decref(root);
	return ok;
}

void settle_wandb(evidence &ev)
{
	// The machine from wandb-metadata.json for the lines of the run's own
	// process that name none.
	for (const auto &d : ev.links.wandb_dirs) {
		if (d.host.empty() || d.dir.empty())
			continue;
		int h = ev.intern_host(d.host);
		std::string prefix = d.dir + "/";
		for (auto &e : ev.events)
			// A line that names its rank may be another process's.
			if (e.host < 0 && e.rank < 0 && event_path(ev, e).compare(0, prefix.size(), prefix) == 0)
				e.host = h;
	}
}

void link_wandb(evidence &ev, long first_event)
{
	// Which run: the one whose files hold the first fault, else the latest
	// (run directory names start with their start time).
	std::string run_dir, run_id;
	bool offline = false;
	if (first_event >= 0 && static_cast<size_t>(first_event) < ev.events.size())
		wandb_run_from_path(event_path(ev, ev.events[static_cast<size_t>(first_event)]), run_dir, run_id, offline);
	if (run_id.empty()) {
		std::string best_name;
		for (const auto &s : ev.sources()) {
			std::string dir, id;
			bool off;
			if (!wandb_run_from_path(s.path, dir, id, off))
				continue;
			size_t slash = dir.rfind('/');
			std::string name = dir.substr(slash == std::string::npos ? 0 : slash + 1);
			if (off)
				name = name.substr(8);
			if (name > best_name) {
				best_name = name;
				run_dir = dir;
				run_id = id;
				offline = off;
			}
		}
	}
	wandb_link &w = ev.links.wandb;
	std::string base; // the server, when only it is known
	for (const auto &e : ev.events) {
		// Lines of another run directory describe another run.
		std::string dir, id;
		bool off;
		if (!run_id.empty() && wandb_run_from_path(event_path(ev, e), dir, id, off) && id != run_id)
			continue;
		std::string named = e.capture("wandb_run");
		if (!run_id.empty() && !named.empty() && named != run_id)
			continue;
		std::string v;
		if (w.entity.empty() && !(v = e.capture("wandb_entity")).empty())
			w.entity = v;
		if (w.project.empty() && !(v = e.capture("wandb_project")).empty())
			w.project = v;
		if (w.run_id.empty() && !named.empty())
			w.run_id = named;
		if (w.url.empty() && !(v = e.capture("wandb_url")).empty())
			w.url = v;
		if (base.empty() && !(v = e.capture("wandb_base")).empty())
			base = v;
		if (base.empty() && !(v = e.capture("wandb_base_api")).empty())
			base = v;
		if (!e.capture("wandb_offline").empty())
			w.offline = true;
	}
	if (!run_id.empty()) {
		w.run_id = run_id;
		w.offline = w.offline || offline;
	}
	if (w.url.empty() && !base.empty() && !w.entity.empty() && !w.project.empty() && !w.run_id.empty()) {
		// The API server (api.wandb.ai) is not where runs are shown (wandb.ai);
		// a self-hosted server serves both.
		std::string b = base;
		while (!b.empty() && b.back() == '/')
			b.pop_back();
		size_t scheme = b.find("://");
		if (scheme != std::string::npos && b.compare(scheme + 3, 4, "api.") == 0)
			b.erase(scheme + 3, 4);
		w.url = b + "/" + w.entity + "/" + w.project + "/runs/" + w.run_id;
	}
}

} // namespace diag
