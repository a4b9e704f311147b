// Flight-recorder dump decoding. Both formats become one pickle_value tree
// first (JSON is mapped onto it), so a single schema decoder serves both and
// the two cannot drift apart.
#include "fr/fr_dump.hh"

#include <jansson.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace diag {

namespace {

bool as_int(const pickle_value *v, int64_t &out)
{
	if (!v)
		return false;
	switch (v->kind) {
	case pickle_kind::integer:
		out = v->i;
		return true;
	case pickle_kind::boolean:
		out = v->b;
		return true;
	case pickle_kind::floating:
		// Only finite values that fit: a NaN or 1e300 would be UB to cast.
		if (!(v->f > -9.2e18 && v->f < 9.2e18))
			return false;
		out = static_cast<int64_t>(v->f);
		return true;
	case pickle_kind::string: {
		// The JSON pg_status writes numbers as strings.
		std::string_view s = v->s;
		while (!s.empty() && s.front() == ' ')
			s.remove_prefix(1);
		int64_t x;
		auto r = std::from_chars(s.data(), s.data() + s.size(), x);
		if (r.ec != std::errc() || r.ptr != s.data() + s.size())
			return false;
		out = x;
		return true;
	}
	default:
		return false;
	}
}

bool as_str(const pickle_value *v, std::string &out)
{
	if (!v || (v->kind != pickle_kind::string && v->kind != pickle_kind::bytes))
		return false;
	out = v->s;
	return true;
}

bool as_bool(const pickle_value *v, bool &out)
{
	int64_t x;
	if (!as_int(v, x))
		return false;
	out = x != 0;
	return true;
}

void get_int(const pickle_value &d, const char *key, int64_t &out)
{
	int64_t x;
	if (as_int(d.get(key), x))
		out = x;
}

void get_str(const pickle_value &d, const char *key, std::string &out)
{
	as_str(d.get(key), out);
}

// "[0, 1, 2]" (or a real list) -> sorted, unique ranks.
bool parse_ranks(const pickle_value *v, std::vector<int> &out)
{
	out.clear();
	if (!v)
		return false;
	if (v->is_seq()) {
		for (const pickle_value &e : v->items) {
			int64_t x;
			if (!as_int(&e, x) || x < 0 || x > INT32_MAX)
				return false;
			out.push_back(static_cast<int>(x));
		}
	} else if (v->is_str()) {
		std::string_view s = v->s;
		size_t k = 0;
		while (k < s.size()) {
			char c = s[k];
			if (c == '[' || c == ']' || c == ',' || c == ' ' || c == '\t' || c == '\n') {
				k++;
				continue;
			}
			int x = -1;
			auto r = std::from_chars(s.data() + k, s.data() + s.size(), x);
			if (r.ec != std::errc() || x < 0)
				return false;
			out.push_back(x);
			k = static_cast<size_t>(r.ptr - s.data());
		}
	} else {
		return false;
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return !out.empty();
}

void parse_sizes(const pickle_value *v, std::vector<std::vector<int64_t>> &out)
{
	if (!v || !v->is_seq())
		return;
	for (const pickle_value &shape : v->items) {
		std::vector<int64_t> dims;
		if (shape.is_seq()) {
			for (const pickle_value &d : shape.items) {
				int64_t x = 0;
				as_int(&d, x);
				dims.push_back(x);
			}
		}
		out.push_back(std::move(dims));
	}
}

void parse_strs(const pickle_value *v, std::vector<std::string> &out)
{
	if (!v || !v->is_seq())
		return;
	for (const pickle_value &e : v->items) {
		std::string s;
		as_str(&e, s);
		out.push_back(std::move(s));
	}
}

bool looks_p2p(std::string_view name)
{
	return name.find("send") != std::string_view::npos ||
	       name.find("recv") != std::string_view::npos;
}

fr_entry parse_entry(const pickle_value &e)
{
	fr_entry r;
	get_int(e, "record_id", r.record_id);
	get_int(e, "pg_id", r.pg_id);
	if (const pickle_value *pg = e.get("process_group")) {
		if (pg->is_seq()) {
			if (pg->items.size() > 0)
				as_str(&pg->items[0], r.pg_name);
			if (pg->items.size() > 1)
				as_str(&pg->items[1], r.pg_desc);
		} else {
			as_str(pg, r.pg_name);
		}
	}
	get_int(e, "collective_seq_id", r.collective_seq_id);
	get_int(e, "p2p_seq_id", r.p2p_seq_id);
	get_int(e, "op_id", r.op_id);
	get_str(e, "profiling_name", r.profiling_name);
	get_int(e, "time_created_ns", r.time_created_ns);
	parse_sizes(e.get("input_sizes"), r.input_sizes);
	parse_sizes(e.get("output_sizes"), r.output_sizes);
	parse_strs(e.get("input_dtypes"), r.input_dtypes);
	parse_strs(e.get("output_dtypes"), r.output_dtypes);
	get_int(e, "time_discovered_started_ns", r.time_discovered_started_ns);
	get_int(e, "time_discovered_completed_ns", r.time_discovered_completed_ns);
	std::string st;
	get_str(e, "state", st);
	if (st == "scheduled")
		r.state = fr_state::scheduled;
	else if (st == "started")
		r.state = fr_state::started;
	else if (st == "completed")
		r.state = fr_state::completed;
	else if (r.time_discovered_completed_ns > 0)
		r.state = fr_state::completed; // older dumps: state follows the timestamps
	else if (r.time_discovered_started_ns > 0)
		r.state = fr_state::started;
	as_bool(e.get("retired"), r.retired);
	get_int(e, "timeout_ms", r.timeout_ms);
	if (!as_bool(e.get("is_p2p"), r.is_p2p))
		r.is_p2p = looks_p2p(r.profiling_name);
	if (const pickle_value *d = e.get("duration_ms")) {
		if (d->kind == pickle_kind::floating)
			r.duration_ms = d->f;
		else if (d->kind == pickle_kind::integer)
			r.duration_ms = static_cast<double>(d->i);
	}
	get_int(e, "thread_id", r.thread_id);
	get_str(e, "thread_name", r.thread_name);
	if (const pickle_value *fr = e.get("frames"); fr && fr->is_seq()) {
		for (const pickle_value &f : fr->items) {
			if (!f.is_dict())
				continue;
			fr_frame x;
			get_str(f, "name", x.name);
			get_str(f, "filename", x.filename);
			get_int(f, "line", x.line);
			r.frames.push_back(std::move(x));
		}
	}
	return r;
}

// JSON -> the pickle value tree, bounded like the unpickler's expansion.
bool json_to_value(json_t *j, pickle_value &out, size_t depth, size_t &items,
		   const pickle_limits &lim, std::string &why)
{
	if (depth > lim.max_depth) {
		why = "JSON nested deeper than " + std::to_string(lim.max_depth);
		return false;
	}
	if (++items > lim.max_items) {
		why = "JSON has more than " + std::to_string(lim.max_items) + " values";
		return false;
	}
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		out.kind = pickle_kind::dict;
		out.items.reserve(json_object_size(j) * 2);
		const char *key;
		json_t *val;
		json_object_foreach(j, key, val) {
			pickle_value k;
			k.kind = pickle_kind::string;
			k.s = key;
			out.items.push_back(std::move(k));
			out.items.emplace_back();
			if (!json_to_value(val, out.items.back(), depth + 1, items, lim, why))
				return false;
		}
		return true;
	}
	case JSON_ARRAY: {
		out.kind = pickle_kind::list;
		out.items.resize(json_array_size(j));
		for (size_t k = 0; k < out.items.size(); k++)
			if (!json_to_value(json_array_get(j, k), out.items[k], depth + 1, items,
					   lim, why))
				return false;
		return true;
	}
	case JSON_STRING:
		out.kind = pickle_kind::string;
		out.s.assign(json_string_value(j), json_string_length(j));
		return true;
	case JSON_INTEGER:
		out.kind = pickle_kind::integer;
		out.i = json_integer_value(j);
		return true;
	case JSON_REAL:
		out.kind = pickle_kind::floating;
		out.f = json_real_value(j);
		return true;
	case JSON_TRUE:
	case JSON_FALSE:
		out.kind = pickle_kind::boolean;
		out.b = json_is_true(j);
		return true;
	case JSON_NULL:
		out.kind = pickle_kind::none;
		return true;
	}
	why = "unknown JSON type";
	return false;
}

