#include "reading/line_prefix.hh"

#include <algorithm>

#include <cctype>
#include <string>

namespace diag {

std::string_view trim_blanks(std::string_view v)
{
	while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
		v.remove_prefix(1);
	while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
		v.remove_suffix(1);
	return v;
}

bool parse_uint(std::string_view s, long long &out)
{
	if (s.empty() || s.size() > 18)
		return false;
	long long v = 0;
	for (char c : s) {
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	out = v;
	return true;
}

int64_t clock_seconds(std::string_view v, long long part_max)
{
	int64_t secs = 0;
	int parts = 0;
	while (!v.empty()) {
		size_t colon = v.find(':');
		long long n;
		if (!parse_uint(v.substr(0, colon), n) || n > part_max || ++parts > 3)
			return -1;
		secs = secs * 60 + n;
		if (colon == std::string_view::npos)
			break;
		v = v.substr(colon + 1);
	}
	return parts >= 2 ? secs : -1;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view skip_spaces(std::string_view s)
{
	size_t i = 0;
	while (i < s.size() && s[i] == ' ')
		i++;
	return s.substr(i);
}

// "[<word><digits>]:" or "[<word> <digits>]" style tags.
bool bracket_number(std::string_view s, std::string_view word, size_t &len, int &num)
{
	if (s.size() < word.size() + 3 || s[0] != '[' || s.compare(1, word.size(), word) != 0)
		return false;
	size_t i = 1 + word.size();
	size_t d = i;
	while (i < s.size() && is_digit(s[i]))
		i++;
	if (i == d || i >= s.size() || s[i] != ']' || i - d > 7)
		return false;
	long long v;
	if (!parse_uint(s.substr(d, i - d), v))
		return false;
	num = static_cast<int>(v);
	len = i + 1;
	if (len < s.size() && s[len] == ':')
		len++;
	return true;
}

bool is_ipv4(std::string_view t)
{
	int dots = 0, digits = 0;
	for (char c : t) {
		if (c == '.') {
			if (digits == 0)
				return false;
			dots++;
			digits = 0;
		} else if (is_digit(c)) {
			if (++digits > 3)
				return false;
		} else {
			return false;
		}
	}
	return dots == 3 && digits > 0;
}

bool hostname_like(std::string_view t)
{
	if (t.empty() || t.size() > 63 || !isalnum(static_cast<unsigned char>(t[0])))
		return false;
	bool digit = false, alpha = false;
	for (char c : t) {
		if (is_digit(c))
			digit = true;
		else if (isalpha(static_cast<unsigned char>(c)))
			alpha = true;
		else if (c != '-' && c != '.' && c != '_')
			return false;
	}
	return digit && alpha;
}

// "GPU0", "rank3", "step12": a word for a device or a counter, then
// digits only; a host name looks like that too, but with another word.
bool counter_word(std::string_view tok)
{
	size_t word = 0;
	while (word < tok.size() && isalpha(static_cast<unsigned char>(tok[word])))
		word++;
	if (word == 0 || word == tok.size())
		return false;
	for (size_t i = word; i < tok.size(); i++)
		if (!is_digit(tok[i]))
			return false;
	std::string w;
	for (size_t i = 0; i < word; i++)
		w += static_cast<char>(tolower(static_cast<unsigned char>(tok[i])));
	static const char *const counters[] = {"gpu", "cuda", "rank", "dev", "device", "step", "epoch", "iter",
					       "iteration", "batch", "worker", "pid", "tid", "proc", "process", "thread",
					       "layer", "block", "shard", "chunk", "sample", "item", "e", "w", "i", "f"};
	for (const char *n : counters)
		if (w == n)
			return true;
	return false;
}

// Text that starts the way an exception or a native crash is reported:
// "torch.cuda.OutOfMemoryError: ...", "*** SIGSEGV ...", "terminate called ...".
bool crash_text(std::string_view t)
{
	if (t.substr(0, 4) == "*** " || t.substr(0, 17) == "terminate called " || t.substr(0, 7) == "what():")
		return true;
	// A dotted module path, then a capitalised name ending in Error or
	// Exception, then ':' or the end (an exception raised without a message).
	size_t i = 0, last_dot = std::string_view::npos;
	while (i < t.size() && i < 160 && (isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_' || t[i] == '.')) {
		if (t[i] == '.')
			last_dot = i;
		i++;
	}
	if (last_dot == std::string_view::npos || last_dot + 1 >= i || (i < t.size() && t[i] != ':') ||
	    !isupper(static_cast<unsigned char>(t[last_dot + 1])))
		return false;
	std::string_view name = t.substr(last_dot + 1, i - last_dot - 1);
	auto ends = [&](std::string_view suf) {
		return name.size() >= suf.size() && name.substr(name.size() - suf.size()) == suf;
	};
	return ends("Error") || ends("Exception");
}

// "[gpu-d05] ": a host name in brackets, then a space; len covers both.
// "[GPU0]", "[cuda:1]", "[rank3]", "[step12]" are no hosts.
bool host_tag(std::string_view s, size_t &len)
{
	size_t close = s.find(']');
	if (s.empty() || s[0] != '[' || close == std::string_view::npos || close < 3 || close > 64 ||
	    close + 1 >= s.size() || s[close + 1] != ' ')
		return false;
	std::string_view tok = s.substr(1, close - 1);
	if (!hostname_like(tok) || !is_digit(tok.back()) || !isalpha(static_cast<unsigned char>(tok[0])) ||
	    counter_word(tok))
		return false;
	len = close + 2;
	return true;
}

// NCCL: "host:pid:tid [dev] " possibly after "[YYYY-MM-DD HH:MM:SS] ".
bool nccl_prefix(std::string_view s, line_identity &id, size_t &len)
{
	size_t start = 0;
	if (!s.empty() && s[0] == '[' && s.size() > 12 && is_digit(s[1])) {
		size_t close = s.find("] ");
		if (close == std::string_view::npos || close > 40)
			return false;
		start = close + 2;
	}
	std::string_view t = s.substr(start);
	size_t c1 = t.find(':');
	if (c1 == std::string_view::npos || c1 == 0 || c1 > 64)
		return false;
	size_t c2 = t.find(':', c1 + 1);
	if (c2 == std::string_view::npos || c2 - c1 - 1 > 10)
		return false;
	size_t sp = t.find(' ', c2 + 1);
	if (sp == std::string_view::npos || sp - c2 - 1 > 12)
		return false;
	long long pid, tid;
	if (!parse_uint(t.substr(c1 + 1, c2 - c1 - 1), pid) || !parse_uint(t.substr(c2 + 1, sp - c2 - 1), tid))
		return false;
	std::string_view host = t.substr(0, c1);
	for (char c : host)
		if (c == ' ' || c == '[' || c == ']')
			return false;
	std::string_view rest = t.substr(sp + 1);
	size_t dlen;
	int dev = -1;
	if (bracket_number(rest, "", dlen, dev)) {
		rest = rest.substr(dlen);
	} else {
		return false;
	}
	id.nccl = true;
	id.host = host;
	id.pid = static_cast<int>(pid);
	id.cuda_dev = dev;
	len = static_cast<size_t>(rest.data() - s.data());
	if (len < s.size() && s[len] == ' ')
		len++;
	return true;
}

// A runner's stream tag: "[stderr] ", or a writer's name before it
// ("dinov2-gpus.cn-g021 [stderr] ", milabench): the stream says nothing
// of who wrote (the name is the runner's own, no host), so it is skipped;
// its length, or 0.
size_t stream_tag(std::string_view s)
{
	// (The name has no space: the tag can only follow the first one.)
	size_t sp = s.find(' ');
	size_t at = sp == std::string_view::npos ? 0 : sp >= 2 && sp <= 80 ? sp + 1 : std::string_view::npos;
	if (s.substr(0, 1) == "[")
		at = 0;
	if (at == std::string_view::npos)
		return 0;
	for (std::string_view tag : {std::string_view("[stdout] "), std::string_view("[stderr] ")})
		if (s.substr(at, tag.size()) == tag)
			return at + tag.size();
	return 0;
}

// "[host:number]" and what closes it (close: "] " or "]:"), the number of
// min_digits to max_digits digits, within the line's first 80 bytes: the
// host and the number; len covers the close.
bool bracketed_host_number(std::string_view s, std::string_view close_with, size_t min_digits, size_t max_digits,
			   std::string_view &host, int &number, size_t &len)
{
	std::string_view head = s.substr(0, 80);
	size_t colon = head.find(':'), close = head.find(close_with);
	if (s.empty() || s[0] != '[' || colon == std::string_view::npos || close == std::string_view::npos ||
	    colon > close || colon < 2 || close - colon - 1 < min_digits || close - colon - 1 > max_digits)
		return false;
	std::string_view tok = s.substr(1, colon - 1);
	long long v;
	if (!hostname_like(tok) || !isalpha(static_cast<unsigned char>(tok[0])) || counter_word(tok) ||
	    !parse_uint(s.substr(colon + 1, close - colon - 1), v))
		return false;
	host = tok;
	number = static_cast<int>(v);
	len = close + close_with.size();
	return true;
}

// Open MPI's own output and signal handler: "[gpn-c12:58233] " (the host
// and pid of the process that writes); len covers the space.
bool opal_host_pid(std::string_view s, std::string_view &host, int &pid, size_t &len)
{
	return bracketed_host_number(s, "] ", 2, 10, host, pid, len);
}

// A wrapper's own tag of host and index ("[gpu-a07:19]:", sed's
// "[$(hostname):${SLURM_PROCID}]:", torchrun --tee under a role named for
// the host): the host, and the index as the writer's own number (a rank
// on one wrapper, a local rank on another: no rank is taken from it).
bool host_index_tag(std::string_view s, std::string_view &host, int &index, size_t &len)
{
	return bracketed_host_number(s, "]:", 1, 6, host, index, len);
}

// Open MPI's --tag-output: "[1,5]<stderr>:" (job id, then the rank in
// MPI_COMM_WORLD: the global rank of Horovod and other MPI launches);
// horovodrun's own launcher (gloo) tags with the rank alone: "[5]<stderr>:".
bool mpi_output_tag(std::string_view s, size_t &len, int &rank)
{
	size_t i = 1;
	auto digits = [&]() {
		size_t start = i;
		while (i < s.size() && is_digit(s[i]) && i - start < 9)
			i++;
		return i > start;
	};
	if (s.empty() || s[0] != '[' || !digits() || i >= s.size())
		return false;
	size_t rank_at = 1;
	if (s[i] == ',') {
		i++;
		rank_at = i;
		if (!digits() || i >= s.size() || s[i] != ']')
			return false;
	} else if (s[i] != ']' || i + 1 >= s.size() || s[i + 1] != '<') {
		return false; // "[5]" alone is no tag: only with its stream
	}
	long long v;
	if (!parse_uint(s.substr(rank_at, i - rank_at), v))
		return false;
	i++;
	if (i < s.size() && s[i] == '<') {
		size_t close = s.find(">:", i);
		if (close == std::string_view::npos || close - i > 8)
			return false;
		i = close + 2;
	} else if (i < s.size() && s[i] == ':') {
		i++;
	} else {
		return false;
	}
	if (i < s.size() && s[i] == ' ')
		i++;
	len = i;
	rank = static_cast<int>(v);
	return true;
}

// A ctime stamp glued to an output tag, as Open MPI's --timestamp-output
// and horovodrun's --prefix-output-with-timestamp write them: "Mon Mar  2
// 10:11:02 2026[1,2]<stderr>:" (the time is read from the whole line).
size_t ctime_before_tag(std::string_view s)
{
	static const char *const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
	const size_t n = 24; // "Www Mmm dd hh:mm:ss yyyy"
	if (s.size() <= n || s[n] != '[' || s[3] != ' ' || s[7] != ' ' || s[10] != ' ' || s[13] != ':' ||
	    s[16] != ':' || s[19] != ' ')
		return 0;
	bool day = false;
	for (const char *d : days)
		day = day || s.substr(0, 3) == d;
	static const size_t digits_at[] = {11, 12, 14, 15, 17, 18, 20, 21, 22, 23};
	for (size_t i : digits_at)
		if (!is_digit(s[i]))
			return 0;
	size_t len;
	int rank;
	return day && mpi_output_tag(s.substr(n), len, rank) ? n : 0;
}

// vLLM's logger (and loggers set up the same way): "ERROR 08-02 08:50:03
// worker_base.py:382] ", newer "INFO 02-11 10:03:32 [__init__.py:190] ":
// level, month-day time, source line; the message follows (a traceback's
// lines one by one under logger.exception). Its length, or 0. (The time
// stays the line's: find_timestamp reads it from the whole line.)
size_t level_time_source_prefix(std::string_view s)
{
	static const std::string_view levels[] = {"DEBUG ", "INFO ", "WARNING ", "ERROR ", "CRITICAL "};
	size_t i = 0;
	for (std::string_view l : levels)
		if (s.substr(0, l.size()) == l) {
			i = l.size();
			break;
		}
	if (i == 0)
		return 0;
	auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
	auto digits = [&](size_t k, size_t n) {
		for (size_t j = 0; j < n; j++)
			if (!is_digit(at(k + j)))
				return false;
		return true;
	};
	// MM-DD HH:MM:SS
	if (!(digits(i, 2) && at(i + 2) == '-' && digits(i + 3, 2) && at(i + 5) == ' ' && digits(i + 6, 2) &&
	      at(i + 8) == ':' && digits(i + 9, 2) && at(i + 11) == ':' && digits(i + 12, 2)))
		return 0;
	i += 14;
	if (at(i) == '.')
		for (i++; is_digit(at(i));)
			i++;
	if (at(i) != ' ')
		return 0;
	i++;
	if (at(i) == '[')
		i++;
	size_t name = i;
	while (isalnum(static_cast<unsigned char>(at(i))) || at(i) == '_' || at(i) == '.' || at(i) == '-' || at(i) == '/')
		i++;
	if (i - name < 4 || s.substr(i - 3, 3) != ".py" || at(i) != ':')
		return 0;
	size_t num = ++i;
	while (is_digit(at(i)))
		i++;
	if (i == num || at(i) != ']')
		return 0;
	i++;
	if (at(i) == ' ')
		i++;
	return i;
}

// "rank3: ..." leading the line: a launcher's or logger's rank label (a
// counter's word and digits, never a host name).
bool rank_label(std::string_view s, size_t &len, int &rank)
{
	size_t i = 0;
	if (s.size() < 7 || (s.substr(0, 4) != "rank" && s.substr(0, 4) != "Rank" && s.substr(0, 4) != "RANK"))
		return false;
	i = 4;
	if (s[i] == '=')
		i++;
	size_t d = i;
	while (i < s.size() && is_digit(s[i]) && i - d < 7)
		i++;
	long long v;
	if (i == d || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ' || !parse_uint(s.substr(d, i - d), v))
		return false;
	rank = static_cast<int>(v);
	len = i + 2;
	return true;
}

// A collector's ISO stamp leading the line ("2026-07-14 15:39:31.043 +08:00 ",
// kubectl's "2026-07-14T07:39:31.043219Z "), with its space: its length, or 0.
size_t collector_stamp(std::string_view s)
{
	auto d = [&](size_t i) { return i < s.size() && is_digit(s[i]); };
	if (s.size() < 21 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
		return 0;
	for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
		if (!d(i))
			return 0;
	size_t i = 19;
	if (i < s.size() && (s[i] == '.' || s[i] == ',') && d(i + 1))
		for (i++; d(i); i++) {
		}
	if (i < s.size() && s[i] == 'Z')
		i++;
	size_t z = i < s.size() && s[i] == ' ' ? i + 1 : i;
	if (z < s.size() && (s[z] == '+' || s[z] == '-') && d(z + 1) && d(z + 2)) {
		size_t m = z + 3 < s.size() && s[z + 3] == ':' ? z + 4 : z + 3;
		if (d(m) && d(m + 1) && !d(m + 2))
			i = m + 2;
	}
	return i < s.size() && s[i] == ' ' ? i + 1 : 0;
}

// A cloud log stream's line (gcloud's stream-logs of a Vertex AI or AI
// Platform job): "SEVERITY<TAB>2024-04-22 16:10:03 +0000<TAB>replica<TAB>
// <TAB>text", its tabs read as spaces. The replica (workerpool1-2,
// master-replica-0) is the writer's machine, none for the platform's own
// "service"; the length covers the fields and the blanks after them, or 0.
size_t cloud_stream_fields(std::string_view s, std::string_view &replica)
{
	static const std::string_view severities[] = {"DEFAULT", "DEBUG", "INFO",  "NOTICE",   "WARNING",
						      "ERROR",   "CRITICAL", "ALERT", "EMERGENCY"};
	size_t p = s.find(' ');
	if (p == std::string_view::npos || p > 9)
		return 0;
	bool known = false;
	for (std::string_view w : severities)
		known = known || s.substr(0, p) == w;
	// Then "YYYY-MM-DD HH:MM:SS +ZZZZ ".
	const std::string_view shape = " dddd-dd-dd dd:dd:dd +dddd ";
	if (!known || s.size() < p + shape.size())
		return 0;
	for (size_t k = 0; k < shape.size(); k++) {
		const char c = s[p + k], want = shape[k];
		if (want == 'd' ? !is_digit(c) : want == '+' ? c != '+' && c != '-' : c != want)
			return 0;
	}
	p += shape.size();
	size_t end = s.find(' ', p);
	if (end == std::string_view::npos || end == p || end - p > 64)
		return 0;
	replica = s.substr(p, end - p);
	// (The platform's own lines: "service", no machine.)
	if (replica == "service")
		replica = {};
	while (end < s.size() && s[end] == ' ')
		end++;
	return end;
}

// A syslog line passed into a job's output (rsyslog forwarding, a log
// viewer, a pasted journal): "<stamp> <host> <tag>[pid]: text", where the
// stamp is BSD's "Dec 17 16:03:58" (a fraction, 'Z' or a zone may follow)
// or RFC 3339's. The host is the writer's; the length covers the stamp
// and the host with its space (the tag stays in the body), or 0.
size_t syslog_host(std::string_view s, std::string_view &host)
{
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	auto d = [&](size_t i) { return i < s.size() && is_digit(s[i]); };
	size_t i = 0;
	bool bsd = false;
	for (const char *m : months)
		if (s.size() > 16 && s.substr(0, 3) == m && s[3] == ' ')
			bsd = true;
	if (bsd) {
		i = 4;
		if (s[i] == ' ')
			i++;
		if (!d(i))
			return 0;
		i += d(i + 1) ? 2 : 1;
		if (i + 9 > s.size() || s[i] != ' ' || !d(i + 1) || !d(i + 2) || s[i + 3] != ':' || !d(i + 4) ||
		    !d(i + 5) || s[i + 6] != ':' || !d(i + 7) || !d(i + 8))
			return 0;
		i += 9;
		if (i < s.size() && (s[i] == '.' || s[i] == ',') && d(i + 1))
			for (i++; d(i); i++) {
			}
		if (i < s.size() && s[i] == 'Z')
			i++;
		else if (i + 6 <= s.size() && (s[i] == '+' || s[i] == '-') && d(i + 1) && d(i + 2))
			for (i++; i < s.size() && (d(i) || s[i] == ':'); i++) {
			}
		if (i >= s.size() || s[i] != ' ')
			return 0;
		i++;
	} else if (size_t t = collector_stamp(s); t > 0) {
		i = t;
	} else {
		return 0;
	}
	size_t sp = s.find(' ', i);
	if (sp == std::string_view::npos || sp == i)
		return 0;
	std::string_view tok = s.substr(i, sp - i);
	if (!(hostname_like(tok) || is_ipv4(tok)) || counter_word(tok))
		return 0;
	// The tag: a program's name, its pid in brackets, then a colon (BSD
	// stamps: the colon may be missing, as some forwarders drop it).
	size_t j = sp + 1, k = j;
	while (k < s.size() && (isalnum(static_cast<unsigned char>(s[k])) || s[k] == '-' || s[k] == '_' || s[k] == '.' ||
				s[k] == '/'))
		k++;
	if (k == j || !isalpha(static_cast<unsigned char>(s[j])))
		return 0;
	if (k < s.size() && s[k] == '[') {
		size_t close = s.find(']', k);
		if (close == std::string_view::npos || close - k > 12)
			return 0;
		k = close + 1;
	}
	bool colon = k < s.size() && s[k] == ':';
	if (!colon && !(bsd && k < s.size() && s[k] == ' '))
		return 0;
	host = tok;
	return sp + 1;
}

} // namespace

line_identity parse_prefix(std::string_view line)
{
	line_identity id;
	std::string_view s = line;
	if (size_t t = stream_tag(s); t > 0)
		s = s.substr(t);
	// Where a pdsh host prefix just ended: another right there is the
	// machine the first relayed (pdsh run from a node that ran pdsh,
	// "10.4.80.11: 10.4.71.112: RuntimeError ..."), the line's writer.
	const char *relayed_at = nullptr;
	for (int round = 0; round < 8; round++) {
		s = skip_spaces(s);
		if (s.empty())
			break;
		size_t len = 0;
		int num = -1;
		if (round == 0)
			if (size_t t = ctime_before_tag(s); t > 0) {
				s = s.substr(t);
				continue;
			}
		if (round == 0 && id.host.empty())
			if (std::string_view h; size_t t = cloud_stream_fields(s, h)) {
				id.host = h;
				s = s.substr(t);
				continue;
			}
		if (round == 0 && id.host.empty())
			if (std::string_view h; size_t t = syslog_host(s, h)) {
				id.host = h;
				s = s.substr(t);
				break;
			}
		// A collector's stamp before a launcher's or NCCL's own prefix
		// ("<stamp> [default0]:[rank8]:", "<stamp> h100-41:238:1313 [0] "):
		// the prefix after it names the writer. (The stamp stays the line's
		// time: find_timestamp reads it from the whole line.)
		if (round == 0)
			if (size_t t = collector_stamp(s); t > 0 && t < s.size()) {
				line_identity probe = parse_prefix(s.substr(t));
				if (probe.body.data() != s.data() + t)
					return probe;
			}
		if (id.rank < 0 && rank_label(s, len, num)) {
			id.rank = num;
			s = s.substr(len);
			continue;
		}
		// srun --label: "  12: "
		if (is_digit(s[0])) {
			size_t i = 0;
			while (i < s.size() && is_digit(s[i]))
				i++;
			if (i <= 6 && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ' && id.task < 0 && id.rank < 0) {
				long long v;
				if (parse_uint(s.substr(0, i), v)) {
					id.task = static_cast<int>(v);
					s = s.substr(i + 2);
					continue;
				}
			}
		}
		if (s[0] == '[') {
			if (bracket_number(s, "rank", len, num) || bracket_number(s, "RANK ", len, num) ||
			    bracket_number(s, "rank=", len, num) ||
			    bracket_number(s, "RANK=", len, num)) {
				// "[Rank 3] Watchdog ..." is left in the body: the
				// signatures capture it.
				if (id.rank < 0)
					id.rank = num;
				s = s.substr(len);
				if (s.size() >= 3 && s.substr(0, 3) == " ||")
					s = s.substr(3);
				continue;
			}
			// A script's own label of its Slurm task ("[SLURM_PROCID=5]
			// iteration 74: ..."): srun's task, as --label gives it.
			if (bracket_number(s, "SLURM_PROCID=", len, num)) {
				if (id.task < 0)
					id.task = num;
				s = s.substr(len);
				continue;
			}
			if (id.rank < 0 && mpi_output_tag(s, len, num)) {
				id.rank = num;
				s = s.substr(len);
				continue;
			}
			// kubectl logs --prefix: "[pod/NAME/CONTAINER] ": the pod is
			// the writer's host.
			if (round == 0 && id.host.empty() && s.substr(0, 5) == "[pod/") {
				size_t slash = s.find('/', 5), close = s.find("] ");
				if (slash != std::string_view::npos && close != std::string_view::npos && slash < close &&
				    close < 300 && slash > 5) {
					id.host = s.substr(5, slash - 5);
					s = s.substr(close + 2);
					continue;
				}
			}
			if (id.host.empty() && id.pid <= 0)
				if (std::string_view h; opal_host_pid(s, h, num, len)) {
					id.host = h;
					id.pid = num;
					s = s.substr(len);
					continue;
				}
			// (Its index keys the writer as a pid would: one process.)
			if (round == 0 && id.host.empty() && id.pid <= 0)
				if (std::string_view h; host_index_tag(s, h, num, len)) {
					id.host = h;
					id.pid = num;
					s = s.substr(len);
					continue;
				}
			// A launcher's "[gpu-d05] " host tag leading the line (a name
			// with digits, as hosts have; not a device or a counter).
			if (round == 0 && id.host.empty() && host_tag(s, len)) {
				id.host = s.substr(1, len - 3);
				s = s.substr(len);
				continue;
			}
			if (bracket_number(s, "default", len, num)) {
				id.local_rank = num;
				s = s.substr(len);
				continue;
			}
			// Determined: "[2024-02-27T21:35:28.705869Z] fa88a9df [rank=1] || "
			if (s.size() > 24 && is_digit(s[1]) && s[5] == '-') {
				size_t close = s.find("] ");
				if (close != std::string_view::npos && close < 40) {
					std::string_view after = s.substr(close + 2);
					size_t sp = after.find(' ');
					if (sp != std::string_view::npos && sp <= 16 && sp + 1 < after.size() &&
					    after.substr(sp + 1, 6) == "[rank=") {
						s = after.substr(sp + 1);
						continue;
					}
					// The agent's own lines carry no rank: "[<time>] fa88a9df || ".
					if (sp != std::string_view::npos && sp <= 16 && after.substr(sp + 1, 3) == "|| ") {
						s = after.substr(sp + 4);
						continue;
					}
				}
			}
		}
		// Ray: "(RayWorkerWrapper pid=92234, ip=10.0.0.5) ", and a node's
		// own daemons with no pid: "(raylet, ip=10.0.0.5) ".
		if (s[0] == '(') {
			size_t close = s.find(") ");
			size_t p = s.find("pid=");
			size_t daemon_ip = s.find(", ip=");
			bool daemon = close != std::string_view::npos && daemon_ip != std::string_view::npos && daemon_ip < close &&
				      s.substr(1, daemon_ip - 1).find_first_of(" =") == std::string_view::npos;
			if (close != std::string_view::npos && close < 120 &&
			    ((p != std::string_view::npos && p < close) || daemon)) {
				size_t e = p + 4;
				while (p < close && e < close && is_digit(s[e]))
					e++;
				long long v;
				if (p < close && parse_uint(s.substr(p + 4, e - p - 4), v))
					id.pid = static_cast<int>(v);
				size_t ip = s.find("ip=");
				if (ip != std::string_view::npos && ip < close) {
					size_t ie = ip + 3;
					while (ie < close && s[ie] != ',' && s[ie] != ')')
						ie++;
					id.host = s.substr(ip + 3, ie - ip - 3);
				}
				id.ray_actor = true;
				s = s.substr(close + 2);
				continue;
			}
		}
		if (!id.nccl && nccl_prefix(s, id, len)) {
			s = s.substr(len);
			continue;
		}
		if (size_t t = level_time_source_prefix(s); t > 0 && t < s.size()) {
			s = s.substr(t);
			continue;
		}
		// pdsh / DeepSpeed host prefix: "192.168.13.81: " or "node01: [rank3]..."
		size_t colon = s.find(": ");
		if (colon != std::string_view::npos && colon > 0 && colon <= 63 && (id.host.empty() || s.data() == relayed_at)) {
			std::string_view tok = s.substr(0, colon);
			std::string_view after = s.substr(colon + 2);
			// pdsh passes a traceback through as "node048: Traceback ...",
			// "node048:   File ...", "node048: KeyError: 3": a name that
			// ends in digits, as hosts do and exception names never.
			// So are a dotted exception name ("gpu-d05: torch.OutOfMemoryError: ...")
			// and a native crash's banner ("node012: *** SIGSEGV", "terminate called"),
			// after a name that is no counter ("rank3: ...").
			bool host_then_text = !after.empty() && islower(static_cast<unsigned char>(tok[0])) &&
					      is_digit(tok.back()) &&
					      (isupper(static_cast<unsigned char>(after[0])) || after[0] == ' ' ||
					       (!counter_word(tok) && crash_text(after)));
			// pdsh passing NCCL's own prefix through: "gpu-m04: gpu-m04:3300:3420 [3] NCCL WARN ...".
			line_identity probe;
			size_t nlen = 0;
			bool host_then_nccl = !id.nccl && hostname_like(tok) && !after.empty() && isalpha(static_cast<unsigned char>(after[0])) &&
					      nccl_prefix(after, probe, nlen);
			size_t rlen;
			int rnum;
			bool host_then_rank = !counter_word(tok) && rank_label(after, rlen, rnum);
			if (is_ipv4(tok) ||
			    (hostname_like(tok) && !after.empty() &&
			     (after[0] == '[' || is_digit(after[0]) || host_then_text || host_then_rank)) ||
			    host_then_nccl) {
				id.host = tok;
				s = after;
				relayed_at = s.data();
				continue;
			}
		}
		break;
	}
	id.body = s;
	return id;
}

void prefix_hosts::learn(std::string_view seg, const line_identity &id)
{
	// (A bound: a log of thousands of nodes keeps its first 1024.)
	if (id.host.empty() || hosts_.size() >= 1024 || id.host.data() < seg.data())
		return;
	size_t end = static_cast<size_t>(id.host.data() - seg.data()) + id.host.size();
	if (end + 1 >= seg.size() || seg[end] != ':' || seg[end + 1] != ' ')
		return; // NCCL's "host:pid:tid", Ray's "ip=": no pdsh prefix
	// (Kept sorted: every line of a pdsh log asks, a binary search answers.)
	auto at = std::lower_bound(hosts_.begin(), hosts_.end(), id.host,
				   [](const std::string &h, std::string_view v) { return std::string_view(h) < v; });
	if (at != hosts_.end() && *at == id.host)
		return;
	hosts_.emplace(at, id.host);
}

void prefix_hosts::apply(line_identity &id) const
{
	if (hosts_.empty() || !id.host.empty())
		return;
	size_t colon = id.body.find(": ");
	if (colon == std::string_view::npos || colon == 0 || colon > 63)
		return;
	std::string_view tok = id.body.substr(0, colon);
	if (!std::binary_search(hosts_.begin(), hosts_.end(), tok,
				[](std::string_view a, std::string_view b) { return a < b; }))
		return;
	line_identity rest = parse_prefix(id.body.substr(colon + 2));
	id.host = tok;
	id.body = rest.body;
	if (id.task < 0)
		id.task = rest.task;
	if (id.rank < 0)
		id.rank = rest.rank;
	if (id.local_rank < 0)
		id.local_rank = rest.local_rank;
	if (id.pid < 0)
		id.pid = rest.pid;
	if (id.cuda_dev < 0)
		id.cuda_dev = rest.cuda_dev;
	id.nccl = id.nccl || rest.nccl;
	id.ray_actor = id.ray_actor || rest.ray_actor;
}

line_identity identify(std::string_view seg, bool kernel_log)
{
	if (!kernel_log)
		return parse_prefix(seg);
	line_identity id;
	id.body = seg;
	return id;
}

// The writer of a line, as the readers key it: a rank, else a task label,
// else a local rank, else a pid, else the host a prefix names (pdsh's
// "10.0.3.22: ": one node's unlabelled output, not another's); 0 for
// unprefixed lines, anyone's.
constexpr uint64_t host_writer_kind = 5;

uint64_t writer_ident(const line_identity &id)
{
	if (id.rank >= 0)
		return (1ull << 40) | static_cast<uint64_t>(id.rank);
	if (id.task >= 0)
		return (2ull << 40) | static_cast<uint64_t>(id.task);
	if (id.local_rank >= 0)
		return (3ull << 40) | static_cast<uint64_t>(id.local_rank);
	if (id.pid >= 0)
		return (4ull << 40) | static_cast<uint64_t>(id.pid);
	if (id.host.empty())
		return 0;
	uint64_t h = 1469598103934665603ull; // FNV-1a
	for (char c : id.host)
		h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
	return (host_writer_kind << 40) | (h & ((1ull << 40) - 1));
}

bool host_writer(uint64_t ident)
{
	return (ident >> 40) == host_writer_kind;
}

} // namespace diag
