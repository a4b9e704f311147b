#include "rendering/verdict.hh"

#include "rendering/markup_escape.hh"
#include "rendering/utf8.hh"
#include "rendering/links.hh"

#include <jansson.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace diag {

namespace {

json_t *str_or_null(const std::string &s)
{
	return s.empty() ? json_null() : json_stringn(s.data(), s.size());
}

json_t *jstr(const std::string &s)
{
	std::string v = valid_utf8(s);
	return json_stringn(v.data(), v.size());
}

std::string rank_host(int rank, const std::string &host)
{
	std::string s;
	if (rank >= 0)
		s = "rank " + std::to_string(rank);
	if (!host.empty())
		s += (s.empty() ? "" : " on ") + host;
	return s;
}

} // namespace

std::string verdict_to_json(const verdict &v, bool pretty)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_integer(1));
	json_object_set_new(root, "job_id", str_or_null(v.job_id));
	json_object_set_new(root, "class", json_string(std::string(class_name(v.cls)).c_str()));
	json_object_set_new(root, "summary", jstr(v.summary));
	json_t *first = json_object();
	json_object_set_new(first, "rank", v.has_first && v.first_rank >= 0 ? json_integer(v.first_rank) : json_null());
	json_object_set_new(first, "host", v.has_first && !v.first_host.empty() ? jstr(v.first_host) : json_null());
	json_object_set_new(first, "time", v.first_time.empty() ? json_null() : jstr(v.first_time));
	json_object_set_new(first, "source", v.first_source.empty() ? json_null() : jstr(v.first_source));
	json_object_set_new(first, "line", v.first_line.empty() ? json_null() : jstr(v.first_line));
	if (v.has_first && !v.first_host.empty() && !v.first_host_aliases.empty()) {
		json_t *aliases = json_array();
		for (const auto &a : v.first_host_aliases)
			json_array_append_new(aliases, jstr(a));
		json_object_set_new(first, "aliases", aliases);
	}
	json_object_set_new(root, "first", first);
	json_t *victims = json_object();
	json_object_set_new(victims, "count", json_integer(static_cast<json_int_t>(v.victims.size())));
	json_t *vr = json_array();
	for (int r : v.victims)
		json_array_append_new(vr, json_integer(r));
	json_object_set_new(victims, "ranks", vr);
	json_object_set_new(root, "victims", victims);
	json_t *na = json_object();
	json_object_set_new(na, "kind", json_string(std::string(action_name(v.action)).c_str()));
	json_object_set_new(na, "text", jstr(v.action_text));
	json_object_set_new(root, "next_action", na);
	json_object_set_new(root, "confidence", json_string(v.confidence.c_str()));
	json_t *evs = json_array();
	for (const auto &e : v.evidence) {
		json_t *o = json_object();
		json_object_set_new(o, "rank", e.rank >= 0 ? json_integer(e.rank) : json_null());
		json_object_set_new(o, "host", e.host.empty() ? json_null() : jstr(e.host));
		json_object_set_new(o, "time", e.time.empty() ? json_null() : jstr(e.time));
		json_object_set_new(o, "role", json_string(std::string(role_name(e.role)).c_str()));
		json_object_set_new(o, "rule", jstr(e.rule));
		json_object_set_new(o, "source", jstr(e.source));
		json_object_set_new(o, "line", jstr(e.line));
		json_array_append_new(evs, o);
	}
	json_object_set_new(root, "evidence", evs);
	json_t *clk = json_object();
	for (const auto &c : v.clock) {
		json_t *o = json_object();
		json_object_set_new(o, "offset_s", json_real(std::round(c.second.offset_s * 1000) / 1000));
		json_object_set_new(o, "uncertainty_s", json_real(std::round(c.second.uncertainty_s * 1000) / 1000));
		if (!c.second.basis.empty())
			json_object_set_new(o, "basis", jstr(c.second.basis));
		json_object_set_new(clk, valid_utf8(c.first).c_str(), o);
	}
	json_object_set_new(root, "clock", clk);
	if (!v.gpu_bus.empty()) {
		json_t *g = json_object();
		json_object_set_new(g, "host", str_or_null(v.gpu_host));
		json_object_set_new(g, "bus_id", jstr(v.gpu_bus));
		json_object_set_new(g, "xid", v.gpu_xid >= 0 ? json_integer(v.gpu_xid) : json_null());
		json_object_set_new(root, "gpu", g);
	}
	if (!v.corroboration.empty()) {
		json_t *arr = json_array();
		for (const auto &c : v.corroboration) {
			json_t *o = json_object();
			json_object_set_new(o, "source", jstr(c.source));
			json_object_set_new(o, "agrees", json_boolean(c.agrees));
			json_object_set_new(o, "detail", jstr(c.detail));
			json_array_append_new(arr, o);
		}
		json_object_set_new(root, "corroboration", arr);
	}
	if (!v.suspects.empty()) {
		json_t *sa = json_array();
		for (const auto &s : v.suspects) {
			json_t *o = json_object();
			json_object_set_new(o, "rank", s.rank >= 0 ? json_integer(s.rank) : json_null());
			json_object_set_new(o, "host", str_or_null(valid_utf8(s.host)));
			json_object_set_new(o, "why", jstr(s.why));
			json_array_append_new(sa, o);
		}
		json_object_set_new(root, "suspects", sa);
	}
	if (v.has_nan) {
		json_t *o = json_object();
		json_object_set_new(o, "cause", jstr(v.nan_cause.empty() ? "unknown" : v.nan_cause));
		json_object_set_new(o, "step", v.nan_step >= 0 ? json_integer(v.nan_step) : json_null());
		json_object_set_new(root, "nan", o);
	}
	if (json_t *links = links_to_json(v.link_wandb, v.link_ray))
		json_object_set_new(root, "links", links);
	if (!v.refused.empty()) {
		json_t *ra = json_array();
		for (const auto &r : v.refused) {
			json_t *o = json_object();
			json_object_set_new(o, "file", jstr(r.file));
			json_object_set_new(o, "why", jstr(r.why));
			json_array_append_new(ra, o);
		}
		json_object_set_new(root, "refused", ra);
	}
	char *s = json_dumps(root, (pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	std::string out = s ? s : "{}";
	free(s);
	json_decref(root);
	return out;
}

std::string verdict_to_text(const verdict &v)
{
	std::string t;
	t += "denpex: " + std::string(class_name(v.cls)) + " (confidence " + v.confidence + ")";
	if (!v.job_id.empty())
		t += "  job " + v.job_id;
	t += "\n" + v.summary + "\n\n";
	if (v.has_first && (v.first_rank >= 0 || !v.first_host.empty())) {
		t += "first:   " + rank_host(v.first_rank, v.first_host);
		if (!v.first_host.empty() && !v.first_host_aliases.empty()) {
			t += " (also";
			for (size_t i = 0; i < v.first_host_aliases.size(); i++)
				t += (i ? ", " : " ") + v.first_host_aliases[i];
			t += ")";
		}
		if (!v.first_time.empty())
			t += " at " + v.first_time;
		t += "\n";
	} else {
		t += "first:   no single rank is singled out by the logs\n";
	}
	if (!v.first_line.empty())
		t += "         " + v.first_source + ": " + v.first_line + "\n";
	for (const auto &s : v.suspects)
		t += "suspect: " + rank_host(s.rank, s.host) + ": " + s.why + "\n";
	if (v.has_nan)
		t += "nan:     cause " + (v.nan_cause.empty() ? std::string("unknown") : v.nan_cause) +
		     (v.nan_step >= 0 ? ", step " + std::to_string(v.nan_step) : std::string()) + "\n";
	for (const auto &r : v.refused)
		t += "refused: " + r.file + ": " + r.why + "\n";
	t += "victims: " + std::to_string(v.victims.size()) + " rank" + (v.victims.size() == 1 ? "" : "s") + "\n";
	t += "action:  " + std::string(action_name(v.action)) + ": " + v.action_text + "\n";
	if (!v.corroboration.empty()) {
		t += "\ncorroboration:\n";
		for (const auto &c : v.corroboration)
			t += std::string("  ") + (c.agrees ? "[agrees] " : "[contradicts] ") + c.detail + "\n";
	}
	t += links_to_text(v.link_wandb, v.link_ray);
	if (!v.evidence.empty()) {
		t += "\nevidence:\n";
		for (const auto &e : v.evidence) {
			t += "  [" + std::string(role_name(e.role)) + "] ";
			std::string who = rank_host(e.rank, e.host);
			if (!who.empty())
				t += who + " ";
			if (!e.time.empty())
				t += e.time + " ";
			t += e.source + " (" + e.rule + ")\n      " + e.line + "\n";
		}
	}
	bool skewed = false;
	for (const auto &c : v.clock)
		if (c.second.offset_s != 0)
			skewed = true;
	if (skewed) {
		t += "\nclock offsets (host clock minus common clock):\n";
		for (const auto &c : v.clock) {
			char buf[96];
			snprintf(buf, sizeof(buf), "  %-20s %+9.3f s  ± %.3f s\n", c.first.c_str(), c.second.offset_s,
				 c.second.uncertainty_s);
			t += buf;
		}
	}
	for (const auto &n : v.notes)
		t += "note: " + n + "\n";
	return valid_utf8(t);
}

std::string verdict_to_comment(const verdict &v, size_t max_len)
{
	// Control characters and sacct -P's '|' separator stay out.
	auto clean = [](const std::string &in) {
		std::string out;
		for (char c : valid_utf8(in))
			out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c == '|' ? '/' : c;
		return out;
	};
	std::string head = "denpex: " + std::string(class_name(v.cls));
	if (v.has_first && v.first_rank >= 0)
		head += " rank " + std::to_string(v.first_rank);
	if (v.has_first && !v.first_host.empty())
		head += " on " + clean(v.first_host);
	head += ": ";
	std::string tail = " -> " + std::string(action_name(v.action));
	std::string cause = clean(v.cause.empty() ? v.summary : v.cause);
	// Readers of sacct see no report: a guess must say it is one.
	if (v.confidence == "low" && v.cls != failure_class::unknown)
		cause = "low confidence: " + cause;
	// The cause gives way first, so the action always survives the cap.
	size_t room = max_len > head.size() + tail.size() ? max_len - head.size() - tail.size() : 0;
	if (cause.size() > room) {
		size_t cut = room;
		while (cut > 0 && (static_cast<unsigned char>(cause[cut]) & 0xc0) == 0x80)
			cut--;
		cause.resize(cut);
	}
	std::string s = head + cause + tail;
	if (s.size() > max_len) {
		size_t cut = max_len;
		while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80)
			cut--;
		s.resize(cut);
	}
	return s;
}

} // namespace diag