bool is_pickle_head(std::string_view d)
{
	return d.size() >= 2 && static_cast<unsigned char>(d[0]) == 0x80 &&
	       static_cast<unsigned char>(d[1]) >= 2 && static_cast<unsigned char>(d[1]) <= 5;
}

size_t skip_ws(std::string_view d)
{
	size_t k = 0;
	// A UTF-8 byte order mark is tolerated like whitespace.
	if (d.substr(0, 3) == "\xef\xbb\xbf")
		k = 3;
	while (k < d.size() && (d[k] == ' ' || d[k] == '\t' || d[k] == '\n' || d[k] == '\r'))
		k++;
	return k;
}

} // namespace

std::string_view fr_state_name(fr_state s)
{
	switch (s) {
	case fr_state::unknown: return "unknown";
	case fr_state::scheduled: return "scheduled";
	case fr_state::started: return "started";
	case fr_state::completed: return "completed";
	}
	return "unknown";
}

const fr_pg_config *fr_dump::find_pg(std::string_view name) const
{
	for (const fr_pg_config &p : pg_config)
		if (p.name == name)
			return &p;
	for (const fr_pg_config &p : pg_config)
		if (p.key == name)
			return &p;
	return nullptr;
}

const fr_pg_status *fr_dump::find_status(int64_t pg_id) const
{
	std::string key = std::to_string(pg_id);
	for (const fr_pg_status &s : pg_status)
		if (s.pg_id == key)
			return &s;
	return nullptr;
}

