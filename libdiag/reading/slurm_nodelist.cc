// Slurm's compact node list as names (see slurm_nodelist.hh). Hand-read
// because libdiag runs without Slurm's libraries (denpex diagnose on a laptop).
#include "reading/slurm_nodelist.hh"

#include "reading/line_prefix.hh"

namespace diag {

std::vector<std::string> expand_nodelist(const std::string &list)
{
	std::vector<std::string> out;
	size_t i = 0;
	while (i < list.size()) {
		size_t open = list.find_first_of("[,", i);
		if (open == std::string::npos || list[open] == ',') {
			size_t end = open == std::string::npos ? list.size() : open;
			if (end > i)
				out.push_back(list.substr(i, end - i));
			i = end + 1;
			continue;
		}
		size_t close = list.find(']', open);
		if (close == std::string::npos)
			return {};
		std::string prefix = list.substr(i, open - i);
		std::string inner = list.substr(open + 1, close - open - 1);
		size_t after = close + 1;
		std::string suffix;
		size_t next = list.find(',', after);
		suffix = list.substr(after, (next == std::string::npos ? list.size() : next) - after);
		size_t j = 0;
		while (j <= inner.size()) {
			size_t comma = inner.find(',', j);
			std::string part = inner.substr(j, (comma == std::string::npos ? inner.size() : comma) - j);
			size_t dash = part.find('-');
			long long a, b;
			std::string lo = dash == std::string::npos ? part : part.substr(0, dash);
			std::string hi = dash == std::string::npos ? part : part.substr(dash + 1);
			if (!parse_uint(lo, a) || !parse_uint(hi, b) || b < a || b - a > 4096 || out.size() > 65536)
				return {};
			for (long long k = a; k <= b; k++) {
				std::string num = std::to_string(k);
				if (num.size() < lo.size())
					num.insert(0, lo.size() - num.size(), '0');
				out.push_back(prefix + num + suffix);
			}
			if (comma == std::string::npos)
				break;
			j = comma + 1;
		}
		i = next == std::string::npos ? list.size() : next + 1;
	}
	return out;
}

} // namespace diag
