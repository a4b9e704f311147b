// The short verdict in the job's Comment (or AdminComment): sanitised,
// capped, appended after what is already there and never replacing it.
#pragma once

#include <optional>
#include <string>

namespace denpex::epilog {

// Separator between the user's (or another tool's) text and ours. Not '|':
// that would split `sacct -P` output.
inline constexpr const char *comment_separator = "; ";
// slurmdbd stores the field as TEXT; stay far below it and below what sacct
// users print.
inline constexpr size_t comment_field_max = 4000;

// Strips control characters (C0, DEL, C1, invalid UTF-8), turns '|' into '/',
// folds whitespace runs to one space and cuts to at most cap bytes on a UTF-8
// boundary.
std::string comment_sanitize(const std::string &s, size_t cap);

// libdiag's one-line verdict made fit for the field: sanitised, and when
// longer than cap the cause is shortened ("...") so that the class, rank,
// host and the "-> action" at the end survive.
std::string comment_verdict(const std::string &line, size_t cap);

// The new field value, or nullopt when the verdict (or any verdict of ours,
// "denpex: ..." at the start or after "; ") is already present, or when
// appending would exceed comment_field_max: the existing text wins.
std::optional<std::string> comment_compose(const std::string &existing, const std::string &verdict);

} // namespace denpex::epilog
