// The verdict as one HTML page: the console's answer and the admin's
// report.html are this page; the console adds its form and script.
#pragma once

#include "rendering/verdict.hh"

#include <string>
#include <vector>

namespace diag {

struct page_parts {
	const verdict *v = nullptr; // null: no verdict (the empty console)
	std::string svg;            // the timeline picture (timeline_svg)
	std::string json;           // the verdict JSON, shown as it is sent
	std::string error;          // shown instead of a verdict (a refused request)
	std::vector<std::string> warnings; // skipped inputs
	bool console = false;       // the form, /page.css and /console.js
};

// The stylesheet, the same bytes the console serves at /page.css.
const std::string &page_css();

// The whole page. console = false: standalone (styles inline, no script,
// a meta Content-Security-Policy that forbids everything else).
std::string page_html(const page_parts &p);

} // namespace diag
