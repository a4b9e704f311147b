// Timestamp scanning: hand-written shape parsers, tried at each plausible
// start in the head of a line. No regex and no allocation: this runs on
// every line of every log.
#include "reading/timestamp.hh"

#include <algorithm>
#include <cstdio>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace diag {

int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

namespace {

// Prefixes (srun labels, rank tags, Determined headers) fit well within this.
constexpr size_t head_limit = 160;
constexpr int64_t us_per_day = 86400 * us_per_s;

// The civil epoch range we accept: guards against numbers that merely look
// like dates or epoch seconds.
constexpr int min_year = 1970, max_year = 2199;
constexpr int64_t min_epoch_s = 978307200;  // 2001-01-01
constexpr int64_t max_epoch_s = 4102444800; // 2100-01-01

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_alnum(char c)
{
	return is_digit(c) || is_upper(c) || (c >= 'a' && c <= 'z');
}

// A timestamp may start right after one of these (or at the line start).
inline bool is_boundary(char c)
{
	switch (c) {
	case ' ': case '\t': case '[': case ']': case ':': case '(': case '=':
	case '"': case '\'': case ',': case '>': case '|': case '{':
		return true;
	default:
		return false;
	}
}

inline bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// year 0: unknown, so February may have 29 days.
bool valid_day(int y, int m, int d)
{
	static constexpr int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	return !(m == 2 && d == 29 && y != 0 && !is_leap(y));
}

// A bounded cursor; peek() past the end gives '\0', which no shape accepts.
struct cursor {
	std::string_view s;
	size_t i;

