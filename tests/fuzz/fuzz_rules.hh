// The signatures of the source tree's conf/, loaded once per fuzz process:
// the readers that match lines need them, and loading is not what those
// targets fuzz.
#pragma once

#include "matching/signature.hh"

#include <cstdio>
#include <cstdlib>
#include <string>

inline diag::rule_set &fuzz_rules()
{
	static diag::rule_set *rules = [] {
		auto *r = new diag::rule_set;
		std::string err;
		if (!r->load_dir(std::string(TEST_CONFDIR) + "/signatures", err)) {
			fprintf(stderr, "fuzz: signatures: %s\n", err.c_str());
			abort();
		}
		r->finalize();
		return r;
	}();
	return *rules;
}