std::optional<int> fr_rank_from_name(std::string_view path)
{
	size_t slash = path.find_last_of('/');
	std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
	for (std::string_view ext : {".json", ".pkl", ".pickle"}) {
		if (base.size() > ext.size() && base.substr(base.size() - ext.size()) == ext) {
			base.remove_suffix(ext.size());
			break;
		}
	}
	size_t end = base.size(), start = end;
	while (start > 0 && base[start - 1] >= '0' && base[start - 1] <= '9')
		start--;
	if (start == end || end - start > 9)
		return std::nullopt;
	int r = 0;
	std::from_chars(base.data() + start, base.data() + end, r);
	return r;
}

bool fr_sniff(std::string_view head)
{
	if (is_pickle_head(head)) {
		std::string_view rest = head.substr(2);
		if (!rest.empty() && static_cast<unsigned char>(rest[0]) == 0x95) // FRAME
			rest = rest.size() >= 9 ? rest.substr(9) : std::string_view();
		return !rest.empty() && (rest[0] == '}' || rest[0] == '(');
	}
	size_t k = skip_ws(head);
	if (k >= head.size() || head[k] != '{')
		return false;
	return head.find("\"pg_config\"") != std::string_view::npos ||
	       head.find("\"pg_status\"") != std::string_view::npos ||
	       (head.find("\"entries\"") != std::string_view::npos &&
		head.find("\"collective_seq_id\"") != std::string_view::npos);
}

fr_dump_result fr_dump_from_value(const pickle_value &v, std::string_view name,
				  const fr_load_options &opt)
{
	fr_dump_result res;
	if (!v.is_dict()) {
		res.error = std::string("top level is a ") + std::string(pickle_kind_name(v.kind)) +
			    ", not a dict";
		return res;
	}
	fr_dump d;
	d.path = std::string(name);
	get_str(v, "version", d.version);
	if (d.version.empty()) {
		d.warnings.push_back("no version key");
	} else if (d.version.rfind("2.", 0) != 0) {
		res.error = "unsupported flight-recorder version \"" + d.version + "\" (2.x expected)";
		return res;
	}
	if (!v.get("entries") && !v.get("pg_config") && !v.get("pg_status")) {
		res.error = "not a flight-recorder dump (no entries, pg_config or pg_status)";
		return res;
	}
	if (!as_str(v.get("comm_lib_version"), d.comm_lib_version))
		as_str(v.get("nccl_version"), d.comm_lib_version);

	if (const pickle_value *pc = v.get("pg_config"); pc && pc->is_dict()) {
		for (size_t k = 0; k + 1 < pc->items.size(); k += 2) {
			const pickle_value &key = pc->items[k], &val = pc->items[k + 1];
			fr_pg_config p;
			if (!as_str(&key, p.key)) {
				int64_t x;
				if (!as_int(&key, x))
					continue;
				p.key = std::to_string(x);
			}
			if (!val.is_dict())
				continue;
			if (!as_str(val.get("name"), p.name))
				p.name = p.key;
			get_str(val, "desc", p.desc);
			p.ranks_known = parse_ranks(val.get("ranks"), p.ranks);
			if (!p.ranks_known && val.get("ranks"))
				d.warnings.push_back("process group " + p.name + ": ranks not understood");
			d.pg_config.push_back(std::move(p));
		}
	}
	if (const pickle_value *ps = v.get("pg_status"); ps && ps->is_dict()) {
		for (size_t k = 0; k + 1 < ps->items.size(); k += 2) {
			const pickle_value &key = ps->items[k], &val = ps->items[k + 1];
			fr_pg_status s;
			if (!as_str(&key, s.pg_id)) {
				int64_t x;
				if (!as_int(&key, x))
					continue;
				s.pg_id = std::to_string(x);
			}
			if (!val.is_dict())
				continue;
			get_int(val, "last_enqueued_collective", s.last_enqueued);
			get_int(val, "last_started_collective", s.last_started);
			get_int(val, "last_completed_collective", s.last_completed);
			d.pg_status.push_back(std::move(s));
		}
	}
	if (const pickle_value *es = v.get("entries"); es && es->is_seq()) {
		size_t skipped = 0;
		for (const pickle_value &e : es->items) {
			if (!e.is_dict()) {
				skipped++;
				continue;
			}
			if (d.entries.size() >= opt.max_entries) {
				d.warnings.push_back("more than " + std::to_string(opt.max_entries) +
						     " entries: the oldest were kept");
				break;
			}
			d.entries.push_back(parse_entry(e));
		}
		if (skipped)
			d.warnings.push_back(std::to_string(skipped) + " entries were not dicts");
	}

	auto from_name = fr_rank_from_name(name);
	int64_t content_rank = -1;
	get_int(v, "rank", content_rank);
	if (content_rank >= 0 && content_rank <= INT32_MAX) {
		d.rank = static_cast<int>(content_rank);
		d.rank_source = "content";
		if (from_name && *from_name != d.rank)
			d.warnings.push_back("file name says rank " + std::to_string(*from_name) +
					     ", content says " + std::to_string(d.rank));
	} else if (from_name) {
		d.rank = *from_name;
		d.rank_source = "file name";
	}
	res.dump = std::move(d);
	return res;
}

