#include "safe_read.hh"

#include "bounded_child.hh"

#include <dirent.h>
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
#include <cstring>
#include <vector>

namespace denpex::epilog {

namespace {

// Child → parent records. Native byte order: both ends are this program.
constexpr char rec_file = 'F';
constexpr char rec_skip = 'S';
constexpr char rec_end = 'E';
constexpr char rec_lines = 'L'; // after a cut file: its line counts
constexpr uint64_t max_count_bytes = 1ull << 30; // newlines counted in a cut middle
constexpr size_t chunk_size = 64 * 1024;
constexpr size_t name_max = 4096;

// ---- child side -----------------------------------------------------------

bool write_all(int fd, const void *p, size_t n)
{
	const char *c = static_cast<const char *>(p);
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		c += w;
		n -= static_cast<size_t>(w);
	}
	return true;
}

bool put_str(int fd, const std::string &s)
{
	uint32_t n = static_cast<uint32_t>(s.size());
	return write_all(fd, &n, sizeof(n)) && write_all(fd, s.data(), n);
}

bool put_skip(int fd, const std::string &name, const std::string &why)
{
	return write_all(fd, &rec_skip, 1) && put_str(fd, name) && put_str(fd, why);
}

bool put_chunk(int fd, const char *p, uint32_t n)
{
	return write_all(fd, &n, sizeof(n)) && (n == 0 || write_all(fd, p, n));
}

// Copies up to limit bytes from fd to out as chunks; false only when out
// fails (a short file just ends the copy).
bool copy_chunks(int out, int fd, uint64_t limit, int64_t *newlines = nullptr)
{
	static char buf[chunk_size];
	uint64_t done = 0;
	while (done < limit) {
		size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof(buf), limit - done));
		ssize_t r = read(fd, buf, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (!put_chunk(out, buf, static_cast<uint32_t>(r)))
			return false;
		if (newlines)
			for (ssize_t i = 0; i < r; i++)
				*newlines += buf[i] == '\n';
		done += static_cast<uint64_t>(r);
	}
	return true;
}

// Newlines in [off, end) of fd; -1 when there is too much to count.
int64_t count_newlines(int fd, uint64_t off, uint64_t end)
{
	if (end - off > max_count_bytes)
		return -1;
	static char buf[chunk_size];
	int64_t n = 0;
	while (off < end) {
		ssize_t r = pread(fd, buf, static_cast<size_t>(std::min<uint64_t>(sizeof(buf), end - off)),
				  static_cast<off_t>(off));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
		off += static_cast<uint64_t>(r);
	}
	return n;
}

// Copies [off, off + len) of fd as chunks without its NUL bytes (the zeros
// that pad a sparse file's data blocks would make the copy look binary).
bool copy_range_text(int out, int fd, uint64_t off, uint64_t len)
{
	static char buf[chunk_size];
	while (len > 0) {
		size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof(buf), len));
		ssize_t r = pread(fd, buf, want, static_cast<off_t>(off));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t n = 0;
		for (ssize_t i = 0; i < r; i++)
			if (buf[i] != '\0')
				buf[n++] = buf[i];
		if (n > 0 && !put_chunk(out, buf, static_cast<uint32_t>(n)))
			return false;
		off += static_cast<uint64_t>(r);
		len -= static_cast<uint64_t>(r);
	}
	return true;
}

