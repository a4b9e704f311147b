#include "aligning/rank_layout.hh"

#include <cctype>

namespace diag {

namespace {

void skip_space(std::string_view s, size_t &i)
{
	while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
		i++;
}

bool expect(std::string_view s, size_t &i, char c)
{
	skip_space(s, i);
	if (i >= s.size() || s[i] != c)
		return false;
	i++;
	return true;
}

} // namespace

bool parse_rank_layout(std::string_view s, rank_layout &out)
{
	rank_layout got;
	size_t i = 0;
	if (!expect(s, i, '{'))
		return false;
	skip_space(s, i);
	while (i < s.size() && s[i] != '}') {
		char q = s[i];
		if (q != '\'' && q != '"')
			return false;
		size_t close = s.find(q, i + 1);
		if (close == std::string_view::npos || close == i + 1)
			return false;
		std::string host(s.substr(i + 1, close - i - 1));
		i = close + 1;
		if (!expect(s, i, ':') || !expect(s, i, '['))
			return false;
		std::vector<int> ranks;
		skip_space(s, i);
		while (i < s.size() && s[i] != ']') {
			long v = 0;
			size_t digits = 0;
			while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && digits < 7) {
				v = v * 10 + (s[i] - '0');
				i++;
				digits++;
			}
			if (digits == 0)
				return false;
			ranks.push_back(static_cast<int>(v));
			skip_space(s, i);
			if (i < s.size() && s[i] == ',') {
				i++;
				skip_space(s, i);
			}
		}
		if (!expect(s, i, ']'))
			return false;
		got.emplace_back(std::move(host), std::move(ranks));
		skip_space(s, i);
		if (i < s.size() && s[i] == ',') {
			i++;
			skip_space(s, i);
		}
	}
	if (!expect(s, i, '}') || got.empty())
		return false;
	out = std::move(got);
	return true;
}

} // namespace diag
