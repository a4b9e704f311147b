#include "matching/regex.hh"

#include <new>

namespace diag {

namespace {

// This thread's match data, with room for at least pairs offset pairs.
pcre2_match_data *thread_match_data(uint32_t pairs)
{
	struct holder {
		pcre2_match_data *md = nullptr;
		uint32_t pairs = 0;
		~holder() { pcre2_match_data_free(md); }
	};
	thread_local holder h;
	if (h.pairs < pairs) {
		uint32_t want = pairs < 32 ? 32 : pairs;
		pcre2_match_data *md = pcre2_match_data_create(want, nullptr);
		if (!md)
			throw std::bad_alloc();
		pcre2_match_data_free(h.md);
		h.md = md;
		h.pairs = want;
	}
	return h.md;
}

} // namespace

std::optional<regex> regex::compile(std::string_view pattern, bool caseless, regex_error &err)
{
	int errcode = 0;
	PCRE2_SIZE erroff = 0;
	// MATCH_INVALID_UTF: logs carry arbitrary bytes; never fail on them.
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (caseless ? PCRE2_CASELESS : 0);
	pcre2_code *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
					 opts, &errcode, &erroff, nullptr);
	if (!code) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(errcode, buf, sizeof(buf));
		err.message = reinterpret_cast<char *>(buf);
		err.offset = erroff;
		return std::nullopt;
	}
	regex r;
	r.rx_code.reset(code, code_free());
	pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &r.rx_ncap);
	uint32_t count = 0, entry_size = 0;
	PCRE2_SPTR table = nullptr;
	pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
	pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *e = table + i * entry_size;
		uint32_t num = (static_cast<uint32_t>(e[0]) << 8) | e[1];
		r.rx_names.emplace_back(reinterpret_cast<const char *>(e + 2), num);
	}
	return r;
}

regex regex::own_copy() const
{
	regex r = *this;
	if (!rx_code)
		return r;
	pcre2_code *code = pcre2_code_copy(rx_code.get()); // without the JIT code
	if (!code)
		throw std::bad_alloc();
	r.rx_code.reset(code, code_free());
	r.rx_jit = false;
	r.rx_uses = 0;
	return r;
}

bool regex::search(std::string_view subject)
{
	if (!rx_jit && ++rx_uses == 32)
		rx_jit = pcre2_jit_compile(rx_code.get(), PCRE2_JIT_COMPLETE) == 0;
	pcre2_match_data *md = thread_match_data(rx_ncap + 1);
	int rc = rx_jit ? pcre2_jit_match(rx_code.get(), reinterpret_cast<PCRE2_SPTR>(subject.data()),
					  subject.size(), 0, 0, md, nullptr)
			: pcre2_match(rx_code.get(), reinterpret_cast<PCRE2_SPTR>(subject.data()),
				      subject.size(), 0, 0, md, nullptr);
	if (rc < 0)
		return false;
	const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	rx_ovector.assign(ov, ov + 2 * (rx_ncap + 1));
	return true;
}

bool regex::group_set(uint32_t i) const
{
	if (2 * i + 1 >= rx_ovector.size())
		return false;
	return rx_ovector[2 * i] != PCRE2_UNSET;
}

std::string_view regex::group(std::string_view subject, uint32_t i) const
{
	if (!group_set(i))
		return {};
	const PCRE2_SIZE *ov = rx_ovector.data();
	if (ov[2 * i + 1] < ov[2 * i] || ov[2 * i + 1] > subject.size())
		return {};
	return subject.substr(ov[2 * i], ov[2 * i + 1] - ov[2 * i]);
}

} // namespace diag
