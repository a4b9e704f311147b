#include "reading/launch_hosts.hh"

#include "reading/line_prefix.hh"

namespace diag {

std::vector<std::pair<std::string, long long>> launch_host_slots(const std::string &list)
{
	std::vector<std::pair<std::string, long long>> hosts;
	for (size_t at = 0; !list.empty();) {
		size_t comma = list.find(',', at);
		std::string item = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
		size_t colon = item.rfind(':');
		long long slots = 0;
		if (colon == std::string::npos || colon == 0 || !parse_uint(item.substr(colon + 1), slots))
			return {};
		hosts.emplace_back(item.substr(0, colon), slots);
		if (comma == std::string::npos)
			break;
		at = comma + 1;
	}
	return hosts;
}

} // namespace diag
