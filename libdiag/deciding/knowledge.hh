// Tables that turn a class or an Xid into a meaning and a next action
// (conf/xid.yaml, conf/actions.yaml) and a zone's abbreviation into its
// offset (conf/zones.yaml): data rather than code.
#pragma once

#include "model/failure_class.hh"

#include <map>
#include <optional>
#include <string>

namespace diag {

struct xid_info {
	int xid = 0;
	std::string name;
	failure_class cls = failure_class::gpu_hardware;
	event_role role = event_role::initiating;
	action_kind action = action_kind::investigate;
	std::string text;
	int weight = 90;
};

struct action_info {
	action_kind kind = action_kind::investigate;
	std::string text;
};

class knowledge {
public:
	// Loads xid.yaml, actions.yaml and (when there is one) zones.yaml
	// from a configuration directory.
	bool load(const std::string &conf_dir, std::string &err);
	// Loads a zones.yaml: "zones:" a list of {name, offset: "+09:00"}.
	bool load_zones(const std::string &path, std::string &err);

	const xid_info *xid(int number) const;
	// Xid 154: the recovery action code the driver asks for.
	std::optional<action_info> recovery_action(int code) const;
	action_info action_for(failure_class c) const;
	// Unambiguous zone abbreviations ("JST") -> UTC offset in seconds.
	const std::map<std::string, int> &zones() const { return kn_zones; }

private:
	std::map<std::string, int> kn_zones;
	std::map<int, xid_info> kn_xids;
	std::map<int, action_info> kn_recovery;
	std::map<failure_class, action_info> kn_actions;
};

// Replaces {name} in a template with values from a lookup function.
template <typename F>
std::string fill_template(const std::string &tpl, F &&lookup)
{
	std::string out;
	for (size_t i = 0; i < tpl.size(); i++) {
		if (tpl[i] == '{') {
			size_t close = tpl.find('}', i);
			if (close != std::string::npos) {
				out += lookup(tpl.substr(i + 1, close - i - 1));
				i = close;
				continue;
			}
		}
		out += tpl[i];
	}
	return out;
}

} // namespace diag
