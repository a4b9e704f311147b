#include "reading/source_sniff.hh"
#include "reading/sacct_reader.hh"

#include "reading/line_prefix.hh"
#include "reading/text_clean.hh"
#include "reading/timestamp.hh"

#include <cctype>
#include <cstring>
#include <vector>

namespace diag {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "[ 1234.567890]": the kernel's seconds since boot.
bool kmsg_seconds(std::string_view in)
{
	size_t i = 0;
	while (i < in.size() && in[i] == ' ')
		i++;
	bool num = i < in.size();
	for (size_t k = i; k < in.size(); k++)
		if (!isdigit(static_cast<unsigned char>(in[k])) && in[k] != '.')
			num = false;
	return num && in.find('.') != std::string_view::npos;
}

bool kernelish(std::string_view l)
{
	if (l.find(" kernel: ") != std::string_view::npos || l.find("NVRM:") != std::string_view::npos)
		return true;
	// A kernel message a collector stamped and forwarded (netconsole or
	// rsyslog: "2025-03-16T21:05:44.918+00:00 gn023 [173438.162931] ..."):
	// a date, a host, then the kernel's own seconds since boot.
	if (l.size() > 30 && isdigit(static_cast<unsigned char>(l[0])) && l[4] == '-' && l[7] == '-') {
		size_t host = l.find(' ');
		size_t open = host == std::string_view::npos ? host : l.find(' ', host + 1);
		if (open != std::string_view::npos && open < 80 && open + 1 < l.size() && l[open + 1] == '[') {
			size_t close = l.find(']', open + 2);
			if (close != std::string_view::npos && close - open < 24 &&
			    kmsg_seconds(l.substr(open + 2, close - open - 2)))
				return true;
		}
	}
	// raw kmsg "[ 1234.567890] " or dmesg -T "[Mon Feb  2 22:52:45 2026] "
	if (l.size() > 14 && l[0] == '[') {
		size_t close = l.find(']');
		if (close != std::string_view::npos && close < 32) {
			std::string_view in = l.substr(1, close - 1);
			if (kmsg_seconds(in))
				return true;
			static const char *days[] = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "};
			for (const char *d : days)
				if (starts_with(in, d))
					return true;
		}
	}
	return false;
}

// A machine's system journal line (journalctl without -k, /var/log/syslog
// or messages): "<time> <host> <program>[<pid>]: <text>", the time ISO
// ("2025-11-04T11:18:20+0900") or syslog's ("Nov  4 11:18:20"). A node's
// record like its kernel's, whichever daemon wrote the line.
bool journalish(std::string_view l)
{
	auto is_word = [](char c) {
		return isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/' || c == '@';
	};
	size_t i = 0;
	if (l.size() > 20 && isdigit(static_cast<unsigned char>(l[0])) && l[4] == '-' && l[7] == '-' && l[10] == 'T') {
		i = l.find(' ');
		if (i == std::string_view::npos)
			return false;
	} else if (l.size() > 16 && isupper(static_cast<unsigned char>(l[0])) && l[3] == ' ' && l[9] == ':' && l[12] == ':') {
		i = 15;
	} else {
		return false;
	}
	while (i < l.size() && l[i] == ' ')
		i++;
	size_t host = i;
	while (i < l.size() && is_word(l[i]))
		i++;
	if (i == host || i >= l.size() || l[i] != ' ')
		return false;
	size_t prog = ++i;
	while (i < l.size() && is_word(l[i]))
		i++;
	if (i == prog || i >= l.size())
		return false;
	if (l[i] == '[') {
		size_t pid = ++i;
		while (i < l.size() && isdigit(static_cast<unsigned char>(l[i])))
			i++;
		if (i == pid || i >= l.size() || l[i] != ']')
			return false;
		i++;
	}
	return i + 1 < l.size() && l[i] == ':' && l[i + 1] == ' ';
}

} // namespace

