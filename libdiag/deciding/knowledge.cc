#include "deciding/knowledge.hh"

#include "config/yaml_doc.hh"

#include <algorithm>

#include <unistd.h>

namespace diag {

namespace {

// A file's top-level list under key, or null with err saying it is missing.
const ynode *top_list(const ynode &doc, const std::string &path, const char *key, std::string &err)
{
	const ynode *l = doc.get(key);
	if (!l || l->kind != ynode::sequence) {
		err = path + ": missing '" + key + "' list";
		return nullptr;
	}
	return l;
}

std::string scalar(const ynode *n)
{
	return n && n->is_scalar() ? n->value : std::string();
}

bool action_from(const ynode &n, action_info &out, const std::string &path, std::string &err)
{
	const ynode *k = n.get("action");
	if (!k)
		k = n.get("kind");
	auto a = k && k->is_scalar() ? action_from_name(k->value) : std::nullopt;
	if (!a) {
		err = path + ":" + std::to_string(n.line) + ": missing or unknown action kind";
		return false;
	}
	out.kind = *a;
	out.text = scalar(n.get("text"));
	return true;
}

// "+09:00", "-03:30", "+00:00": a zone's offset east of UTC, in seconds.
bool parse_offset(const std::string &v, int &out)
{
	if (v.size() != 6 || (v[0] != '+' && v[0] != '-') || v[3] != ':')
		return false;
	for (size_t i : {1, 2, 4, 5})
		if (v[i] < '0' || v[i] > '9')
			return false;
	int h = (v[1] - '0') * 10 + (v[2] - '0'), m = (v[4] - '0') * 10 + (v[5] - '0');
	if (h > 14 || m >= 60 || m % 15)
		return false;
	out = (v[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
	return true;
}

bool zone_abbreviation(const std::string &n)
{
	if (n.size() < 2 || n.size() > 6)
		return false;
	return std::all_of(n.begin(), n.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

} // namespace

bool knowledge::load_zones(const std::string &path, std::string &err)
{
	auto doc = load_yaml_file(path, err);
	if (!doc)
		return false;
	const ynode *zs = top_list(*doc, path, "zones", err);
	if (!zs)
		return false;
	std::map<std::string, int> zones;
	for (const auto &n : zs->items) {
		std::string name = scalar(n.get("name"));
		int off = 0;
		std::string at = path + ":" + std::to_string(n.line) + ": ";
		if (!zone_abbreviation(name)) {
			err = at + "'name' must be a zone abbreviation (2 to 6 capital letters)";
			return false;
		}
		if (!parse_offset(scalar(n.get("offset")), off)) {
			err = at + "zone " + name + ": 'offset' must be \"+HH:MM\" or \"-HH:MM\" (a quarter hour, at most 14 h)";
			return false;
		}
		// One name, one zone: an abbreviation that means two is left out.
		if (!zones.emplace(name, off).second) {
			err = at + "zone " + name + " listed twice";
			return false;
		}
	}
	kn_zones = std::move(zones);
	return true;
}

bool knowledge::load(const std::string &conf_dir, std::string &err)
{
	std::string xpath = conf_dir + "/xid.yaml";
	auto xdoc = load_yaml_file(xpath, err);
	if (!xdoc)
		return false;
	const ynode *xids = top_list(*xdoc, xpath, "xids", err);
	if (!xids)
		return false;
	for (const auto &n : xids->items) {
		xid_info x;
		auto num = yaml_int(n.get("xid"));
		if (!num) {
			err = xpath + ":" + std::to_string(n.line) + ": entry without an integer 'xid'";
			return false;
		}
		x.xid = static_cast<int>(*num);
		x.name = scalar(n.get("name"));
		if (auto c = class_from_name(scalar(n.get("class"))))
			x.cls = *c;
		else {
			err = xpath + ":" + std::to_string(n.line) + ": unknown class for Xid " + std::to_string(x.xid);
			return false;
		}
		if (auto r = role_from_name(scalar(n.get("role"))))
			x.role = *r;
		action_info a;
		if (!action_from(n, a, xpath, err))
			return false;
		x.action = a.kind;
		x.text = a.text;
		if (auto w = yaml_int(n.get("weight")))
			x.weight = static_cast<int>(*w);
		kn_xids[x.xid] = x;
	}
	if (const ynode *rec = xdoc->get("recovery_actions"); rec && rec->kind == ynode::sequence) {
		for (const auto &n : rec->items) {
			auto code = yaml_int(n.get("code"));
			if (!code)
				code = yaml_int(n.get("value"));
			if (!code) {
				err = xpath + ":" + std::to_string(n.line) + ": recovery action without an integer 'code'";
				return false;
			}
			action_info a;
			if (!action_from(n, a, xpath, err))
				return false;
			if (a.text.empty())
				a.text = scalar(n.get("name"));
			kn_recovery[static_cast<int>(*code)] = a;
		}
	}

	std::string apath = conf_dir + "/actions.yaml";
	auto adoc = load_yaml_file(apath, err);
	if (!adoc)
		return false;
	const ynode *acts = top_list(*adoc, apath, "actions", err);
	if (!acts)
		return false;
	for (const auto &n : acts->items) {
		auto c = class_from_name(scalar(n.get("class")));
		if (!c) {
			err = apath + ":" + std::to_string(n.line) + ": unknown class '" + scalar(n.get("class")) + "'";
			return false;
		}
		action_info a;
		const ynode *k = n.get("kind");
		auto ak = k && k->is_scalar() ? action_from_name(k->value) : std::nullopt;
		if (!ak) {
			err = apath + ":" + std::to_string(n.line) + ": missing or unknown 'kind'";
			return false;
		}
		a.kind = *ak;
		a.text = scalar(n.get("text"));
		kn_actions[*c] = a;
	}
	for (int i = 0; i < failure_class_count; i++)
		if (!kn_actions.count(static_cast<failure_class>(i))) {
			err = apath + ": no action for class " + std::string(class_name(static_cast<failure_class>(i)));
			return false;
		}
	// A configuration directory from before zones.yaml keeps working: no
	// zone names, and local times are placed as before.
	std::string zpath = conf_dir + "/zones.yaml";
	if (access(zpath.c_str(), F_OK) == 0)
		return load_zones(zpath, err);
	return true;
}

const xid_info *knowledge::xid(int number) const
{
	auto it = kn_xids.find(number);
	return it == kn_xids.end() ? nullptr : &it->second;
}

std::optional<action_info> knowledge::recovery_action(int code) const
{
	auto it = kn_recovery.find(code);
	if (it == kn_recovery.end())
		return std::nullopt;
	return it->second;
}

action_info knowledge::action_for(failure_class c) const
{
	auto it = kn_actions.find(c);
	return it == kn_actions.end() ? action_info{} : it->second;
}

} // namespace diag
