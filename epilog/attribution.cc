#include "attribution.hh"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace denpex::epilog {

namespace {

// The numbers that follow each occurrence of key in text (blanks between allowed).
std::vector<long> numbers_after(const std::string &text, const char *key)
{
	std::vector<long> out;
	size_t klen = strlen(key);
	for (size_t p = text.find(key); p != std::string::npos && out.size() < 64; p = text.find(key, p + klen)) {
		size_t q = p + klen;
		while (q < text.size() && (text[q] == ' ' || text[q] == '\t') && q - p - klen < 8)
			q++;
		if (q >= text.size() || !isdigit(static_cast<unsigned char>(text[q])))
			continue;
		out.push_back(strtol(text.c_str() + q, nullptr, 10));
	}
	return out;
}

bool contains(const std::vector<long> &v, long x)
{
	return std::find(v.begin(), v.end(), x) != v.end();
}

bool is_hex(char c)
{
	return isxdigit(static_cast<unsigned char>(c)) != 0;
}

// Bus ids after "PCI:" (Xid, SXid) and in "GPU 0000:3b:00.0" forms.
std::vector<std::string> bus_ids_in(const std::string &text)
{
	std::vector<std::string> out;
	for (const char *key : {"PCI:", "GPU ", "pci "}) {
		size_t klen = strlen(key);
		for (size_t p = text.find(key); p != std::string::npos && out.size() < 16;
		     p = text.find(key, p + klen)) {
			size_t q = p + klen, e = q;
			while (e < text.size() && (is_hex(text[e]) || text[e] == ':' || text[e] == '.') && e - q < 24)
				e++;
			std::string b = normalize_bus_id(text.substr(q, e - q));
			if (!b.empty())
				out.push_back(b);
		}
	}
	return out;
}

} // namespace

std::string normalize_bus_id(const std::string &s)
{
	std::vector<std::string> parts;
	std::string cur;
	for (char c : s) {
		if (c == ':') {
			parts.push_back(cur);
			cur.clear();
		} else if (c == '.') {
			break; // the PCI function: every GPU function is the same device
		} else if (is_hex(c)) {
			cur += static_cast<char>(tolower(static_cast<unsigned char>(c)));
		} else {
			return "";
		}
	}
	parts.push_back(cur);
	if (parts.size() == 2)
		parts.insert(parts.begin(), "0000");
	if (parts.size() != 3 || parts[0].empty() || parts[0].size() > 8 || parts[1].size() != 2 ||
	    parts[2].size() != 2)
		return "";
	std::string dom = parts[0];
	if (dom.size() > 4)
		dom = dom.substr(dom.size() - 4);
	while (dom.size() < 4)
		dom = "0" + dom;
	return dom + ":" + parts[1] + ":" + parts[2];
}

bool kernel_line_is_jobs(const std::string &text, double t, const job_scope &scope)
{
	bool after_start = scope.start <= 0 || t >= scope.start;
	std::vector<long> jobs = numbers_after(text, "/job_");
	if (!jobs.empty())
		return contains(jobs, static_cast<long>(scope.job_id));
	std::vector<std::string> buses = bus_ids_in(text);
	if (!buses.empty() && !scope.gpu_buses.empty()) {
		for (const std::string &b : buses)
			if (std::find(scope.gpu_buses.begin(), scope.gpu_buses.end(), b) != scope.gpu_buses.end())
				return true;
		return false;
	}
	if (after_start && !scope.pids.empty()) {
		for (const char *key : {"pid=", "PID:", "Killed process", "Kill process", "reaped process"})
			for (long p : numbers_after(text, key))
				if (contains(scope.pids, p))
					return true;
	}
	// Root's processes are every job's neighbours: a root job gets only what
	// its cgroup, pids or GPUs name.
	if (after_start && scope.uid != 0 && scope.uid != static_cast<uid_t>(-1)) {
		for (const char *key : {"uid=", "UID:"})
			for (long u : numbers_after(text, key))
				if (u == static_cast<long>(scope.uid))
					return true;
	}
	return false;
}

std::vector<std::string> gpu_buses_of(const std::string &proc_dir, const std::string &minors)
{
	std::vector<long> want;
	for (size_t p = 0; p < minors.size();) {
		if (isdigit(static_cast<unsigned char>(minors[p]))) {
			char *end;
			want.push_back(strtol(minors.c_str() + p, &end, 10));
			p = static_cast<size_t>(end - minors.c_str());
		} else {
			p++;
		}
	}
	std::vector<std::string> out;
	if (want.empty())
		return out;
	DIR *d = opendir(proc_dir.c_str());
	if (!d)
		return out;
	unsigned n = 0;
	while (struct dirent *de = readdir(d)) {
		if (de->d_name[0] == '.' || ++n > 1024)
			continue;
		std::string bus = normalize_bus_id(de->d_name);
		if (bus.empty())
			continue;
		std::string info = proc_dir + "/" + de->d_name + "/information";
		int fd = open(info.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		char buf[4096];
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		for (long m : numbers_after(buf, "Device Minor:"))
			if (contains(want, m))
				out.push_back(bus);
	}
	closedir(d);
	return out;
}

} // namespace denpex::epilog