// A sparse file's data only (a user's `truncate -s 16M` costs no staging):
// its data extents, all of them up to cap bytes, else those of the head and
// of the tail, with a marker where something was left out.
bool send_sparse(int out, int fd, uint64_t size, uint64_t cap)
{
	std::vector<std::pair<uint64_t, uint64_t>> ext; // offset, length
	uint64_t data = 0;
	for (off_t pos = 0; static_cast<uint64_t>(pos) < size && ext.size() < 100000;) {
		off_t d = lseek(fd, pos, SEEK_DATA);
		if (d < 0)
			break; // ENXIO: only a hole is left
		off_t h = lseek(fd, d, SEEK_HOLE);
		if (h <= d || static_cast<uint64_t>(h) > size)
			h = static_cast<off_t>(size);
		ext.push_back({static_cast<uint64_t>(d), static_cast<uint64_t>(h - d)});
		data += static_cast<uint64_t>(h - d);
		pos = h;
	}
	uint64_t head = data <= cap ? cap : cap / 2, tail = data <= cap ? 0 : cap - head;
	std::vector<std::pair<uint64_t, uint64_t>> send;
	uint64_t sent = 0;
	size_t i = 0;
	for (; i < ext.size() && sent < head; i++) {
		uint64_t take = std::min(ext[i].second, head - sent);
		send.push_back({ext[i].first, take});
		sent += take;
		if (take < ext[i].second) {
			ext[i].first += take;
			ext[i].second -= take;
			break;
		}
	}
	std::vector<std::pair<uint64_t, uint64_t>> back;
	for (size_t j = ext.size(); j > i && tail > 0;) {
		j--;
		uint64_t take = std::min(ext[j].second, tail);
		back.push_back({ext[j].first + ext[j].second - take, take});
		tail -= take;
	}
	send.insert(send.end(), back.rbegin(), back.rend());
	uint64_t at = 0;
	auto mark = [&](uint64_t n) {
		std::string m = "\n[denpex-epilog: " + std::to_string(n) + " bytes omitted]\n";
		return put_chunk(out, m.data(), static_cast<uint32_t>(m.size()));
	};
	for (const auto &seg : send) {
		if (seg.first > at && at > 0 && !mark(seg.first - at))
			return false;
		if (!copy_range_text(out, fd, seg.first, seg.second))
			return false;
		at = seg.first + seg.second;
	}
	if (size > at && !mark(size - at))
		return false;
	return put_chunk(out, nullptr, 0);
}

// Streams at most cap bytes of an open regular file: all of it, or its head
// and tail with a marker line between; of a sparse file only its data.
bool send_fd(int out, int fd, const std::string &name, uint64_t size, uint64_t cap, bool sparse)
{
	if (!write_all(out, &rec_file, 1) || !put_str(out, name) || !write_all(out, &size, sizeof(size)))
		return false;
	if (sparse)
		return send_sparse(out, fd, size, cap);
	uint64_t head = size <= cap ? cap : cap / 2;
	int64_t head_lines = 0;
	if (!copy_chunks(out, fd, head, &head_lines))
		return false;
	if (size <= cap)
		return put_chunk(out, nullptr, 0);
	uint64_t tail = cap - head;
	std::string mark = "\n[denpex-epilog: " + std::to_string(size - head - tail) + " bytes omitted]\n";
	if (!put_chunk(out, mark.data(), static_cast<uint32_t>(mark.size())))
		return false;
	if (lseek(fd, static_cast<off_t>(size - tail), SEEK_SET) >= 0 && !copy_chunks(out, fd, tail))
		return false;
	if (!put_chunk(out, nullptr, 0))
		return false;
	int64_t omitted = count_newlines(fd, head, size - tail);
	return write_all(out, &rec_lines, 1) && put_str(out, name) && write_all(out, &head_lines, sizeof(head_lines)) &&
	       write_all(out, &omitted, sizeof(omitted));
}

// Opens name (relative to dirfd, or absolute) without following a final
// symlink and without blocking on a FIFO or device.
int open_nofollow(int dirfd, const char *name, int extra)
{
	return openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | extra);
}

std::string errno_reason(int e)
{
	if (e == ELOOP)
		return "is a symbolic link (not followed)";
	return strerror(e);
}

struct walker {
	int out;
	uint64_t cap;
	unsigned max_files;
	unsigned max_depth;
	unsigned files = 0;

