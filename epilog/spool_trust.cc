#include "spool_trust.hh"

#include "own_files.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace denpex::epilog {

namespace {

// "key=value" from a marker's first line.
bool field(const std::string &line, const char *key, unsigned long long &v)
{
	std::string k = std::string(" ") + key + "=";
	size_t p = line.find(k);
	if (p == std::string::npos)
		return false;
	const char *s = line.c_str() + p + k.size();
	char *end;
	v = strtoull(s, &end, 10);
	return end != s;
}

} // namespace

spool_check check_job_spool(const std::string &spool_base, uint32_t job_id, uid_t uid, uint32_t restart,
			    time_t job_start, const std::string &node)
{
	spool_check c;
	std::string name = std::to_string(job_id);
	std::string shown = spool_base + "/" + name;
	int sfd = open(spool_base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0) {
		c.why = spool_base + ": " + strerror(errno);
		return c;
	}
	int fd = openat(sfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	close(sfd);
	if (fd < 0) {
		c.why = shown + ": " + (e == ELOOP || e == ENOTDIR ? "not a directory (or a symbolic link)" : strerror(e));
		return c;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_uid != uid) {
		c.why = shown + ": owned by uid " + std::to_string(st.st_uid) + ", not the job's user " +
			std::to_string(uid) + "; not read";
		close(fd);
		return c;
	}
	c.dev = st.st_dev;
	c.ino = st.st_ino;
	std::string mine = std::string(spool_marker_prefix) + node;
	std::string reason = "no marker written by the plugin for this job";
	unsigned seen = 0;
	// Only root's single-link files are markers: a user can make any other.
	auto roots = [](const struct stat &ms) { return S_ISREG(ms.st_mode) && ms.st_uid == 0 && ms.st_nlink == 1; };
	// A job dir holds the user's files too (up to the plugin's cap): the
	// markers are looked for among the first 100,000 names.
	for (const std::string &entry : dir_names(fd, "", 100000)) {
		if (entry.rfind(spool_marker_prefix, 0) != 0 || ++seen > 4096)
			continue;
		std::optional<std::string> marker = read_own_file(fd, entry, 1u << 20, roots);
		if (!marker) {
			reason = entry + " not root's (forged?)";
			continue;
		}
		const std::string &text = *marker;
		std::string first = text.substr(0, text.find('\n'));
		unsigned long long j = 0, u = 0, rs = 0, ino = 0, t_ns = 0;
		if (first.rfind("denpex-spool 1 ", 0) != 0 || !field(first, "job", j) || !field(first, "uid", u) ||
		    !field(first, "restart", rs) || !field(first, "ino", ino) || !field(first, "time_ns", t_ns))
			continue;
		if (j != job_id || u != uid || ino != st.st_ino) {
			reason = entry + " is not for this job, user or directory";
			continue;
		}
		// Made before this run of the job: a leftover of an earlier run
		// or of an earlier job with the same id (a few seconds of clock
		// slack between slurmctld and this node).
		if (rs != restart || (job_start > 0 && static_cast<long long>(t_ns / 1000000000ULL) < job_start - 5)) {
			reason = "made before this run of the job (restart " + std::to_string(rs) + ")";
			continue;
		}
		c.ok = true;
		if (entry != mine) {
			c.other_nodes = true;
			continue;
		}
		unsigned long long mono_ns = 0;
		if (field(first, "mono_ns", mono_ns) && mono_ns > 0 && t_ns > mono_ns)
			c.boot_epoch_at_start = static_cast<double>(t_ns - mono_ns) / 1e9;
		for (size_t p = text.find("\npid="); p != std::string::npos && c.pids.size() < 100000;
		     p = text.find("\npid=", p + 5))
			c.pids.push_back(strtol(text.c_str() + p + 5, nullptr, 10));
	}
	close(fd);
	if (!c.ok)
		c.why = shown + ": " + reason + "; not read";
	return c;
}

bool same_job_spool(const std::string &spool_base, uint32_t job_id, const spool_check &c)
{
	std::string p = spool_base + "/" + std::to_string(job_id);
	struct stat st;
	return lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == c.dev && st.st_ino == c.ino;
}

} // namespace denpex::epilog
