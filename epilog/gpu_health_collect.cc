#include "gpu_health_collect.hh"

#include "bounded_child.hh"

#include <curl/curl.h>
#include <jansson.h>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

namespace denpex::epilog {

namespace {

const char *const fields[] = {"DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
			      "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_RETIRED_PENDING"};

// Host names go into a PromQL regex: only the characters a node name has.
bool plain_host(const std::string &h)
{
	if (h.empty() || h.size() > 253)
		return false;
	for (char c : h)
		if (!(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'))
			return false;
	return true;
}

struct sink {
	std::string data;
	size_t max = 4u << 20;
};

size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	sink &s = *static_cast<sink *>(ud);
	size_t len = size * n;
	if (s.data.size() + len > s.max)
		return 0; // aborts the transfer
	s.data.append(p, len);
	return len;
}

std::string esc_label(const std::string &v)
{
	std::string o;
	for (char c : v) {
		if (c == '\\' || c == '"')
			o += '\\';
		if (c == '\n') {
			o += "\\n";
			continue;
		}
		o += c;
	}
	return o;
}

} // namespace

bool run_tool(const std::string &path, const std::vector<std::string> &args, uid_t uid, gid_t gid,
	      double timeout_s, size_t max_bytes, std::string &out, std::string &err)
{
	struct stat st;
	if (path.empty() || path[0] != '/' || stat(path.c_str(), &st) != 0) {
		err = path + ": not found";
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) || !(st.st_mode & 0111)) {
		err = path + ": not a root-owned executable that only root may change";
		return false;
	}
	int p[2];
	if (timeout_s <= 0 || pipe2(p, O_CLOEXEC) != 0) {
		err = path + ": no time left";
		return false;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		err = std::string("fork: ") + strerror(errno);
		return false;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(p[1], 1) < 0 || dup2(devnull, 2) < 0)
			_exit(126);
		setpgid(0, 0);
		if (setgroups(0, nullptr) != 0 && getuid() == 0)
			_exit(126);
		if (setgid(gid) != 0 || setuid(uid) != 0)
			_exit(126);
		std::vector<char *> argv;
		argv.push_back(const_cast<char *>(path.c_str()));
		for (const auto &a : args)
			argv.push_back(const_cast<char *>(a.c_str()));
		argv.push_back(nullptr);
		char env_path[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
		char env_lang[] = "LC_ALL=C";
		char *envp[] = {env_path, env_lang, nullptr};
		execve(path.c_str(), argv.data(), envp);
		_exit(127);
	}
	close(p[1]);
	out.clear();
	bool eof = read_pipe_bounded(p[0], mono_now() + timeout_s, max_bytes, out);
	close(p[0]);
	int status = 0;
	// At EOF the tool is about to exit; one that lingers is killed too.
	if (!reap_child(pid, !eof, 2.0, &status) && eof) {
		reap_child(pid, true, 1.0, &status);
		eof = false;
	}
	if (!eof) {
		err = path + ": no answer within " + std::to_string(static_cast<int>(std::ceil(timeout_s))) + " s; killed";
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		err = path + ": exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		// dcgmi and nvidia-smi print what they know even when they fail.
		return !out.empty();
	}
	return true;
}

std::string prometheus_dcgm_series(const std::string &base_url, const std::vector<std::string> &hosts, time_t start,
				   time_t end, double timeout_s, std::string &err)
{
	if (base_url.rfind("http://", 0) != 0 && base_url.rfind("https://", 0) != 0) {
		err = "prometheus_url must start with http:// or https://";
		return "";
	}
	std::string re;
	for (const auto &h : hosts)
		if (plain_host(h))
			re += (re.empty() ? "" : "|") + h;
	if (re.empty()) {
		err = "no host names to ask Prometheus about";
		return "";
	}
	long window = std::max<long>(60, static_cast<long>(end - start) + 60);
	double until = mono_now() + timeout_s;
	CURL *c = curl_easy_init();
	if (!c) {
		err = "libcurl: init failed";
		return "";
	}
	std::string text;
	for (const char *field : fields) {
		double left = until - mono_now();
		if (left < 0.2) {
			err = "Prometheus: out of time";
			break;
		}
		std::string q = std::string("max_over_time(") + field + "{Hostname=~\"" + re + "\"}[" +
				std::to_string(window) + "s])";
		char *eq = curl_easy_escape(c, q.c_str(), static_cast<int>(q.size()));
		std::string url = base_url + (base_url.back() == '/' ? "" : "/") + "api/v1/query?query=" + (eq ? eq : "") +
				  "&time=" + std::to_string(static_cast<long long>(end));
		curl_free(eq);
		sink s;
		curl_easy_reset(c);
		curl_easy_setopt(c, CURLOPT_URL, url.c_str());
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, std::max(100L, std::min(3000L, static_cast<long>(left * 1000))));
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, std::max(100L, static_cast<long>(left * 1000)));
		curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
#if LIBCURL_VERSION_NUM >= 0x075500
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
		CURLcode rc = curl_easy_perform(c);
		long code = 0;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (rc != CURLE_OK || code != 200) {
			err = std::string("Prometheus: ") + (rc != CURLE_OK ? curl_easy_strerror(rc) : "HTTP " + std::to_string(code));
			break;
		}
		json_error_t je;
		json_t *root = json_loadb(s.data.data(), s.data.size(), 0, &je);
		json_t *res = json_object_get(json_object_get(root, "data"), "result");
		if (!json_is_array(res)) {
			err = "Prometheus: not a query API answer";
			json_decref(root);
			break;
		}
		size_t i;
		json_t *r;
		json_array_foreach(res, i, r) {
			json_t *val = json_array_get(json_object_get(r, "value"), 1);
			if (!json_is_string(val))
				continue;
			std::string line = field;
			line += "{";
			const char *k;
			json_t *v;
			bool firstl = true;
			json_object_foreach(json_object_get(r, "metric"), k, v) {
				if (!json_is_string(v) || !strcmp(k, "__name__"))
					continue;
				line += std::string(firstl ? "" : ",") + k + "=\"" + esc_label(json_string_value(v)) + "\"";
				firstl = false;
			}
			line += std::string("} ") + json_string_value(val) + "\n";
			text += line;
		}
		json_decref(root);
	}
	curl_easy_cleanup(c);
	return text;
}

} // namespace denpex::epilog