	bool send_path(int dirfd, const char *name, const std::string &rel)
	{
		int fd = open_nofollow(dirfd, name, 0);
		if (fd < 0)
			return put_skip(out, rel, errno_reason(errno));
		struct stat st;
		if (fstat(fd, &st) != 0) {
			int e = errno;
			close(fd);
			return put_skip(out, rel, strerror(e));
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			return put_skip(out, rel, S_ISDIR(st.st_mode)	  ? "is a directory"
						  : S_ISFIFO(st.st_mode) ? "is a FIFO"
									 : "not a regular file");
		}
		// Regular file: blocking reads from here on (the alarm bounds them).
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		bool sparse = static_cast<uint64_t>(st.st_blocks) * 512 < static_cast<uint64_t>(st.st_size);
		bool ok = send_fd(out, fd, rel, static_cast<uint64_t>(st.st_size), cap, sparse);
		close(fd);
		return ok;
	}

	bool walk(int dirfd, const std::string &prefix, unsigned depth)
	{
		int dup_fd = dup(dirfd);
		if (dup_fd < 0)
			return put_skip(out, prefix, strerror(errno));
		DIR *d = fdopendir(dup_fd);
		if (!d) {
			close(dup_fd);
			return put_skip(out, prefix, strerror(errno));
		}
		bool ok = true;
		struct dirent *de;
		while (ok && (de = readdir(d)) != nullptr) {
			std::string n = de->d_name;
			// The plugin's root-owned markers: read by the epilog as root
			// (spool_trust), not evidence.
			if (n == "." || n == ".." || n.rfind(".denpex-node.", 0) == 0)
				continue;
			std::string rel = prefix.empty() ? n : prefix + "/" + n;
			if (rel.size() > name_max - 1)
				continue;
			if (++files > max_files) {
				ok = put_skip(out, rel, "too many files; rest skipped");
				break;
			}
			int sub = open_nofollow(dirfd, de->d_name, O_DIRECTORY);
			if (sub >= 0) {
				if (depth + 1 > max_depth)
					ok = put_skip(out, rel, "directory too deep");
				else
					ok = walk(sub, rel, depth + 1);
				close(sub);
				continue;
			}
			ok = send_path(dirfd, de->d_name, rel);
		}
		closedir(d);
		return ok;
	}
};

void close_other_fds(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		if (fd != keep)
			close(fd);
}

[[noreturn]] void child_main(int out, const std::string &src, bool tree, const user_cred &cred,
			     const read_limits &lim)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	close_other_fds(out);
	alarm(lim.timeout_s + 1);
	if (cred.drop) {
		if (setgroups(0, nullptr) != 0 || setgid(cred.gid) != 0 || setuid(cred.uid) != 0 ||
		    getuid() != cred.uid || geteuid() != cred.uid || getegid() != cred.gid) {
			put_skip(out, src, "cannot drop privileges to the job user");
			_exit(3);
		}
		// Root could regain root; anyone else must not.
		if (cred.uid != 0 && setuid(0) == 0)
			_exit(4);
	}
	walker w{out, lim.max_bytes_per_file, lim.max_files, lim.max_depth};
	bool ok;
	if (tree) {
		int d = open_nofollow(AT_FDCWD, src.c_str(), O_DIRECTORY);
		if (d < 0)
			ok = put_skip(out, "", errno == ENOTDIR ? "not a directory (or a symbolic link)"
								: errno_reason(errno));
		else
			ok = w.walk(d, "", 0);
	} else {
		ok = w.send_path(AT_FDCWD, src.c_str(), "");
	}
	if (ok)
		write_all(out, &rec_end, 1);
	_exit(0);
}

// ---- parent side ----------------------------------------------------------

struct reader {
	int fd;
	double deadline;
	bool timed_out = false;

	bool get(void *p, size_t n)
	{
		bool late = false;
		bool ok = read_pipe_exact(fd, p, n, deadline, &late);
		timed_out = timed_out || late;
		return ok;
	}

	bool get_str(std::string &s, size_t max)
	{
		uint32_t n;
		if (!get(&n, sizeof(n)) || n > max)
			return false;
		s.resize(n);
		return n == 0 || get(&s[0], n);
	}
};