	char peek(size_t k = 0) const { return i + k < s.size() ? s[i + k] : '\0'; }
	bool at_end() const { return i >= s.size(); }
	bool eat(char c)
	{
		if (i < s.size() && s[i] == c) {
			i++;
			return true;
		}
		return false;
	}
	// Exactly n digits.
	bool num(int n, int &out)
	{
		int v = 0;
		for (int k = 0; k < n; k++) {
			char c = peek(k);
			if (!is_digit(c))
				return false;
			v = v * 10 + (c - '0');
		}
		i += n;
		out = v;
		return true;
	}
	// lo..hi digits, greedy; more than hi digits fails.
	bool num_range(int lo, int hi, int64_t &out, int &count)
	{
		int64_t v = 0;
		int k = 0;
		while (is_digit(peek(k))) {
			if (k == hi)
				return false;
			v = v * 10 + (peek(k) - '0');
			k++;
		}
		if (k < lo)
			return false;
		i += k;
		out = v;
		count = k;
		return true;
	}
};

// Sub-second digits after a separator: up to nine (nanoseconds), the first
// six kept as micros. A tenth digit is left for the caller to reject, which
// also keeps spans short enough for uint16_t.
bool fraction(cursor &c, bool allow_comma, int64_t &micros)
{
	char sep = c.peek();
	if (!(sep == '.' || (allow_comma && sep == ',')) || !is_digit(c.peek(1)))
		return false;
	c.i++;
	int64_t v = 0;
	int k = 0;
	while (k < 9 && is_digit(c.peek())) {
		if (k < 6)
			v = v * 10 + (c.peek() - '0');
		k++;
		c.i++;
	}
	for (; k < 6; k++)
		v *= 10;
	micros = v;
	return true;
}

// "HH:MM:SS" with an optional fraction.
bool clock_time(cursor &c, bool allow_comma, ts_value &v)
{
	if (!c.num(2, v.hour) || !c.eat(':') || !c.num(2, v.minute) || !c.eat(':') ||
	    !c.num(2, v.second))
		return false;
	if (v.hour > 23 || v.minute > 59 || v.second > 60)
		return false;
	v.micros = 0;
	fraction(c, allow_comma, v.micros);
	return !is_digit(c.peek());
}

int64_t civil_us(int y, int mo, int d, int h, int mi, int s, int64_t micros)
{
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	return secs * us_per_s + micros;
}

void set_absolute(ts_value &v, int offset_s)
{
	v.kind = ts_kind::absolute;
	v.tz_offset_s = offset_s;
	v.epoch_us = civil_us(v.year, v.month, v.day, v.hour, v.minute, v.second, v.micros) -
		     int64_t(offset_s) * us_per_s;
}

// "Z", "+01:00", "+0100", "+01" right after the time. On anything else the
// cursor stays put and the time counts as local.
bool zone(cursor &c, int &offset_s)
{
	char sign = c.peek();
	if (sign == 'Z') {
		c.i++;
		offset_s = 0;
		return true;
	}
	if (sign != '+' && sign != '-')
		return false;
	cursor t = c;
	t.i++;
	int hh = 0, mm = 0;
	if (!t.num(2, hh))
		return false;
	if (t.peek() == ':' && is_digit(t.peek(1))) {
		t.i++;
		if (!t.num(2, mm))
			return false;
	} else if (is_digit(t.peek())) {
		if (!t.num(2, mm))
			return false;
	}
	if (is_digit(t.peek()) || hh > 23 || mm > 59)
		return false;
	offset_s = (hh * 3600 + mm * 60) * (sign == '-' ? -1 : 1);
	c = t;
	return true;
}

// " +08:00" / " -0700" after a space, as log4j's "XXX", Go's time.String()
// and log collectors write it: all four digits, so that " -1 ..." is text.
bool spaced_zone(cursor &c, int &offset_s)
{
	if (c.peek() != ' ' || (c.peek(1) != '+' && c.peek(1) != '-') || !is_digit(c.peek(2)) || !is_digit(c.peek(3)))
		return false;
	bool colon = c.peek(4) == ':';
	size_t m = colon ? 5 : 4;
	if (!is_digit(c.peek(m)) || !is_digit(c.peek(m + 1)) || is_digit(c.peek(m + 2)))
		return false;
	cursor t = c;
	t.i++;
	if (!zone(t, offset_s))
		return false;
	c = t;
	return true;
}

// " UTC" / " GMT" as a word, as date(1) and some tools write it.
bool zone_word(cursor &c)
{
	if (c.peek() != ' ')
		return false;
	char a = c.peek(1), b = c.peek(2), d = c.peek(3);
	bool utc = (a == 'U' && b == 'T' && d == 'C') || (a == 'G' && b == 'M' && d == 'T');
	if (!utc || is_alnum(c.peek(4)))
		return false;
	c.i += 4;
	return true;
}

// After a civil date: the clock time, any zone after it (else the time is
// local), and the span from pos.
bool civil_time_and_zone(cursor &c, size_t pos, ts_value &v)
{
	if (!clock_time(c, true, v))
		return false;
	int offset = 0;
	if (zone(c, offset) || spaced_zone(c, offset) || zone_word(c))
		set_absolute(v, offset);
	else
		v.kind = ts_kind::local;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// "YYYY-MM-DD[T ]HH:MM:SS[.,frac][zone]" (also "/" between date fields).
bool parse_iso(std::string_view s, size_t pos, ts_value &v)
{
	if (pos + 17 > s.size())
		return false;
	// ISO 8601's basic date, "YYYYMMDD", before the clock time (AReaL's
	// "20250227-06:13:38.946"): eight digits, then T, a blank or a dash.
	const bool basic = is_digit(s[pos + 4]);
	char sep = s[pos + 4];
	if (!basic && sep != '-' && sep != '/')
		return false;
	if (!basic && pos + 19 > s.size())
		return false;
	cursor c{s, pos};
	if (basic ? !c.num(4, v.year) || !c.num(2, v.month) || !c.num(2, v.day)
		  : !c.num(4, v.year) || !c.eat(sep) || !c.num(2, v.month) || !c.eat(sep) || !c.num(2, v.day))
		return false;
	if (v.year < min_year || v.year > max_year || !valid_day(v.year, v.month, v.day))
		return false;
	if (!c.eat('T') && !c.eat(' ') && !(basic && c.eat('-')))
		return false;
	return civil_time_and_zone(c, pos, v);
}

// "MM/DD/YYYY HH:MM:SS[.,frac]": Python's logging with the date format
// the Hugging Face example scripts set ("08/15/2022 18:02:28 - INFO -
// __main__ -"). A first field over 12 is the day ("15/08/2022", the
// European order); where both could be the month, the US order holds.
bool parse_slash_date(std::string_view s, size_t pos, ts_value &v)
{
	if (pos + 19 > s.size() || s[pos + 2] != '/' || s[pos + 5] != '/')
		return false;
	cursor c{s, pos};
	int a = 0, b = 0;
	if (!c.num(2, a) || !c.eat('/') || !c.num(2, b) || !c.eat('/') || !c.num(4, v.year))
		return false;
	v.month = a <= 12 ? a : b;
	v.day = a <= 12 ? b : a;
	if (v.year < min_year || v.year > max_year || !valid_day(v.year, v.month, v.day))
		return false;
	if (!c.eat(' ') && !c.eat('T'))
		return false;
	return civil_time_and_zone(c, pos, v);
}

// "MM<sep>DD HH:MM:SS[.,frac]" without a year, from pos; the cursor ends
// after the clock. (vLLM's "08-02 08:50:03", detectron2's "12/02 09:10:44".)
bool month_day_clock(std::string_view s, size_t pos, char sep, cursor &c, ts_value &v)
{
	c = cursor{s, pos};
	if (!c.num(2, v.month) || !c.eat(sep) || !c.num(2, v.day) || !c.eat(' '))
		return false;
	v.year = 0;
	if (!valid_day(0, v.month, v.day) || !clock_time(c, true, v))
		return false;
	v.kind = ts_kind::local_no_year;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// "[MM/DD HH:MM:SS" (detectron2's logger: "[12/02 09:10:44 d2.engine]: ")
// and "MM/DD HH:MM:SS - " (mmengine's: "11/21 09:14:02 - mmengine - INFO"):
// month and day, no year. Only in those places, where a fraction "3/4"
// followed by a time cannot be something else.
bool parse_month_day_time(std::string_view s, size_t pos, ts_value &v)
{
	const bool bracketed = pos > 0 && s[pos - 1] == '[';
	if (pos + 14 > s.size() || s[pos + 2] != '/' || s[pos + 5] != ' ')
		return false;
	cursor c{s, pos};
	if (!month_day_clock(s, pos, '/', c, v))
		return false;
	// detectron2 names its logger after the time; mmengine a dash.
	return bracketed ? c.peek() == ' ' : c.peek() == ' ' && c.i + 2 < s.size() && s[c.i + 1] == '-';
}

// "[MM/DD/YY HH:MM:SS]": rich's log handler ("[%x %X]" in the C and US
// locales). A two-digit year only in brackets, where it closes the stamp.
bool parse_bracketed_short_year(std::string_view s, size_t pos, ts_value &v)
{
	if (pos == 0 || s[pos - 1] != '[' || pos + 18 > s.size() || s[pos + 2] != '/' || s[pos + 5] != '/' ||
	    s[pos + 8] != ' ')
		return false;
	cursor c{s, pos};
	int yy = 0;
	if (!c.num(2, v.month) || !c.eat('/') || !c.num(2, v.day) || !c.eat('/') || !c.num(2, yy) || !c.eat(' '))
		return false;
	v.year = 2000 + yy;
	if (!valid_day(v.year, v.month, v.day) || !clock_time(c, false, v) || c.peek() != ']')
		return false;
	v.kind = ts_kind::local;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// A logger's level word, then "MM-DD HH:MM:SS" (vLLM's "ERROR 08-02
// 08:50:03 worker_base.py:382] "): no year. Only right after the level word,
// where a month and a day cannot be something else.
bool parse_level_month_day(std::string_view s, size_t pos, ts_value &v)
{
	static const std::string_view levels[] = {"DEBUG ", "INFO ", "WARNING ", "ERROR ", "CRITICAL "};
	bool after_level = false;
	for (std::string_view l : levels)
		if (pos >= l.size() && s.substr(pos - l.size(), l.size()) == l &&
		    (pos == l.size() || is_boundary(s[pos - l.size() - 1]))) {
			after_level = true;
			break;
		}
	if (!after_level || pos + 14 > s.size())
		return false;
	cursor c{s, pos};
	return month_day_clock(s, pos, '-', c, v);
}

// glog: "E1026 04:01:29.922296938" (no year) or "E20261026 04:01:29.9" (glog
// built with the year in the prefix). PyTorch's c10 logger prints the month
// and day as one number, month * 100 + day unpadded: "E318" is March
// 18th.
bool parse_glog(std::string_view s, size_t pos, ts_value &v)
{
	cursor c{s, pos + 1};
	int64_t digits = 0;
	int n = 0;
	if (!c.num_range(3, 8, digits, n) || (n != 3 && n != 4 && n != 8) || !c.eat(' '))
		return false;
	v.year = n == 8 ? int(digits / 10000) : 0;
	v.month = int(digits / 100 % 100);
	v.day = int(digits % 100);
	if (n == 8 && (v.year < min_year || v.year > max_year))
		return false;
	if (!valid_day(v.year, v.month, v.day) || !clock_time(c, false, v))
		return false;
	v.kind = n == 8 ? ts_kind::local : ts_kind::local_no_year;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

int month_from_name(char a, char b, char c)
{
	static constexpr char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	for (int m = 0; m < 12; m++)
		if (names[m * 3] == a && names[m * 3 + 1] == b && names[m * 3 + 2] == c)
			return m + 1;
	return 0;
}

bool is_weekday(char a, char b, char c)
{
	static constexpr char names[] = "MonTueWedThuFriSatSun";
	for (int d = 0; d < 7; d++)
		if (names[d * 3] == a && names[d * 3 + 1] == b && names[d * 3 + 2] == c)
			return true;
	return false;
}

// "Feb  2 22:52:45" (syslog) or "Feb 02 22:52:45.123456" (journalctl).
bool month_day_time(cursor &c, ts_value &v)
{
	v.month = month_from_name(c.peek(), c.peek(1), c.peek(2));
	if (v.month == 0)
		return false;
	c.i += 3;
	if (!c.eat(' '))
		return false;
	c.eat(' ');
	int64_t day = 0;
	int n = 0;
	if (!c.num_range(1, 2, day, n) || !c.eat(' '))
		return false;
	v.day = int(day);
	v.year = 0;
	return valid_day(0, v.month, v.day) && clock_time(c, false, v);
}

bool parse_syslog(std::string_view s, size_t pos, ts_value &v)
{
	cursor c{s, pos};
	if (!month_day_time(c, v))
		return false;
	v.kind = ts_kind::local_no_year;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// dmesg -T / ctime: "Mon Feb  2 22:52:45 2026", optionally with " UTC".
bool parse_ctime(std::string_view s, size_t pos, ts_value &v)
{
	cursor c{s, pos};
	if (!is_weekday(c.peek(), c.peek(1), c.peek(2)) || c.peek(3) != ' ')
		return false;
	c.i += 4;
	if (!month_day_time(c, v))
		return false;
	cursor t = c;
	bool utc = zone_word(t);
	int year = 0;
	if (t.eat(' ') && t.num(4, year) && !is_alnum(t.peek()) && year >= min_year &&
	    year <= max_year && valid_day(year, v.month, v.day)) {
		c = t;
		v.year = year;
		if (utc)
			set_absolute(v, 0);
		else
			v.kind = ts_kind::local;
	} else {
		v.kind = ts_kind::local_no_year;
	}
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// Raw kmsg "[ 1234.567890]": printk always writes six fraction digits,
// which keeps "[0.5]" and the like out.
bool parse_kmsg(std::string_view s, size_t pos, ts_value &v)
{
	cursor c{s, pos + 1};
	for (int pad = 0; pad < 12 && c.peek() == ' '; pad++)
		c.i++;
	int64_t secs = 0, frac = 0;
	int n = 0, nf = 0;
	if (!c.num_range(1, 10, secs, n) || !c.eat('.') || !c.num_range(6, 6, frac, nf) ||
	    !c.eat(']'))
		return false;
	v.kind = ts_kind::boot_relative;
	v.boot_us = secs * us_per_s + frac;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// Epoch seconds leading a line: "1730000000.123 ...". Only 9-10 digit
// integers within 2001..2100, followed by a separator, count.
bool parse_epoch(std::string_view s, size_t pos, ts_value &v)
{
	cursor c{s, pos};
	int64_t secs = 0;
	int n = 0;
	if (!c.num_range(9, 10, secs, n) || secs < min_epoch_s || secs >= max_epoch_s)
		return false;
	int64_t micros = 0;
	fraction(c, false, micros);
	char next = c.peek();
	if (!c.at_end() && next != ' ' && next != '\t' && next != ']' && next != ':' &&
	    next != ',' && next != '|' && next != ';' && next != ')' && next != '\r')
		return false;
	v.kind = ts_kind::absolute;
	v.epoch_us = secs * us_per_s + micros;
	civil_date d = civil_from_days(floor_div(secs, 86400));
	int64_t sod = secs - floor_div(secs, 86400) * 86400;
	v.year = d.year;
	v.month = d.month;
	v.day = d.day;
	v.hour = int(sod / 3600);
	v.minute = int(sod / 60 % 60);
	v.second = int(sod % 60);
	v.micros = micros;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

// All shapes at one position; the first byte picks the candidates.
bool parse_at(std::string_view s, size_t pos, bool line_start, ts_value &v)
{
	char c = s[pos];
	v = ts_value{}; // a failed shape may have left fields behind
	if (is_digit(c))
		return parse_iso(s, pos, v) || parse_slash_date(s, pos, v) || (line_start && parse_epoch(s, pos, v)) ||
		       parse_level_month_day(s, pos, v) || parse_month_day_time(s, pos, v) ||
		       parse_bracketed_short_year(s, pos, v);
	if (c == '[')
		return parse_kmsg(s, pos, v);
	if (!is_upper(c))
		return false;
	bool glog = c == 'I' || c == 'W' || c == 'E' || c == 'F';
	if (glog && pos + 1 < s.size() && is_digit(s[pos + 1]))
		return parse_glog(s, pos, v);
	return parse_syslog(s, pos, v) || parse_ctime(s, pos, v);
}

// Index just past an ANSI escape sequence starting at i (CSI: ESC [ params final).
size_t skip_ansi(std::string_view s, size_t i)
{
	size_t j = i + 1;
	if (j < s.size() && s[j] == '[') {
		j++;
		while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
		       static_cast<unsigned char>(s[j]) <= 0x3f)
			j++;
		if (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x40 &&
		    static_cast<unsigned char>(s[j]) <= 0x7e)
			j++;
		return j;
	}
	return std::min(j + 1, s.size());
}

// Words after which a clock is a duration, not a time of day ("Elapsed
// 00:12:33", "ETA 01:02:03", "took 00:00:05").
bool duration_word_before(std::string_view before)
{
	while (!before.empty() && (before.back() == ' ' || before.back() == ':' || before.back() == '='))
		before.remove_suffix(1);
	size_t w = before.size();
	while (w > 0 && ((before[w - 1] >= 'a' && before[w - 1] <= 'z') || (before[w - 1] >= 'A' && before[w - 1] <= 'Z')))
		w--;
	const std::string_view word = before.substr(w);
	static const std::string_view durations[] = {"elapsed", "time",  "eta",	     "took",	 "duration",
						     "uptime",	"runtime", "walltime", "total",	 "remaining",
						     "left",	"in",	   "after",    "for",	 "limit"};
	for (std::string_view d : durations) {
		if (d.size() != word.size())
			continue;
		size_t k = 0;
		while (k < d.size() && (word[k] | 0x20) == d[k])
			k++;
		if (k == d.size())
			return true;
	}
	return false;
}

// Whether the bytes before pos are a line's prefix only: tags in brackets
// ("[rank 0]", "[default0]:"), labels ending in a colon ("0:", "node1:"),
// a logger's level word; short, and no clock of their own. A time inside
// a bracket opened before something else ("[E1399 09:26:18") is not one.
bool prefix_only(std::string_view line, size_t pos)
{
	if (pos == 0)
		return true;
	if (pos > 48)
		return false;
	static const std::string_view levels[] = {"DEBUG", "INFO", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL",
						  "TRACE", "NOTICE", "I", "W", "E", "D", "F", "-", "|"};
	std::string_view before = line.substr(0, pos);
	int depth = 0;
	size_t token = 0; // where the current token began
	for (size_t i = 0; i <= before.size(); i++) {
		const char c = i < before.size() ? before[i] : ' ';
		if (c == ':' && i > 0 && i + 1 < before.size() && is_digit(before[i - 1]) && is_digit(before[i + 1]))
			return false;
		if (c == '[')
			depth++;
		else if (c == ']' && depth > 0)
			depth--;
		if (c != ' ' || depth > 0)
			continue;
		if (i > token) {
			std::string_view t = before.substr(token, i - token);
			bool ok = t.back() == ':' || t.back() == ']' || t.front() == '[' || t.front() == '(';
			for (std::string_view l : levels)
				ok = ok || t == l;
			if (!ok)
				return false;
		}
		token = i + 1;
	}
	if (depth > 0)
		return before.back() == '[' && depth == 1;
	const char last = before.back();
	return last == ' ' || last == ':' || last == '|';
}

// A time of day alone, "HH:MM:SS" with an optional fraction, leading the
// line or right after its prefix ("[rank 0] 11:30:02 ep 2 it 2500",
// "21:14:52 Started by ..."): no date; its file's last dated stamp gives
// it one. Not a duration: never one that a "<" or "/" follows (tqdm's
// "[00:12<00:30"), nor one after a duration's word.
bool parse_time_of_day(std::string_view s, size_t pos, ts_value &v)
{
	if (!prefix_only(s, pos) || duration_word_before(s.substr(0, pos)))
		return false;
	cursor c{s, pos};
	v = ts_value{};
	if (!clock_time(c, true, v))
		return false;
	const char next = c.peek();
	if (!(next == '\0' || next == ' ' || next == ']' || next == '|' || next == ',' || next == '\t'))
		return false;
	if (next == ' ') {
		std::string_view after = s.substr(c.i + 1, 10);
		if (after.rfind("elapsed", 0) == 0 || after.rfind("remaining", 0) == 0 || after.rfind("left", 0) == 0 ||
		    after.rfind("<", 0) == 0)
			return false;
	}
	v.kind = ts_kind::time_of_day;
	v.year = 0;
	v.begin = uint16_t(pos);
	v.end = uint16_t(c.i);
	return true;
}

} // namespace

int64_t days_from_civil(int year, int month, int day)
{
	// Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms".
	int64_t y = int64_t(year) - (month <= 2);
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t mp = (month + 9) % 12;
	int64_t doy = (153 * mp + 2) / 5 + day - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

civil_date civil_from_days(int64_t z)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int day = int(doy - (153 * mp + 2) / 5 + 1);
	int month = int(mp < 10 ? mp + 3 : mp - 9);
	int year = int(yoe + era * 400 + (month <= 2));
	return {year, month, day};
}

// False only when find_timestamp(s) must come back empty, at a fraction of
// its cost. Every shape it knows has a clock ("22:52:45": two digits, a
// colon, two digits, a colon, a digit, within the head it searches plus
// the longest shape's lead), except raw kmsg ("[", blanks, digits and a
// point) and epoch seconds leading the line (nine digits or more). The colons and
// brackets are found sixteen bytes at a time.
bool may_have_timestamp(std::string_view s)
{
	const char *p = s.data();
	const size_t n = s.size();
	const size_t colon_lim = std::min<size_t>(n, 160 + 48), bracket_lim = std::min<size_t>(n, 160);
	auto clock_at = [&](size_t q) {
		return q >= 2 && q + 4 < n && is_digit(p[q - 1]) && is_digit(p[q - 2]) && is_digit(p[q + 1]) &&
		       is_digit(p[q + 2]) && p[q + 3] == ':' && is_digit(p[q + 4]);
	};
	auto kmsg_at = [&](size_t q) {
		size_t r = q + 1;
		for (int pad = 0; pad < 12 && r < n && p[r] == ' '; pad++)
			r++;
		size_t d = r;
		while (d < n && d - r <= 10 && is_digit(p[d]))
			d++;
		return d > r && d < n && p[d] == '.';
	};
	size_t i = 0;
#ifdef __SSE2__
	const __m128i colon = _mm_set1_epi8(':'), bracket = _mm_set1_epi8('[');
	for (; i + 16 <= colon_lim; i += 16) {
		__m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
		unsigned c = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, colon)));
		unsigned b = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, bracket)));
		for (; c; c &= c - 1)
			if (clock_at(i + static_cast<size_t>(__builtin_ctz(c))))
				return true;
		for (; b; b &= b - 1) {
			size_t q = i + static_cast<size_t>(__builtin_ctz(b));
			if (q < bracket_lim && kmsg_at(q))
				return true;
		}
	}
#endif
	for (; i < colon_lim; i++) {
		if (p[i] == ':' && clock_at(i))
			return true;
		if (p[i] == '[' && i < bracket_lim && kmsg_at(i))
			return true;
	}
	// Epoch seconds lead the line: after blanks and colour codes only.
	size_t k = 0;
	while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\x1b'))
		k = p[k] == '\x1b' ? skip_ansi(s, k) : k + 1;
	size_t d = k;
	while (d < n && is_digit(p[d]))
		d++;
	return d - k >= 9;
}


std::optional<ts_value> find_timestamp(std::string_view line)
{
	size_t lim = std::min(line.size(), head_limit);
	bool candidate = true;  // previous byte was a boundary
	bool line_start = true; // only blanks and colour codes so far
	ts_value v;
	for (size_t i = 0; i < lim; i++) {
		char c = line[i];
		if (c == '\x1b') {
			i = skip_ansi(line, i) - 1;
			candidate = true;
			continue;
		}
		if (candidate && parse_at(line, i, line_start, v))
			return v;
		if (c != ' ' && c != '\t')
			line_start = false;
		candidate = is_boundary(c);
	}
	// A table row that ends with its stamp (a cloud CLI's listing: gcloud's
	// operations, its TIMESTAMP the last column, past the head): a full
	// ISO 8601 time with its zone as the line's last word, nothing else.
	if (line.size() > lim) {
		size_t end = line.size();
		while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
			end--;
		size_t start = end;
		while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t')
			start--;
		std::string_view word = line.substr(start, end - start);
		ts_value t;
		if (word.size() >= 20 && word.size() <= 40 && parse_iso(word, 0, t) && t.kind == ts_kind::absolute &&
		    t.end == word.size()) {
			t.begin = 0;
			t.end = 0; // (not at the head: nothing to strip there)
			return t;
		}
	}
	// No dated stamp: a time of day alone, where the line leads with it.
	candidate = true;
	for (size_t i = 0; i < lim && i <= 48; i++) {
		char c = line[i];
		if (c == '\x1b')
			break;
		if (candidate && is_digit(c) && parse_time_of_day(line, i, v))
			return v;
		candidate = is_boundary(c);
	}
	return std::nullopt;
}

std::optional<int64_t> resolve_timestamp(const ts_value &v, const ts_context &ctx)
{
	int64_t tz_us = int64_t(ctx.tz_offset_s) * us_per_s;
	switch (v.kind) {
	case ts_kind::absolute:
		return v.epoch_us;
	case ts_kind::local:
		return civil_us(v.year, v.month, v.day, v.hour, v.minute, v.second, v.micros) - tz_us;
	case ts_kind::local_no_year: {
		// (Its file gave it a year: the dated stamps before it.)
		if (v.year != 0 && valid_day(v.year, v.month, v.day))
			return civil_us(v.year, v.month, v.day, v.hour, v.minute, v.second, v.micros) - tz_us;
		if (ctx.reference_us == INT64_MIN)
			return std::nullopt;
		int ref_year = civil_from_days(floor_div(ctx.reference_us, us_per_day)).year;
		std::optional<int64_t> best;
		uint64_t best_dist = 0;
		for (int y = ref_year - 1; y <= ref_year + 1; y++) {
			if (!valid_day(y, v.month, v.day)) // Feb 29 in a common year
				continue;
			int64_t t = civil_us(y, v.month, v.day, v.hour, v.minute, v.second,
					     v.micros) - tz_us;
			uint64_t dist = t > ctx.reference_us ? uint64_t(t - ctx.reference_us)
							     : uint64_t(ctx.reference_us - t);
			if (!best || dist < best_dist) {
				best = t;
				best_dist = dist;
			}
		}
		return best;
	}
	case ts_kind::time_of_day: // (its file gives it a date, or it has none)
		return std::nullopt;
	case ts_kind::boot_relative:
		if (ctx.boot_epoch_us == INT64_MIN)
			return std::nullopt;
		return ctx.boot_epoch_us + v.boot_us;
	case ts_kind::none:
		break;
	}
	return std::nullopt;
}

void format_utc_ms(int64_t us, char *buf, size_t len)
{
	if (len == 0)
		return;
	int64_t days = floor_div(us, us_per_day);
	int64_t rem = us - days * us_per_day; // 0 .. one day, exclusive
	civil_date d = civil_from_days(days);
	int64_t ms = rem / 1000;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", d.year, d.month, d.day,
		 int(ms / 3600000), int(ms / 60000 % 60), int(ms / 1000 % 60), int(ms % 1000));
}

