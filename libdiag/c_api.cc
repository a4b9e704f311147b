// The C boundary: the only place where C++ exceptions are caught and turned
// into status codes, so that the epilog (and any C caller) never sees one.
#include "denpex_diag.h"

#include "pipeline.hh"
#include "rendering/report_html.hh"
#include "rendering/timeline_svg.hh"
#include "rendering/metrics.hh"

#include <cstddef>
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

denpex_status diagnose(const denpex_source *sources, size_t nsources, const denpex_options *opts,
		       char **verdict_json, char **verdict_text, char **comment_line, char **warnings,
		       char **report_html) noexcept;

// The CLI's trust: every path is evidence.
std::vector<denpex_source> trusted(const char *const *paths, size_t npaths)
{
	std::vector<denpex_source> sources;
	for (size_t i = 0; paths && i < npaths; i++)
		sources.push_back({paths[i], DENPEX_SOURCE_TRUSTED});
	return sources;
}

} // namespace

extern "C" {

void denpex_options_init_sized(denpex_options *opts, size_t size)
{
	if (!opts || size < sizeof(size_t))
		return;
	denpex_options d;
	memset(&d, 0, sizeof(d));
	d.size = size < sizeof(d) ? size : sizeof(d);
	memcpy(opts, &d, d.size);
	// Zero what this library does not know of in a newer caller's struct.
	if (size > sizeof(d))
		memset(reinterpret_cast<char *>(opts) + sizeof(d), 0, size - sizeof(d));
}

denpex_status denpex_diagnose_paths(const char *const *paths, size_t npaths, const denpex_options *opts,
				    char **verdict_json, char **verdict_text, char **comment_line, char **warnings) noexcept
{
	return denpex_diagnose_paths_report(paths, npaths, opts, verdict_json, verdict_text, comment_line, warnings,
					    nullptr);
}

denpex_status denpex_diagnose_paths_report(const char *const *paths, size_t npaths, const denpex_options *opts,
					   char **verdict_json, char **verdict_text, char **comment_line, char **warnings,
					   char **report_html) noexcept
{
	try {
		if (!paths && npaths) {
			last_error = "no paths given";
			return DENPEX_ERR_ARGS;
		}
		std::vector<denpex_source> sources = trusted(paths, npaths);
		return diagnose(sources.data(), sources.size(), opts, verdict_json, verdict_text, comment_line,
				warnings, report_html);
	} catch (...) {
		last_error = "internal error";
	}
	return DENPEX_ERR_INTERNAL;
}

denpex_status denpex_diagnose_sources(const denpex_source *sources, size_t nsources, const denpex_options *opts,
				      char **verdict_json, char **verdict_text, char **comment_line,
				      char **warnings) noexcept
{
	return diagnose(sources, nsources, opts, verdict_json, verdict_text, comment_line, warnings, nullptr);
}

denpex_status denpex_diagnose_sources_report(const denpex_source *sources, size_t nsources,
					     const denpex_options *opts, char **verdict_json, char **verdict_text,
					     char **comment_line, char **warnings, char **report_html) noexcept
{
	return diagnose(sources, nsources, opts, verdict_json, verdict_text, comment_line, warnings, report_html);
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

namespace {

denpex_status diagnose(const denpex_source *sources, size_t npaths, const denpex_options *opts,
		       char **verdict_json, char **verdict_text, char **comment_line, char **warnings,
		       char **report_html) noexcept
{
	try {
		if ((!sources && npaths) || npaths == 0) {
			last_error = "no paths given";
			return DENPEX_ERR_ARGS;
		}
		diag::pipeline_options po;
		std::string warn_text;
		// The caller's struct up to its size, defaults beyond it.
		denpex_options o;
		memset(&o, 0, sizeof(o));
		if (opts) {
			if (opts->size < offsetof(denpex_options, conf_dir)) {
				last_error = "denpex_options not initialised (use denpex_options_init)";
				return DENPEX_ERR_ARGS;
			}
			memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
			opts = &o;
		}
		size_t comment_max = opts && opts->comment_max_bytes ? opts->comment_max_bytes : DENPEX_COMMENT_MAX_BYTES;
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
		std::vector<diag::analysis::path_source> paths;
		for (size_t i = 0; i < npaths; i++)
			if (sources[i].path)
				paths.push_back({sources[i].path, sources[i].provenance == DENPEX_SOURCE_JOB_OUTPUT});
		an.add_paths(paths);
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
			*comment_line = dup_string(diag::verdict_to_comment(v, comment_max));
		if (warnings)
			*warnings = dup_string(warn_text);
		if (report_html) {
			diag::page_parts pp;
			pp.v = &v;
			pp.svg = diag::timeline_svg(an.ev(), v);
			pp.json = diag::verdict_to_json(v, true);
			*report_html = dup_string(diag::page_html(pp));
		}
		return DENPEX_OK;
	} catch (const std::exception &e) {
		last_error = std::string("internal error: ") + e.what();
	} catch (...) {
		last_error = "internal error";
	}
	return DENPEX_ERR_INTERNAL;
}

} // namespace

extern "C" {

denpex_status denpex_metrics_record(const char *metrics_dir, const char *verdict_json, double epilog_seconds,
				    int epilog_error, double lock_timeout_s) noexcept
{
	try {
		if (!metrics_dir || !*metrics_dir) {
			last_error = "no metrics directory";
			return DENPEX_ERR_ARGS;
		}
		std::string err;
		if (!diag::metrics_record(metrics_dir, verdict_json ? verdict_json : "", epilog_seconds,
					  epilog_error != 0, lock_timeout_s, err)) {
			last_error = err;
			return DENPEX_ERR_INPUT;
		}
		return DENPEX_OK;
	} catch (const std::exception &e) {
		last_error = std::string("internal error: ") + e.what();
	} catch (...) {
		last_error = "internal error";
	}
	return DENPEX_ERR_INTERNAL;
}

} // extern "C"
