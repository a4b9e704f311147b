#include "comment.hh"

namespace denpex::epilog {

namespace {

// Length of the valid UTF-8 sequence at s[i], 0 if invalid.
size_t utf8_len(const std::string &s, size_t i)
{
	unsigned char c = static_cast<unsigned char>(s[i]);
	size_t n;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (i + n > s.size())
		return 0;
	for (size_t k = 1; k < n; k++)
		if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
			return 0;
	// Reject C1 controls (U+0080..U+009F), overlongs of 3/4 bytes and surrogates.
	unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
	if (n == 2 && c == 0xc2 && c1 < 0xa0)
		return 0;
	if (n == 3 && c == 0xe0 && c1 < 0xa0)
		return 0;
	if (n == 3 && c == 0xed && c1 >= 0xa0)
		return 0;
	if (n == 4 && c == 0xf0 && c1 < 0x90)
		return 0;
	if (n == 4 && c == 0xf4 && c1 >= 0x90)
		return 0;
	return n;
}

} // namespace

std::string comment_sanitize(const std::string &s, size_t cap)
{
	std::string out;
	bool space = false;
	for (size_t i = 0; i < s.size();) {
		unsigned char c = static_cast<unsigned char>(s[i]);
		if (c < 0x20 || c == 0x7f) {
			// Line and tab breaks separate words; other controls just go.
			if (c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
				space = !out.empty();
			i++;
			continue;
		}
		size_t n = utf8_len(s, i);
		if (n == 0) {
			i++;
			continue;
		}
		if (c == ' ') {
			space = !out.empty();
			i++;
			continue;
		}
		if (space) {
			if (out.size() + 1 > cap)
				break;
			out += ' ';
			space = false;
		}
		if (out.size() + n > cap)
			break;
		if (c == '|')
			out += '/';
		else
			out.append(s, i, n);
		i += n;
	}
	while (!out.empty() && out.back() == ' ')
		out.pop_back();
	return out;
}

std::string comment_verdict(const std::string &line, size_t cap)
{
	std::string s = comment_sanitize(line, 4 * cap + 64);
	if (s.size() <= cap)
		return s;
	size_t arrow = s.rfind(" -> ");
	std::string suffix = arrow == std::string::npos ? "" : s.substr(arrow);
	if (suffix.size() + 16 > cap)
		return comment_sanitize(s, cap);
	std::string head = comment_sanitize(s.substr(0, arrow), cap - suffix.size() - 3);
	return head + "..." + suffix;
}

std::optional<std::string> comment_compose(const std::string &existing, const std::string &verdict)
{
	if (verdict.empty())
		return std::nullopt;
	if (existing.find(verdict) != std::string::npos)
		return std::nullopt;
	// One verdict per job: a later run by hand (its spool dir is gone by
	// then, so its evidence is thinner) never adds a second one.
	if (existing.rfind("denpex: ", 0) == 0 ||
	    existing.find(std::string(comment_separator) + "denpex: ") != std::string::npos)
		return std::nullopt;
	if (existing.empty())
		return verdict;
	std::string out = existing + comment_separator + verdict;
	if (out.size() > comment_field_max)
		return std::nullopt;
	return out;
}

} // namespace denpex::epilog