std::optional<ts_value> parse_timestamp(std::string_view text)
{
	while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
		text.remove_prefix(1);
	while (!text.empty() && (text.back() == ' ' || text.back() == '\t' ||
				 text.back() == '\r' || text.back() == '\n'))
		text.remove_suffix(1);
	if (text.empty() || text.size() > 256)
		return std::nullopt;
	ts_value v;
	if (parse_at(text, 0, true, v) && v.end == text.size())
		return v;
	// "[2026-01-02 03:04:05]" as NCCL writes it: the brackets are not the time.
	if (text.size() > 2 && text.front() == '[' && text.back() == ']' &&
	    parse_at(text.substr(0, text.size() - 1), 1, false, v) && v.end == text.size() - 1)
		return v;
	return std::nullopt;
}

uint8_t ts_reckoning(ts_kind kind, bool has_year)
{
	const ts_kind k = kind == ts_kind::local_no_year ? ts_kind::local : kind;
	return static_cast<uint8_t>(static_cast<unsigned>(k) * 2 + (has_year ? 1 : 0));
}

int64_t file_local_us(const ts_value &t)
{
	switch (t.kind) {
	case ts_kind::none: return INT64_MIN;
	case ts_kind::absolute: return t.epoch_us;
	case ts_kind::boot_relative: return t.boot_us;
	case ts_kind::local:
	case ts_kind::local_no_year:
	case ts_kind::time_of_day:
		return civil_us(t.year ? t.year : 2000, t.month ? t.month : 1, t.day ? t.day : 1, t.hour, t.minute, t.second,
				t.micros);
	}
	return INT64_MIN;
}

} // namespace diag