std::string join(const std::string &a, const std::string &b)
{
	if (a.empty())
		return b;
	if (b.empty())
		return a;
	return a + "/" + b;
}

bool safe_relpath(const std::string &rel)
{
	if (rel.empty() || rel.size() >= name_max || rel[0] == '/')
		return false;
	size_t start = 0;
	while (start <= rel.size()) {
		size_t end = rel.find('/', start);
		if (end == std::string::npos)
			end = rel.size();
		if (!safe_component(rel.substr(start, end - start)))
			return false;
		start = end + 1;
	}
	return true;
}

// Creates dst_dirfd/rel for writing; -1 and errno when it exists or is unsafe.
int create_dst(int dst_dirfd, const std::string &rel)
{
	size_t slash = rel.rfind('/');
	int dfd = dst_dirfd;
	bool own = false;
	if (slash != std::string::npos) {
		dfd = open_subdir(dst_dirfd, rel.substr(0, slash), true);
		if (dfd < 0)
			return -1;
		own = true;
	}
	std::string base = slash == std::string::npos ? rel : rel.substr(slash + 1);
	int fd = openat(dfd, base.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int e = errno;
	if (own)
		close(dfd);
	errno = e;
	return fd;
}

void run_child(const std::string &src, bool tree, const user_cred &cred, const read_limits &lim,
	       int dst_dirfd, const std::string &dst_prefix, copy_report &rep)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		rep.skipped.push_back({src, std::string("pipe: ") + strerror(errno)});
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		rep.skipped.push_back({src, std::string("fork: ") + strerror(errno)});
		return;
	}
	if (pid == 0) {
		close(p[0]);
		child_main(p[1], src, tree, cred, lim);
	}
	close(p[1]);
	reader rd{p[0], mono_now() + lim.timeout_s};
	std::string stop_reason;
	uint64_t file_cap = lim.max_bytes_per_file + 128; // room for the marker line
	std::vector<char> buf(chunk_size);
	size_t copied = 0;
	for (;;) {
		char type;
		if (!rd.get(&type, 1)) {
			stop_reason = rd.timed_out ? "timed out reading after " + std::to_string(copied) + " files in " +
							     std::to_string(lim.timeout_s) + " s (a hung file system, or too many files)"
						   : "reader ended early";
			break;
		}
		if (type == rec_end)
			break;
		std::string name;
		if (!rd.get_str(name, name_max)) {
			stop_reason = "bad record from reader";
			break;
		}
		std::string shown = tree ? join(src, name) : src;
		if (type == rec_skip) {
			std::string why;
			if (!rd.get_str(why, 1024)) {
				stop_reason = "bad record from reader";
				break;
			}
			rep.skipped.push_back({shown, why});
			continue;
		}
		if (type == rec_lines) {
			int64_t h, m;
			if (!rd.get(&h, sizeof(h)) || !rd.get(&m, sizeof(m))) {
				stop_reason = "bad record from reader";
				break;
			}
			// Only for a copy this side did not cut further (byte budget).
			if (!rep.files.empty() && rep.files.back().src == shown && rep.files.back().bytes > 0 &&
			    !rep.files.back().budget_cut) {
				rep.files.back().head_lines = h;
				rep.files.back().omitted_lines = m;
			}
			continue;
		}
		if (type != rec_file) {
			stop_reason = "bad record from reader";
			break;
		}
		uint64_t size;
		if (!rd.get(&size, sizeof(size))) {
			stop_reason = "bad record from reader";
			break;
		}
		std::string rel = tree ? join(dst_prefix, name) : dst_prefix;
		int out = -1;
		std::string why_not;
		if (!safe_relpath(rel))
			why_not = "unsafe file name";
		else if (lim.budget && *lim.budget == 0)
			why_not = "total byte cap reached";
		else if ((out = create_dst(dst_dirfd, rel)) < 0)
			why_not = errno == EEXIST ? "already collected" : std::string("cannot create copy: ") + strerror(errno);
		copied_file cf{shown, rel, size, 0, false};
		bool broken = false;
		for (;;) {
			uint32_t n;
			if (!rd.get(&n, sizeof(n)) || n > chunk_size) {
				broken = true;
				break;
			}
			if (n == 0)
				break;
			if (!rd.get(buf.data(), n)) {
				broken = true;
				break;
			}
			if (out < 0)
				continue;
			uint64_t room = file_cap - cf.bytes;
			if (lim.budget && *lim.budget < room)
				room = *lim.budget;
			uint64_t w = std::min<uint64_t>(room, n);
			if (w < n)
				cf.truncated = cf.budget_cut = true;
			if (w > 0 && write_all(out, buf.data(), static_cast<size_t>(w))) {
				cf.bytes += w;
				if (lim.budget)
					*lim.budget -= w;
			}
		}
		if (size > lim.max_bytes_per_file)
			cf.truncated = true;
		// No fsync: the staging copies live for one epilog run (close() is
		// enough for a shared NFS state dir), and 10,000 fsyncs would spend
		// the read timeout.
		if (out >= 0) {
			copied++;
			close(out);
			if (broken)
				cf.truncated = cf.budget_cut = true;
			rep.files.push_back(cf);
		} else {
			rep.skipped.push_back({shown, why_not});
		}
		if (broken) {
			stop_reason = rd.timed_out ? "timed out reading after " + std::to_string(copied) + " files in " +
							     std::to_string(lim.timeout_s) + " s (a hung file system, or too many files)"
						   : "reader ended early";
			break;
		}
	}
	close(p[0]);
	// A reader that said it was done exits at once (let it: a tool such as
	// valgrind sees it end); one that did not may be stuck in the kernel:
	// never block on it, kill it and reap briefly.
	int status;
	if (!stop_reason.empty() || !reap_child(pid, false, 1.0, &status))
		reap_child(pid, true, 0.5, &status);
	if (!stop_reason.empty())
		rep.skipped.push_back({src, stop_reason});
}

} // namespace

