#include "worker_record.hh"

#include <cstdlib>

namespace denpex::epilog {

std::string worker_record::str(const std::string &name) const
{
	auto it = fields_.find(name);
	return it == fields_.end() ? std::string() : it->second;
}

long long worker_record::int_of(const std::string &name) const
{
	auto it = fields_.find(name);
	return it == fields_.end() ? 0 : strtoll(it->second.c_str(), nullptr, 10);
}

bool worker_record::bool_of(const std::string &name) const
{
	return str(name) == "1";
}

std::string worker_record::encode() const
{
	std::string o;
	for (const auto &[k, v] : fields_)
		o += std::to_string(k.size()) + ":" + k + std::to_string(v.size()) + ":" + v;
	return o;
}

namespace {

bool take(const std::string &s, size_t &i, std::string &out)
{
	size_t colon = s.find(':', i);
	if (colon == std::string::npos || colon == i || colon - i > 12)
		return false;
	for (size_t k = i; k < colon; k++)
		if (s[k] < '0' || s[k] > '9')
			return false;
	size_t n = strtoull(s.c_str() + i, nullptr, 10);
	if (n > s.size() - colon - 1)
		return false;
	out = s.substr(colon + 1, n);
	i = colon + 1 + n;
	return true;
}

} // namespace

std::optional<worker_record> worker_record::decode(const std::string &bytes)
{
	worker_record r;
	size_t i = 0;
	while (i < bytes.size()) {
		std::string k, v;
		if (!take(bytes, i, k) || !take(bytes, i, v))
			return std::nullopt;
		r.fields_[k] = v;
	}
	return r;
}

std::string encode_job_info(const job_info &j)
{
	worker_record r;
	r.put_bool("loaded", true);
	r.put("state", j.state);
	r.put("reason", j.reason);
	r.put_int("exit_code", j.exit_code);
	r.put_int("derived_ec", j.derived_ec);
	r.put("comment", j.comment);
	r.put("admin_comment", j.admin_comment);
	r.put("std_out", j.std_out);
	r.put("std_err", j.std_err);
	r.put("work_dir", j.work_dir);
	r.put("name", j.name);
	r.put("batch_host", j.batch_host);
	r.put("nodes", j.nodes);
	r.put_int("start", static_cast<long long>(j.start));
	r.put_int("end", static_cast<long long>(j.end));
	r.put_int("array_job_id", j.array_job_id);
	r.put_int("array_task_id", j.array_task_id);
	r.put_int("restart_cnt", j.restart_cnt);
	r.put_int("uid", j.uid);
	r.put_int("gid", j.gid);
	r.put_bool("exclusive", j.exclusive);
	return r.encode();
}

bool decode_job_info(const std::string &bytes, job_info &j, std::string &err)
{
	auto r = worker_record::decode(bytes);
	if (!r) {
		err = "garbled answer from the slurmctld worker";
		return false;
	}
	if (!r->bool_of("loaded")) {
		err = r->has("error") ? r->str("error") : "garbled answer from the slurmctld worker";
		return false;
	}
	auto u32 = [&](const char *n) { return static_cast<uint32_t>(r->int_of(n)); };
	j.loaded = true;
	j.state = r->str("state");
	j.reason = r->str("reason");
	j.exit_code = u32("exit_code");
	j.derived_ec = u32("derived_ec");
	j.comment = r->str("comment");
	j.admin_comment = r->str("admin_comment");
	j.std_out = r->str("std_out");
	j.std_err = r->str("std_err");
	j.work_dir = r->str("work_dir");
	j.name = r->str("name");
	j.batch_host = r->str("batch_host");
	j.nodes = r->str("nodes");
	j.start = static_cast<time_t>(r->int_of("start"));
	j.end = static_cast<time_t>(r->int_of("end"));
	j.array_job_id = u32("array_job_id");
	j.array_task_id = u32("array_task_id");
	j.restart_cnt = u32("restart_cnt");
	j.uid = static_cast<uid_t>(r->int_of("uid"));
	j.gid = static_cast<gid_t>(r->int_of("gid"));
	j.exclusive = r->bool_of("exclusive");
	return true;
}

} // namespace denpex::epilog