sniff_result sniff_source(std::string_view head)
{
	sniff_result r;
	if (head.empty())
		return r;
	unsigned char c0 = static_cast<unsigned char>(head[0]);
	if (c0 == 0x80 && head.size() > 1 && head[1] >= 2 && head[1] <= 5) {
		r.what = sniffed::fr_pickle;
		r.kind = source_kind::fr_dump;
		return r;
	}
	// Text has no NULs and few control bytes besides tabs, newlines and
	// ANSI escapes. A crashed writer leaves a few NULs, or a hole: a run
	// of them where the file system had not yet written the data (a node
	// that died mid-write). Holes are passed over, and the first 4 KiB
	// that are not hole decide.
	constexpr size_t hole_run = line_cleaner::hole_run;
	size_t nul = 0, ctrl = 0, n = 0, run = 0;
	for (size_t i = 0; i < head.size() && n < 4096; i++) {
		unsigned char c = static_cast<unsigned char>(head[i]);
		if (c == 0) {
			run++;
			continue;
		}
		if (run && run < hole_run) {
			nul += run;
			n += run;
		}
		run = 0;
		n++;
		if (c < 0x09 || (c > 0x0d && c < 0x20 && c != 0x1b) || c == 0x7f)
			ctrl++;
	}
	if (run && run < hole_run) {
		nul += run;
		n += run;
	}
	if (n == 0 || nul * 32 > n || (nul + ctrl) * 8 > n) {
		r.what = sniffed::binary;
		return r;
	}
	size_t i = 0;
	while (i < head.size() && isspace(static_cast<unsigned char>(head[i])))
		i++;
	if (i < head.size() && head[i] == '{') {
		r.what = sniffed::json;
		return r;
	}
	// Line statistics over the first lines.
	std::vector<std::string_view> lines;
	size_t start = 0;
	while (start < head.size() && lines.size() < 200) {
		size_t nl = head.find('\n', start);
		if (nl == std::string_view::npos)
			break; // the last partial line tells little
		std::string_view l = head.substr(start, nl - start);
		if (!l.empty() && l.back() == '\r')
			l.remove_suffix(1);
		if (!l.empty())
			lines.push_back(l);
		start = nl + 1;
	}
	if (lines.empty() && start < head.size())
		lines.push_back(head.substr(start));
	// (sacct's table pasted under the command that printed it.)
	const size_t table_at = !lines.empty() && sacct_command_line(lines[0]) ? 1 : 0;
	if (lines.size() > table_at) {
		std::string first(lines[table_at].substr(0, 64));
		for (auto &ch : first)
			ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
		if (starts_with(first, "jobid|") || starts_with(first, "jobidraw|") ||
		    (lines.size() > table_at + 1 && sacct_table_header(lines[table_at], lines[table_at + 1]))) {
			r.what = sniffed::sacct_text;
			r.kind = source_kind::sacct_text;
			return r;
		}
	}
	size_t kern = 0, nccl = 0;
	for (auto l : lines) {
		if (kernelish(l) || journalish(l))
			kern++;
		line_identity id = parse_prefix(l);
		if (id.nccl && id.rank < 0 && id.task < 0)
			nccl++;
	}
	r.what = sniffed::text;
	if (!lines.empty() && kern * 2 >= lines.size())
		r.kind = source_kind::kernel_log;
	// NCCL_DEBUG_FILE holds NCCL's lines alone; a job's output with
	// NCCL_DEBUG=INFO opens with them too (all but a few on a large job),
	// among its own banners and launcher lines, and stays a job log.
	else if (!lines.empty() && nccl == lines.size())
		r.kind = source_kind::nccl_log;
	else
		r.kind = source_kind::job_log;
	return r;
}

std::string host_from_path(const std::string &path)
{
	static const char *skip_words[] = {"log", "txt", "out", "err", "json", "kern", "kernel", "dmesg", "journal",
					   "syslog", "messages", "nccl", "stdout", "stderr", "gz"};
	auto candidate = [&](std::string tok) -> std::string {
		for (const char *w : skip_words) {
			size_t n = strlen(w);
			if (tok.size() > n + 1 && tok.compare(0, n, w) == 0 && (tok[n] == '-' || tok[n] == '_'))
				tok = tok.substr(n + 1);
		}
		bool digit = false, alpha = false;
		for (char c : tok) {
			if (isdigit(static_cast<unsigned char>(c)))
				digit = true;
			else if (isalpha(static_cast<unsigned char>(c)))
				alpha = true;
			else if (c != '-' && c != '_')
				return "";
		}
		if (!digit || !alpha || tok.size() > 63)
			return "";
		for (const char *w : skip_words)
			if (tok == w)
				return "";
		// "rank3", "attempt_0", "job123" name no host.
		static const char *not_hosts[] = {"rank", "attempt", "job", "step", "task", "default", "fr"};
		for (const char *w : not_hosts)
			if (tok.compare(0, strlen(w), w) == 0)
				return "";
		return tok;
	};
	size_t slash = path.rfind('/');
	std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
	size_t s = 0;
	while (s <= name.size()) {
		size_t dot = name.find('.', s);
		std::string tok = name.substr(s, dot == std::string::npos ? std::string::npos : dot - s);
		std::string h = candidate(tok);
		if (!h.empty())
			return h;
		if (dot == std::string::npos)
			break;
		s = dot + 1;
	}
	if (slash != std::string::npos && slash > 0) {
		size_t prev = path.rfind('/', slash - 1);
		std::string dir = path.substr(prev == std::string::npos ? 0 : prev + 1,
					      slash - (prev == std::string::npos ? 0 : prev + 1));
		return candidate(dir);
	}
	return "";
}

// "<writer>.<host>.<ext>": a name of three parts or more whose first is a
// word (what wrote it) and a middle one a host (letters and digits). Only
// the middle parts are looked at: "worker-0.log" or "train-3701784-2.out"
// name a task's output, not a node.
std::string host_from_node_log_name(const std::string &name)
{
	std::vector<std::string> parts;
	size_t s = 0;
	while (true) {
		size_t dot = name.find('.', s);
		parts.push_back(name.substr(s, dot == std::string::npos ? std::string::npos : dot - s));
		if (dot == std::string::npos)
			break;
		s = dot + 1;
	}
	if (parts.size() < 3 || parts[0].empty() ||
	    std::any_of(parts[0].begin(), parts[0].end(), [](char c) { return !isalpha(static_cast<unsigned char>(c)) && c != '-' && c != '_'; }))
		return "";
	for (size_t i = 1; i + 1 < parts.size(); i++) {
		std::string h = host_from_path(parts[i]);
		if (!h.empty())
			return h;
	}
	return "";
}

} // namespace diag