bool safe_component(const std::string &name)
{
	return !name.empty() && name != "." && name != ".." && name.size() < 256 &&
	       name.find('/') == std::string::npos && name.find('\0') == std::string::npos;
}

int open_subdir(int dirfd, const std::string &rel, bool create)
{
	int cur = dup(dirfd);
	if (cur < 0)
		return -1;
	size_t start = 0;
	while (start < rel.size()) {
		size_t end = rel.find('/', start);
		if (end == std::string::npos)
			end = rel.size();
		std::string comp = rel.substr(start, end - start);
		start = end + 1;
		if (comp.empty())
			continue;
		if (!safe_component(comp)) {
			close(cur);
			errno = EINVAL;
			return -1;
		}
		if (create && mkdirat(cur, comp.c_str(), 0700) != 0 && errno != EEXIST) {
			int e = errno;
			close(cur);
			errno = e;
			return -1;
		}
		int next = openat(cur, comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(cur);
		if (next < 0) {
			errno = e;
			return -1;
		}
		cur = next;
	}
	return cur;
}

user_cred cred_for_job(uid_t uid, gid_t gid)
{
	user_cred c;
	if (geteuid() != 0) {
		c.uid = geteuid();
		c.gid = getegid();
		c.drop = false;
	} else {
		c.uid = uid;
		c.gid = gid;
		c.drop = true;
	}
	return c;
}

void safe_copy_file(const std::string &src, const user_cred &cred, const read_limits &lim,
		    int dst_dirfd, const std::string &dst_name, copy_report &rep)
{
	run_child(src, false, cred, lim, dst_dirfd, dst_name, rep);
}

void safe_copy_tree(const std::string &src_dir, const user_cred &cred, const read_limits &lim,
		    int dst_dirfd, const std::string &dst_prefix, copy_report &rep)
{
	run_child(src_dir, true, cred, lim, dst_dirfd, dst_prefix, rep);
}

} // namespace denpex::epilog
