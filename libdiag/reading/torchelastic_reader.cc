#include "reading/torchelastic_reader.hh"

#include "reading/text_log_reader.hh"

#include <jansson.h>

#include <cstdlib>
#include <string>

namespace diag {

namespace {

// ".../attempt_0/3/error.json": the directory is the local rank.
int local_rank_from_path(const std::string &path)
{
	size_t slash = path.rfind('/');
	if (slash == std::string::npos || slash == 0)
		return -1;
	size_t prev = path.rfind('/', slash - 1);
	std::string dir = path.substr(prev == std::string::npos ? 0 : prev + 1,
				      slash - (prev == std::string::npos ? 0 : prev + 1));
	if (dir.empty() || dir.size() > 5 || dir.find_first_not_of("0123456789") != std::string::npos)
		return -1;
	return atoi(dir.c_str());
}

} // namespace

bool read_torchelastic(std::string_view text, uint32_t file, rule_set &rules, evidence &ev)
{
	json_error_t jerr;
	json_t *root = json_loadb(text.data(), text.size(), 0, &jerr);
	if (!root)
		return false;
	json_t *msg = json_object_get(root, "message");
	bool ok = false;
	if (json_is_object(msg)) {
		json_t *m = json_object_get(msg, "message");
		json_t *extra = json_object_get(msg, "extraInfo");
		json_t *tsj = json_is_object(extra) ? json_object_get(extra, "timestamp") : nullptr;
		json_t *code = json_object_get(msg, "errorCode");
		std::string message = json_is_string(m) ? json_string_value(m) : "";
		// The exception line is the message's last non-empty line.
		std::string line = message;
		while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
			line.pop_back();
		size_t nl = line.rfind('\n');
		if (nl != std::string::npos)
			line = line.substr(nl + 1);
		event e;
		capture_list caps;
		const rule *r = rules.match(line, src_log, caps);
		if (r && r->kind != rule_kind::progress) {
			fill_event_from_match(e, *r, caps, line);
		} else {
			e.rule_id = "torchelastic.error_file";
			e.cls = failure_class::python_exception;
			e.role = event_role::initiating;
			e.kind = rule_kind::exception;
			e.weight = 55;
			e.text = line.substr(0, 600);
		}
		if (json_is_integer(code))
			e.exitcode = static_cast<int>(json_integer_value(code));
		if (tsj) {
			double secs = json_is_string(tsj) ? atof(json_string_value(tsj))
				      : json_is_number(tsj) ? json_number_value(tsj) : 0;
			// Beyond int64 microseconds is no time (and converting it would be undefined).
			if (secs > 0 && secs < 9.2e12) {
				e.ts.kind = ts_kind::absolute;
				e.ts.epoch_us = static_cast<int64_t>(secs * 1e6);
			}
		}
		e.file = file;
		e.line = 1;
		e.local_rank = local_rank_from_path(ev.source(file).path);
		e.host = ev.source(file).host_hint;
		ev.add(std::move(e));
		ok = true;
	}
	json_decref(root);
	return ok;
}

} // namespace diag
