// What the flight-recorder fuzzers check of every input they get through:
// the analysis of the dumps (and of the unreadable ones) renders, as JSON
// that always serializes and as text.
#pragma once

#include "fr/fr_analysis.hh"

#include <jansson.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

inline void fr_report_must_render(const std::vector<diag::fr_dump> &dumps,
				  const std::vector<diag::fr_unreadable> &bad)
{
	diag::fr_report rep = diag::fr_analyze(dumps, bad);
	json_t *j = diag::fr_report_to_json(rep);
	char *txt = json_dumps(j, JSON_COMPACT);
	if (!txt) {
		fprintf(stderr, "flight-recorder report does not serialize\n");
		abort();
	}
	free(txt);
	json_decref(j);
	(void)diag::fr_report_text(rep);
}