fr_dump_result fr_parse_dump(std::string_view data, std::string_view name,
			     const fr_load_options &opt)
{
	fr_dump_result res;
	if (data.size() > opt.max_bytes) {
		res.error = "dump is larger than " + std::to_string(opt.max_bytes) + " bytes";
		return res;
	}
	if (is_pickle_head(data) || (!data.empty() && static_cast<unsigned char>(data[0]) == 0x80)) {
		pickle_result p = pickle_load(data, opt.limits);
		if (!p.ok()) {
			res.error = "pickle: " + p.error;
			return res;
		}
		res = fr_dump_from_value(p.value, name, opt);
		if (res.dump)
			res.dump->format = "pickle";
		return res;
	}
	size_t k = skip_ws(data);
	if (k < data.size() && data[k] == '{') {
		json_error_t jerr;
		json_t *j = json_loadb(data.data(), data.size(), JSON_ALLOW_NUL, &jerr);
		if (!j) {
			res.error = "JSON: " + std::string(jerr.text) + " at line " +
				    std::to_string(jerr.line) + ", column " + std::to_string(jerr.column);
			return res;
		}
		pickle_value v;
		size_t items = 0;
		std::string why;
		bool ok = json_to_value(j, v, 0, items, opt.limits, why);
		json_decref(j);
		if (!ok) {
			res.error = why;
			return res;
		}
		res = fr_dump_from_value(v, name, opt);
		if (res.dump)
			res.dump->format = "json";
		return res;
	}
	res.error = data.empty() ? "empty file" : "neither a pickle nor a JSON object";
	return res;
}

fr_dump_result fr_load_dump(const std::string &path, const fr_load_options &opt)
{
	fr_dump_result res;
	// O_NONBLOCK: the dump directory may hold the FIFO of
	// TORCH_NCCL_DEBUG_INFO_PIPE_FILE; opening it must not wait for a writer.
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (opt.no_follow ? O_NOFOLLOW : 0);
	int fd = open(path.c_str(), flags);
	if (fd < 0) {
		res.error = path + ": " + strerror(errno);
		return res;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		res.error = path + ": not a regular file";
		return res;
	}
	if (static_cast<uint64_t>(st.st_size) > opt.max_bytes) {
		close(fd);
		res.error = path + ": larger than " + std::to_string(opt.max_bytes) + " bytes";
		return res;
	}
	std::string buf;
	buf.resize(static_cast<size_t>(st.st_size) + 1);
	size_t got = 0;
	// Read to EOF, but never past the limit even if the file grows meanwhile.
	for (;;) {
		if (got == buf.size()) {
			if (buf.size() > opt.max_bytes)
				break;
			buf.resize(std::min(buf.size() * 2 + 4096, opt.max_bytes + 1));
		}
		ssize_t n = read(fd, &buf[got], buf.size() - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			res.error = path + ": " + strerror(errno);
			close(fd);
			return res;
		}
		if (n == 0)
			break;
		got += static_cast<size_t>(n);
	}
	close(fd);
	if (got > opt.max_bytes) {
		res.error = path + ": larger than " + std::to_string(opt.max_bytes) + " bytes";
		return res;
	}
	buf.resize(got);
	res = fr_parse_dump(buf, path, opt);
	if (!res.dump)
		res.error = path + ": " + res.error;
	return res;
}

} // namespace diag
