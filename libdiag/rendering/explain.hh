// From a decision to the verdict's words: who went first and what it did
// (wording.cc), what to do next (next_action.cc), which lines show it
// (evidence_pick.cc). Nothing here changes what was decided.
#pragma once

#include "aligning/clock.hh"
#include "deciding/decision.hh"
#include "deciding/knowledge.hh"
#include "model/evidence.hh"
#include "rendering/verdict.hh"

namespace diag {

struct hang_structure;

struct explain_input {
	const evidence &ev;
	const knowledge &kn;
	const clock_result &clk;
	const hang_structure &fr;
	const decision &d;
};

// first.*, victims, cause, summary, suspects, nan, refused, notes.
void word_verdict(const explain_input &x, verdict &v);
// next_action; returns the Xid 154 line that named the action, if any.
const event *choose_next_action(const explain_input &x, verdict &v);
// evidence lines (the first fault, ties, support, structure, victims) and clock.
void pick_evidence(const explain_input &x, const event *recovery, verdict &v);

std::string iso_time(int64_t us);

} // namespace diag
