#include "rendering/report_html.hh"

#include "rendering/markup_escape.hh"

// Generated from page.css at build time (see libdiag/local.mk): the file
// stays plain CSS to edit, and the library needs nothing installed to
// write a report.
#include "libdiag/rendering/page_css.h"

#include "config.h"

namespace diag {

namespace {

std::string esc(std::string_view s) { return markup_escape(s); }

std::string rank_host(const verdict &v)
{
	std::string s;
	if (v.first_rank >= 0)
		s = "rank " + std::to_string(v.first_rank);
	if (!v.first_host.empty())
		s += (s.empty() ? "" : " on ") + v.first_host;
	return s;
}

std::string victims_text(const std::vector<int> &r)
{
	if (r.empty())
		return "none";
	std::string s = std::to_string(r.size()) + " rank" + (r.size() == 1 ? "" : "s") + ": ";
	size_t i = 0, runs = 0;
	while (i < r.size()) {
		size_t j = i;
		while (j + 1 < r.size() && r[j + 1] == r[j] + 1)
			j++;
		if (runs++ == 24) {
			s += ", …";
			break;
		}
		s += (runs > 1 ? ", " : "") + std::to_string(r[i]) + (j > i ? "–" + std::to_string(r[j]) : "");
		i = j + 1;
	}
	return s;
}

void verdict_view(std::string &o, const page_parts &p)
{
	const verdict &v = *p.v;
	std::string cls(class_name(v.cls));
	o += "<section id=\"verdict\">\n<div class=\"headline\"><span class=\"class" + std::string(v.cls == failure_class::unknown ? " unknown" : "") +
	     "\" id=\"verdict-class\">" + esc(cls) + "</span><span class=\"confidence\">confidence " + esc(v.confidence) + "</span>";
	if (!v.job_id.empty())
		o += "<span class=\"confidence\">job " + esc(v.job_id) + "</span>";
	o += "</div>\n<p class=\"summary\" id=\"verdict-summary\">" + esc(v.summary) + "</p>\n<dl class=\"facts\">\n";
	o += "<dt>First</dt><dd id=\"verdict-first\">";
	if (v.has_first && (v.first_rank >= 0 || !v.first_host.empty()))
		o += "<strong>" + esc(rank_host(v)) + "</strong>" + (v.first_time.empty() ? "" : " at " + esc(v.first_time));
	else
		o += "no single rank is singled out by the logs";
	o += "</dd>\n";
	if (!v.first_line.empty())
		o += "<dt>Initiating line</dt><dd><code id=\"verdict-source\">" + esc(v.first_source) + "</code><span class=\"logline\" id=\"verdict-line\">" +
		     esc(v.first_line) + "</span></dd>\n";
	o += "<dt>Next action</dt><dd id=\"verdict-action\"><strong>" + esc(action_name(v.action)) + "</strong>: " + esc(v.action_text) + "</dd>\n";
	o += "<dt>Victims</dt><dd id=\"verdict-victims\">" + esc(victims_text(v.victims)) + "</dd>\n";
	std::string comment = verdict_to_comment(v);
	o += "<dt>Comment</dt><dd class=\"comment\"><input id=\"verdict-comment\" readonly value=\"" + esc(comment) + "\">";
	if (p.console)
		o += "<button type=\"button\" class=\"small\" id=\"copy-comment\">Copy</button>";
	o += "</dd>\n</dl>\n";
	if (!v.notes.empty() || !p.warnings.empty()) {
		o += "<ul class=\"notes\">";
		for (const auto &n : v.notes)
			o += "<li>" + esc(n) + "</li>";
		for (const auto &w : p.warnings)
			o += "<li>" + esc(w) + "</li>";
		o += "</ul>\n";
	}
	o += "</section>\n";
	if (!p.svg.empty())
		o += "<section><h2>Timeline</h2><div class=\"timeline\" id=\"timeline\">\n" + p.svg + "</div></section>\n";
	if (!v.evidence.empty()) {
		o += "<section><h2>Evidence</h2><table class=\"evidence\" id=\"evidence\"><tr><th>role</th><th>rank</th><th>host</th><th>time</th><th>source</th><th>rule</th><th>line</th></tr>\n";
		for (const auto &e : v.evidence) {
			std::string role(role_name(e.role));
			o += "<tr><td class=\"role-" + esc(role) + "\">" + esc(role) + "</td><td>" + (e.rank >= 0 ? std::to_string(e.rank) : "") + "</td><td>" +
			     esc(e.host) + "</td><td>" + esc(e.time) + "</td><td><code>" + esc(e.source) + "</code></td><td>" + esc(e.rule) +
			     "</td><td class=\"line\">" + esc(e.line) + "</td></tr>\n";
		}
		o += "</table></section>\n";
	}
	if (!p.json.empty())
		o += "<section><details><summary>Verdict JSON (schema 1)</summary><pre class=\"json\" id=\"verdict-json\">" + esc(p.json) +
		     "</pre></details></section>\n";
}

} // namespace

const std::string &page_css()
{
	static const std::string css(reinterpret_cast<const char *>(page_css_bytes), sizeof(page_css_bytes) - 1);
	return css;
}

std::string page_html(const page_parts &p)
{
	std::string o;
	o.reserve(p.svg.size() + p.json.size() * 2 + 32 * 1024);
	o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
	if (!p.console) {
		// A file has no headers: the policy travels in the page.
		o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n";
	}
	o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
	o += p.v ? "denpex: " + esc(class_name(p.v->cls)) + (p.v->job_id.empty() ? "" : " · job " + esc(p.v->job_id)) : "denpex console";
	o += "</title>\n";
	if (p.console)
		o += "<link rel=\"stylesheet\" href=\"/page.css\">\n<script src=\"/console.js\" defer></script>\n";
	else
		o += "<style>\n" + page_css() + "</style>\n";
	o += "</head>\n<body>\n<header><h1>denpex</h1><span>why a distributed training run died, and which rank went first</span></header>\n<main>\n";
	if (p.console) {
		o += "<section id=\"input\"><form id=\"diagnose-form\" method=\"post\" action=\"/diagnose\" enctype=\"multipart/form-data\">\n"
		     "<h2>Paste a failed run's log, or add its files</h2>\n"
		     "<textarea name=\"text\" id=\"paste\" spellcheck=\"false\" placeholder=\"Paste the job output here (srun, torchrun, NCCL, dmesg, sacct ...)\"></textarea>\n"
		     "<div class=\"drop\" id=\"drop\">Drop files here (job output, kernel logs, NCCL debug files, sacct output), or choose them:"
		     "<input type=\"file\" name=\"files\" id=\"files\" multiple></div>\n"
		     "<div class=\"controls\"><button type=\"submit\" id=\"diagnose\">Diagnose</button>"
		     "<span class=\"hint\">Diagnosed in memory on this server; nothing is stored or logged.</span></div>\n"
		     "</form></section>\n";
	}
	if (!p.error.empty())
		o += "<section class=\"error\" id=\"error\"><h2>Not diagnosed</h2><p>" + esc(p.error) + "</p></section>\n";
	if (p.v)
		verdict_view(o, p);
	o += "<p class=\"hint\">denpex " PACKAGE_VERSION "</p>\n</main>\n</body>\n</html>\n";
	return o;
}

} // namespace diag
