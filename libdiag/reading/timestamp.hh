// Timestamps found in log lines, and their resolution to UTC.
//
// Scanning and resolving are separate steps: a line says what it says (a
// civil time without a year, seconds since boot, ...) and only the job's
// context (its start time, the node's zone and boot time) turns that into
// one instant on the UTC timeline.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace diag {

constexpr int64_t us_per_s = 1000000;

enum class ts_kind : uint8_t {
	none,
	absolute,      // carried a zone (Z, +0100) or is epoch based: already UTC
	local,         // full civil date and time, no zone: needs the node's zone
	local_no_year, // month, day and time only (glog, syslog): needs year and zone
	boot_relative, // seconds since the node booted (raw kmsg): needs boot time
	time_of_day,   // "HH:MM:SS" alone: needs the date its file's dated stamps give
};

// What a line said about time, before any context is applied.
struct ts_value {
	ts_kind kind = ts_kind::none;
	int year = 0;     // 0 when the line has none
	int month = 0;    // 1..12
	int day = 0;      // 1..31
	int hour = 0, minute = 0, second = 0;
	int64_t micros = 0;      // sub-second part, in microseconds
	int tz_offset_s = 0;     // for absolute civil times: offset east of UTC
	int64_t epoch_us = 0;    // absolute: microseconds since the epoch (always set for absolute)
	int64_t boot_us = 0;     // boot_relative: microseconds since boot
	uint16_t begin = 0;      // where the timestamp text starts in the line
	uint16_t end = 0;        // one past where it ends
};

// The time a line said, in µs that compare with other lines of the same
// file (civil times read as UTC, a missing year as 2000, boot-relative as
// is); INT64_MIN for none. For distances, not instants.
int64_t file_local_us(const ts_value &t);

// The reckoning stamps of one file compare on (file_local_us): their kind
// and whether they carry a year (a glog "I0220" and a banner's
// "2026-02-20" are not comparable); a stamp without its year that took its
// file's year reads as the file's dated local stamps do. Below 16.
uint8_t ts_reckoning(ts_kind kind, bool has_year);

// What is known about a node and the job when resolving.
struct ts_context {
	int64_t reference_us = INT64_MIN;  // a UTC instant near the job (start time); INT64_MIN: unknown
	int tz_offset_s = 0;               // the node's zone, offset east of UTC
	bool tz_known = false;             // false: tz_offset_s is the configured default
	int64_t boot_epoch_us = INT64_MIN; // when the node booted (UTC); INT64_MIN: unknown
};

// Finds the first timestamp in the head of a line (the first ~160 bytes),
// looking past rank/host prefixes such as "12: ", "[rank3]:", "node1: ".
// Recognised shapes: ISO 8601 with or without zone ("T" or space separated,
// "," or "." fractions), "YYYY-MM-DD HH:MM:SS,mmm", glog "E1026 04:01:29.922296938",
// NCCL "[2026-01-02 03:04:05]" with optional fraction, dmesg -T
// "[Mon Feb  2 22:52:45 2026]", syslog/journalctl short "Feb  2 22:52:45" and
// short-precise "Feb 02 22:52:45.123456", journalctl short-iso(-precise)
// "2026-02-02T22:52:45+0000", raw kmsg "[ 1234.567890]" and epoch seconds
// ("1730000000.123") where a line leads with one. begin/end span the time
// itself, not brackets or quotes around it (raw kmsg: the whole "[...]" field).
std::optional<ts_value> find_timestamp(std::string_view line);

// False only when find_timestamp(line) must come back empty, at a fraction
// of its cost (readers ask it first, for every line).
bool may_have_timestamp(std::string_view line);

// Resolves to UTC microseconds. local_no_year takes the year that puts the
// time nearest to reference_us (December lines of a job that started on
// January 1st belong to the year before); without a reference it fails.
// boot_relative needs boot_epoch_us. Local times use ctx.tz_offset_s.
std::optional<int64_t> resolve_timestamp(const ts_value &v, const ts_context &ctx);

// Days since 1970-01-01 for a proleptic Gregorian civil date (no time zone).
int64_t days_from_civil(int year, int month, int day);

// The inverse of days_from_civil.
struct civil_date {
	int year, month, day;
};
civil_date civil_from_days(int64_t days);
// a / b rounded towards minus infinity (days before 1970 too).
int64_t floor_div(int64_t a, int64_t b);

// UTC microseconds to "2026-10-26T03:51:31.222Z" (millisecond precision).
void format_utc_ms(int64_t us, char *buf, size_t len);

// Parses a whole string that is only a timestamp (sacct's "2026-10-26T03:51:31",
// an ISO value from JSON): same shapes as find_timestamp.
std::optional<ts_value> parse_timestamp(std::string_view text);

} // namespace diag
