#include "comment_queue.hh"

#include "own_files.hh"
#include "report.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace denpex::epilog {

namespace {

std::string queue_dir(const std::string &state_dir)
{
	return state_dir + "/.queue";
}

// Length-prefixed fields: the verdict and the user's comment may hold anything.
std::string encode(const queued_comment &q)
{
	std::string o;
	for (const std::string &s : {std::to_string(q.job_id), q.cluster, std::string(q.admin ? "1" : "0"), q.verdict,
				     q.hint, q.report, std::to_string(static_cast<long long>(q.queued_at))})
		o += std::to_string(s.size()) + ":" + s;
	return o;
}

bool decode(const std::string &s, queued_comment &q)
{
	std::vector<std::string> v;
	size_t i = 0;
	while (i < s.size() && v.size() < 7) {
		size_t colon = s.find(':', i);
		if (colon == std::string::npos)
			return false;
		size_t n = strtoull(s.c_str() + i, nullptr, 10);
		if (colon + 1 + n > s.size())
			return false;
		v.push_back(s.substr(colon + 1, n));
		i = colon + 1 + n;
	}
	if (v.size() != 7)
		return false;
	q.job_id = static_cast<uint32_t>(strtoul(v[0].c_str(), nullptr, 10));
	q.cluster = v[1];
	q.admin = v[2] == "1";
	q.verdict = v[3];
	q.hint = v[4];
	q.report = v[5];
	q.queued_at = static_cast<time_t>(strtoll(v[6].c_str(), nullptr, 10));
	return q.job_id != 0 && !q.verdict.empty();
}

} // namespace

bool queue_put(const std::string &state_dir, const queued_comment &q, std::string &err)
{
	std::string dir = queue_dir(state_dir);
	if (!ensure_private_dir(dir, 0700, err))
		return false;
	return write_atomic(dir, std::to_string(q.job_id) + (q.admin ? ".admin_comment" : ".comment"), encode(q), 0600,
			    err);
}

std::vector<queued_comment> queue_list(const std::string &state_dir, size_t max)
{
	std::vector<queued_comment> out;
	std::string dir = queue_dir(state_dir);
	int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return out;
	struct stat dst;
	if (fstat(dfd, &dst) != 0 || dst.st_uid != geteuid() || (dst.st_mode & 077)) {
		close(dfd);
		return out;
	}
	auto ours = [](const struct stat &st) {
		return S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_size < 65536;
	};
	for (const std::string &name : dir_names(dfd, "", 10000, false)) {
		std::optional<std::string> text = read_own_file(dfd, name, 65536, ours);
		queued_comment q;
		if (text && decode(*text, q)) {
			q.name = name;
			out.push_back(q);
		}
	}
	close(dfd);
	std::sort(out.begin(), out.end(),
		  [](const queued_comment &a, const queued_comment &b) { return a.queued_at < b.queued_at; });
	if (out.size() > max)
		out.resize(max);
	return out;
}

void queue_drop(const std::string &state_dir, const std::string &name)
{
	if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
		return;
	unlink((queue_dir(state_dir) + "/" + name).c_str());
}

} // namespace denpex::epilog
