#include "expand.hh"

#include <cctype>

namespace denpex::epilog {

std::string expand_pattern(const std::string &pattern, const expand_vars &v)
{
	if (pattern.find('\\') != std::string::npos) {
		std::string out;
		for (char c : pattern)
			if (c != '\\')
				out += c;
		return out;
	}
	std::string out;
	for (size_t i = 0; i < pattern.size(); i++) {
		char c = pattern[i];
		if (c != '%' || i + 1 >= pattern.size()) {
			out += c;
			continue;
		}
		size_t j = i + 1;
		size_t width = 0;
		while (j < pattern.size() && isdigit(static_cast<unsigned char>(pattern[j])) && width < 10)
			width = width * 10 + static_cast<size_t>(pattern[j++] - '0');
		if (j >= pattern.size()) {
			out += pattern.substr(i);
			break;
		}
		char f = pattern[j];
		const std::string *val = nullptr;
		bool numeric = true;
		switch (f) {
		case '%':
			out += '%';
			i = j;
			continue;
		case 'j': val = &v.job_id; break;
		case 'A': val = &v.array_job; break;
		case 'a': val = &v.array_task; break;
		case 't': val = &v.task; break;
		case 'n': val = &v.node_id; break;
		case 's': val = &v.step; break;
		case 'u': val = &v.user; numeric = false; break;
		case 'x': val = &v.job_name; numeric = false; break;
		case 'N': val = &v.node; numeric = false; break;
		default:
			break;
		}
		if (!val) {
			out += pattern.substr(i, j - i + 1);
			i = j;
			continue;
		}
		std::string s = *val;
		if (numeric && width > 0 && s.size() < width)
			s.insert(0, width - s.size(), '0');
		out += s;
		i = j;
	}
	return out;
}

std::string resolve_path(const std::string &path, const std::string &work_dir)
{
	if (path.empty() || path[0] == '/' || work_dir.empty())
		return path;
	std::string w = work_dir;
	if (w.back() != '/')
		w += '/';
	return w + path;
}

} // namespace denpex::epilog
