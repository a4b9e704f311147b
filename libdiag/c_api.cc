// The C boundary: the only place where C++ exceptions are caught and turned
// into status codes, so that the epilog (and any C caller) never sees one.
#include "denpex_diag.h"

#include "pipeline.hh"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

thread_local std::string last_error;

char *dup_string(const std::string &s)
{
	char *p = static_cast<char *>(malloc(s.size() + 1));
	if (p)
		memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

} // namespace

extern "C" {

void denpex_options_init(denpex_options *opts)
{
	if (!opts)
		return;
	memset(opts, 0, sizeof(*opts));
}

denpex_status denpex_diagnose_paths(const char *const *paths, size_t npaths, const denpex_options *opts,
				    char **verdict_json, char **verdict_text, char **comment_line, char **warnings) noexcept
{
	try {
		if ((!paths && npaths) || npaths == 0) {
			last_error = "no paths given";
			return DENPEX_ERR_ARGS;
		}
		std::vector<denpex_source> sources;
		for (size_t i = 0; i < npaths; i++)
			sources.push_back({paths[i], DENPEX_SOURCE_TRUSTED});
		return denpex_diagnose_sources(sources.data(), sources.size(), opts, verdict_json, verdict_text,
					       comment_line, warnings);
	} catch (...) {
		last_error = "internal error";
	}
	return DENPEX_ERR_INTERNAL;
}

denpex_status denpex_diagnose_sources(const denpex_source *sources, size_t npaths, const denpex_options *opts,
				      char **verdict_json, char **verdict_text, char **comment_line,
				      char **warnings) noexcept
{
	try {
		if ((!sources && npaths) || npaths == 0) {
			last_error = "no paths given";
			return DENPEX_ERR_ARGS;
		}
		diag::pipeline_options po;
		std::string warn_text;
		if (opts) {
			if (opts->conf_dir)
				po.conf_dir = opts->conf_dir;
			po.max_bytes_per_file = opts->max_bytes_per_file;
			if (opts->job_id)
				po.job_id = opts->job_id;
			po.default_tz_offset_s = opts->default_tz_offset_s;
			po.no_follow = opts->no_follow != 0;
		}
		po.warn = [&](const std::string &w) { warn_text += w + "\n"; };
		diag::analysis an;
		std::string err;
		if (!an.init(po, err)) {
			last_error = err;
			return DENPEX_ERR_CONFIG;
		}
		for (size_t i = 0; i < npaths; i++)
			if (sources[i].path)
				an.add_path(sources[i].path, sources[i].provenance == DENPEX_SOURCE_JOB_OUTPUT);
		if (an.usable_sources() == 0) {
			last_error = "nothing usable in the given paths";
			if (warnings)
				*warnings = dup_string(warn_text);
			return DENPEX_ERR_INPUT;
		}
		diag::verdict v = an.run();
		if (verdict_json)
			*verdict_json = dup_string(diag::verdict_to_json(v, true));
		if (verdict_text)
			*verdict_text = dup_string(diag::verdict_to_text(v));
		if (comment_line)
			*comment_line = dup_string(diag::verdict_to_comment(v));
		if (warnings)
			*warnings = dup_string(warn_text);
		return DENPEX_OK;
	} catch (const std::exception &e) {
		last_error = std::string("internal error: ") + e.what();
	} catch (...) {
		last_error = "internal error";
	}
	return DENPEX_ERR_INTERNAL;
}

void denpex_free(void *p)
{
	free(p);
}

const char *denpex_last_error(void)
{
	return last_error.c_str();
}

} // extern "C"
