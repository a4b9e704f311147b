// Restricted unpickler: see fr_pickle.hh. Values are built in an arena of
// nodes addressed by index, so the memo can share them (and a hostile memo
// can even make cycles) without ownership trouble; the tree handed out is
// expanded at the end under depth, count and byte limits.
#include "fr/fr_pickle.hh"

#include "rendering/utf8.hh"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace diag {

namespace {

enum op : uint8_t {
	op_mark = '(',
	op_stop = '.',
	op_pop = '0',
	op_pop_mark = '1',
	op_dup = '2',
	op_float = 'F',
	op_int = 'I',
	op_binint = 'J',
	op_binint1 = 'K',
	op_long = 'L',
	op_binint2 = 'M',
	op_none = 'N',
	op_persid = 'P',
	op_binpersid = 'Q',
	op_reduce = 'R',
	op_string = 'S',
	op_binstring = 'T',
	op_short_binstring = 'U',
	op_unicode = 'V',
	op_binunicode = 'X',
	op_append = 'a',
	op_build = 'b',
	op_global = 'c',
	op_dict = 'd',
	op_empty_dict = '}',
	op_appends = 'e',
	op_get = 'g',
	op_binget = 'h',
	op_inst = 'i',
	op_long_binget = 'j',
	op_list = 'l',
	op_empty_list = ']',
	op_obj = 'o',
	op_put = 'p',
	op_binput = 'q',
	op_long_binput = 'r',
	op_setitem = 's',
	op_tuple = 't',
	op_empty_tuple = ')',
	op_setitems = 'u',
	op_binfloat = 'G',
	op_binbytes = 'B',
	op_short_binbytes = 'C',
	op_proto = 0x80,
	op_newobj = 0x81,
	op_ext1 = 0x82,
	op_ext2 = 0x83,
	op_ext4 = 0x84,
	op_tuple1 = 0x85,
	op_tuple2 = 0x86,
	op_tuple3 = 0x87,
	op_newtrue = 0x88,
	op_newfalse = 0x89,
	op_long1 = 0x8a,
	op_long4 = 0x8b,
	op_short_binunicode = 0x8c,
	op_binunicode8 = 0x8d,
	op_binbytes8 = 0x8e,
	op_empty_set = 0x8f,
	op_additems = 0x90,
	op_frozenset = 0x91,
	op_newobj_ex = 0x92,
	op_stack_global = 0x93,
	op_memoize = 0x94,
	op_frame = 0x95,
	op_bytearray8 = 0x96,
	op_next_buffer = 0x97,
	op_readonly_buffer = 0x98,
};

struct node {
	pickle_kind kind = pickle_kind::none;
	bool b = false;
	int64_t i = 0;
	double f = 0.0;
	std::string s;
	std::vector<uint32_t> items;
};

// Appends the UTF-8 encoding of a code point.
void put_utf8(std::string &out, uint32_t cp)
{
	if (cp < 0x80) {
		out += static_cast<char>(cp);
	} else if (cp < 0x800) {
		out += static_cast<char>(0xc0 | (cp >> 6));
		out += static_cast<char>(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out += static_cast<char>(0xe0 | (cp >> 12));
		out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
		out += static_cast<char>(0x80 | (cp & 0x3f));
	} else {
		out += static_cast<char>(0xf0 | (cp >> 18));
		out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
		out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
		out += static_cast<char>(0x80 | (cp & 0x3f));
	}
}

class unpickler {
public:
	unpickler(std::string_view data, const pickle_limits &lim) : d_(data), lim_(lim) {}

	pickle_result run()
	{
		pickle_result r;
		if (d_.size() > lim_.max_input)
			return fail_at(0, "pickle is " + std::to_string(d_.size()) +
						   " bytes, over the limit of " +
						   std::to_string(lim_.max_input));
		uint32_t top = 0;
		// Dumps hold about one object per 4-8 bytes; growing the arena by
		// doubling would move every node several times.
		arena_.reserve(std::min(lim_.max_items, d_.size() / 6 + 16));
		while (!done_) {
			if (!step(top))
				return fail_at(err_off_, err_);
		}
		// Measure first, so a memo bomb (lists of references to lists of
		// references...) is refused before anything is copied.
		std::string why;
		size_.assign(arena_.size(), 0);
		bytes_.assign(arena_.size(), 0);
		state_.assign(arena_.size(), 0);
		refs_.assign(arena_.size(), 0);
		refs_[top] = 1;
		if (!measure(top, 0, why))
			return fail_at(pos_, why);
		size_t items = 0, bytes = 0;
		if (!expand(top, r.value, 0, items, bytes, why))
			return fail_at(pos_, why);
		return r;
	}

private:
	std::string_view d_;
	const pickle_limits &lim_;
	size_t pos_ = 0;
	bool done_ = false;
	std::vector<node> arena_;
	std::vector<uint32_t> stack_;
	std::vector<size_t> marks_;
	std::unordered_map<uint64_t, uint32_t> memo_;
	std::string err_;
	size_t err_off_ = 0;
	size_t op_off_ = 0;
	uint8_t op_ = 0;

	pickle_result fail_at(size_t off, std::string msg)
	{
		pickle_result r;
		r.offset = off;
		r.error = std::move(msg);
		return r;
	}

	bool fail(std::string msg)
	{
		err_ = std::move(msg);
		err_off_ = op_off_;
		return false;
	}

	std::string op_label() const
	{
		std::string_view n = pickle_opcode_name(op_);
		char hex[8];
		snprintf(hex, sizeof hex, "0x%02x", op_);
		return (n.empty() ? std::string("opcode") : std::string(n)) + " (" + hex + ")";
	}

	bool fail_op(const char *why)
	{
		return fail(op_label() + " at offset " + std::to_string(op_off_) + ": " + why);
	}

	bool need(size_t n)
	{
		if (d_.size() - pos_ < n)
			return fail_op("truncated argument");
		return true;
	}

	uint64_t le(size_t n)
	{
		uint64_t v = 0;
		for (size_t k = 0; k < n; k++)
			v |= static_cast<uint64_t>(static_cast<unsigned char>(d_[pos_ + k])) << (8 * k);
		pos_ += n;
		return v;
	}

	// Reads a text argument up to a newline (protocol 0 opcodes).
	bool line(std::string_view &out, size_t max)
	{
		size_t avail = d_.size() - pos_;
		size_t scan = avail < max + 1 ? avail : max + 1;
		const void *nl = memchr(d_.data() + pos_, '\n', scan);
		if (!nl)
			return fail_op(avail <= max ? "truncated line argument" : "line argument too long");
		size_t len = static_cast<const char *>(nl) - (d_.data() + pos_);
		out = d_.substr(pos_, len);
		pos_ += len + 1;
		return true;
	}

	bool new_node(pickle_kind k, uint32_t &idx)
	{
		if (arena_.size() >= lim_.max_items)
			return fail_op("too many objects");
		arena_.emplace_back();
		arena_.back().kind = k;
		idx = static_cast<uint32_t>(arena_.size() - 1);
		return true;
	}

	bool push_new(pickle_kind k, node **out = nullptr)
	{
		uint32_t idx = 0;
		if (!new_node(k, idx))
			return false;
		stack_.push_back(idx);
		if (out)
			*out = &arena_[idx];
		return true;
	}

	bool push_int(int64_t v)
	{
		node *n;
		if (!push_new(pickle_kind::integer, &n))
			return false;
		n->i = v;
		return true;
	}

	bool push_bool(bool v)
	{
		node *n;
		if (!push_new(pickle_kind::boolean, &n))
			return false;
		n->b = v;
		return true;
	}

	bool push_str(pickle_kind k, std::string_view raw, bool utf8)
	{
		if (raw.size() > lim_.max_string)
			return fail_op("string over the size limit");
		node *n;
		if (!push_new(k, &n))
			return false;
		n->s = utf8 ? valid_utf8(raw) : std::string(raw); // Python's surrogatepass lets surrogates through
		return true;
	}

	// A length-prefixed string or bytes argument.
	bool counted(size_t len_bytes, pickle_kind k, bool utf8, bool is_signed = false)
	{
		if (!need(len_bytes))
			return false;
		uint64_t n = le(len_bytes);
		if (is_signed && len_bytes == 4 && (n & 0x80000000u))
			return fail_op("negative length");
		if (n > lim_.max_string)
			return fail_op("string over the size limit");
		if (!need(static_cast<size_t>(n)))
			return false;
		std::string_view raw = d_.substr(pos_, static_cast<size_t>(n));
		pos_ += static_cast<size_t>(n);
		return push_str(k, raw, utf8);
	}

	bool pop_mark(size_t &start)
	{
		if (marks_.empty())
			return fail_op("no MARK on the stack");
		start = marks_.back();
		marks_.pop_back();
		if (start > stack_.size())
			return fail_op("corrupt MARK");
		return true;
	}

	bool need_stack(size_t n)
	{
		size_t base = marks_.empty() ? 0 : marks_.back();
		if (stack_.size() < base + n)
			return fail_op("stack underflow");
		return true;
	}

	// Builds a list or tuple from stack[start:].
	bool collect(pickle_kind k, size_t start)
	{
		uint32_t idx = 0;
		if (!new_node(k, idx))
			return false;
		arena_[idx].items.assign(stack_.begin() + start, stack_.end());
		stack_.resize(start);
		stack_.push_back(idx);
		return true;
	}

	bool tuple_n(size_t n)
	{
		if (!need_stack(n))
			return false;
		return collect(pickle_kind::tuple, stack_.size() - n);
	}

	bool add_items(size_t target_pos, size_t start, pickle_kind want)
	{
		node &t = arena_[stack_[target_pos]];
		if (t.kind != want)
			return fail_op(want == pickle_kind::dict ? "target is not a dict"
								 : "target is not a list");
		if (want == pickle_kind::dict && (stack_.size() - start) % 2)
			return fail_op("odd number of items for a dict");
		t.items.insert(t.items.end(), stack_.begin() + start, stack_.end());
		stack_.resize(start);
		return true;
	}

	bool memo_put(uint64_t key)
	{
		if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
			return fail_op("nothing to memoize");
		auto it = memo_.find(key);
		if (it == memo_.end() && memo_.size() >= lim_.max_memo)
			return fail_op("memo over the size limit");
		memo_[key] = stack_.back();
		return true;
	}

	bool memo_get(uint64_t key)
	{
		auto it = memo_.find(key);
		if (it == memo_.end())
			return fail_op(("memo key " + std::to_string(key) + " not found").c_str());
		stack_.push_back(it->second);
		return true;
	}

	bool parse_dec(std::string_view t, int64_t &v)
	{
		if (!t.empty() && t.front() == '+')
			t.remove_prefix(1);
		auto r = std::from_chars(t.data(), t.data() + t.size(), v);
		if (r.ec != std::errc() || r.ptr != t.data() + t.size())
			return fail_op(r.ec == std::errc::result_out_of_range ? "integer too large"
									     : "bad decimal argument");
		return true;
	}

	bool forbidden()
	{
		return fail_op("forbidden: this opcode imports or calls code");
	}

	// Little-endian two's complement of n bytes (n <= 8).
	bool long_bytes(size_t n)
	{
		if (n > 8)
			return fail_op("integer too large (over 64 bits)");
		if (!need(n))
			return false;
		uint64_t u = le(n);
		if (n > 0 && n < 8 && (u >> (8 * n - 1)) & 1)
			u |= ~uint64_t(0) << (8 * n);
		return push_int(static_cast<int64_t>(u));
	}

	bool raw_unicode_escape(std::string_view t)
	{
		if (t.size() > lim_.max_string)
			return fail_op("string over the size limit");
		std::string out;
		for (size_t k = 0; k < t.size(); k++) {
			unsigned char c = static_cast<unsigned char>(t[k]);
			size_t digits = 0;
			if (c == '\\' && k + 1 < t.size())
				digits = t[k + 1] == 'u' ? 4 : t[k + 1] == 'U' ? 8 : 0;
			if (digits && k + 2 + digits <= t.size()) {
				uint32_t cp = 0;
				auto r = std::from_chars(t.data() + k + 2, t.data() + k + 2 + digits, cp, 16);
				if (r.ptr != t.data() + k + 2 + digits)
					return fail_op("bad \\u escape");
				put_utf8(out, cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
				k += 1 + digits;
			} else {
				put_utf8(out, c);
			}
		}
		node *n;
		if (!push_new(pickle_kind::string, &n))
			return false;
		n->s = std::move(out);
		return true;
	}

	bool step(uint32_t &top)
	{
		op_off_ = pos_;
		if (pos_ >= d_.size())
			return fail("truncated pickle: no STOP before the end at offset " +
				    std::to_string(pos_));
		op_ = static_cast<uint8_t>(d_[pos_++]);
		size_t start = 0;
		std::string_view t;
		int64_t v;
		switch (op_) {
		case op_proto:
			if (!need(1))
				return false;
			if (le(1) > 5)
				return fail_op("unsupported protocol (over 5)");
			return true;
		case op_frame:
			// Frames only group bytes for buffering; we read linearly.
			if (!need(8))
				return false;
			le(8);
			return true;
		case op_stop:
			if (!need_stack(1))
				return false;
			top = stack_.back();
			done_ = true;
			return true;
		case op_mark:
			marks_.push_back(stack_.size());
			return true;
		case op_pop:
			if (!marks_.empty() && stack_.size() == marks_.back()) {
				marks_.pop_back(); // Python pops the mark when the frame is empty
				return true;
			}
			if (stack_.empty())
				return fail_op("stack underflow");
			stack_.pop_back();
			return true;
		case op_pop_mark:
			if (!pop_mark(start))
				return false;
			stack_.resize(start);
			return true;
		case op_dup:
			if (!need_stack(1))
				return false;
			stack_.push_back(stack_.back());
			return true;
		case op_none:
			return push_new(pickle_kind::none);
		case op_newtrue:
			return push_bool(true);
		case op_newfalse:
			return push_bool(false);
		case op_binint:
			if (!need(4))
				return false;
			return push_int(static_cast<int32_t>(static_cast<uint32_t>(le(4))));
		case op_binint1:
			if (!need(1))
				return false;
			return push_int(static_cast<int64_t>(le(1)));
		case op_binint2:
			if (!need(2))
				return false;
			return push_int(static_cast<int64_t>(le(2)));
		case op_int:
			if (!line(t, 64))
				return false;
			if (t == "00" || t == "01")
				return push_bool(t == "01");
			if (!parse_dec(t, v))
				return false;
			return push_int(v);
		case op_long:
			if (!line(t, 64))
				return false;
			if (!t.empty() && t.back() == 'L')
				t.remove_suffix(1);
			if (!parse_dec(t, v))
				return false;
			return push_int(v);
		case op_long1:
			if (!need(1))
				return false;
			return long_bytes(static_cast<size_t>(le(1)));
		case op_long4: {
			if (!need(4))
				return false;
			int32_t n = static_cast<int32_t>(static_cast<uint32_t>(le(4)));
			if (n < 0)
				return fail_op("negative length");
			return long_bytes(static_cast<size_t>(n));
		}
		case op_binfloat: {
			if (!need(8))
				return false;
			uint64_t u = 0;
			for (int k = 0; k < 8; k++)
				u = (u << 8) | static_cast<unsigned char>(d_[pos_ + k]);
			pos_ += 8;
			double f;
			memcpy(&f, &u, sizeof f);
			node *n;
			if (!push_new(pickle_kind::floating, &n))
				return false;
			n->f = f;
			return true;
		}
		case op_float: {
			if (!line(t, 64))
				return false;
			double f = 0;
			auto r = std::from_chars(t.data(), t.data() + t.size(), f);
			if (r.ec != std::errc() || r.ptr != t.data() + t.size())
				return fail_op("bad float argument");
			node *n;
			if (!push_new(pickle_kind::floating, &n))
				return false;
			n->f = f;
			return true;
		}
		case op_short_binunicode:
			return counted(1, pickle_kind::string, true);
		case op_binunicode:
			return counted(4, pickle_kind::string, true);
		case op_binunicode8:
			return counted(8, pickle_kind::string, true);
		case op_short_binstring:
			return counted(1, pickle_kind::string, true);
		case op_binstring:
			return counted(4, pickle_kind::string, true, true);
		case op_short_binbytes:
			return counted(1, pickle_kind::bytes, false);
		case op_binbytes:
			return counted(4, pickle_kind::bytes, false);
		case op_binbytes8:
		case op_bytearray8:
			return counted(8, pickle_kind::bytes, false);
		case op_unicode:
			if (!line(t, lim_.max_string))
				return false;
			return raw_unicode_escape(t);
		case op_empty_dict:
			return push_new(pickle_kind::dict);
		case op_empty_list:
		case op_empty_set:
			return push_new(pickle_kind::list);
		case op_empty_tuple:
			return push_new(pickle_kind::tuple);
		case op_dict:
			if (!pop_mark(start))
				return false;
			if ((stack_.size() - start) % 2)
				return fail_op("odd number of items for a dict");
			return collect(pickle_kind::dict, start);
		case op_list:
		case op_frozenset:
			if (!pop_mark(start))
				return false;
			return collect(pickle_kind::list, start);
		case op_tuple:
			if (!pop_mark(start))
				return false;
			return collect(pickle_kind::tuple, start);
		case op_tuple1:
			return tuple_n(1);
		case op_tuple2:
			return tuple_n(2);
		case op_tuple3:
			return tuple_n(3);
		case op_append:
			if (!need_stack(2))
				return false;
			return add_items(stack_.size() - 2, stack_.size() - 1, pickle_kind::list);
		case op_setitem:
			if (!need_stack(3))
				return false;
			return add_items(stack_.size() - 3, stack_.size() - 2, pickle_kind::dict);
		case op_appends:
		case op_additems:
		case op_setitems:
			if (!pop_mark(start))
				return false;
			if (start == 0 || (!marks_.empty() && start <= marks_.back()))
				return fail_op("no target below MARK");
			return add_items(start - 1, start,
					 op_ == op_setitems ? pickle_kind::dict : pickle_kind::list);
		case op_put:
			if (!line(t, 32))
				return false;
			if (!parse_dec(t, v))
				return false;
			if (v < 0)
				return fail_op("negative memo key");
			return memo_put(static_cast<uint64_t>(v));
		case op_binput:
			if (!need(1))
				return false;
			return memo_put(le(1));
		case op_long_binput:
			if (!need(4))
				return false;
			return memo_put(le(4));
		case op_memoize:
			return memo_put(memo_.size());
		case op_get:
			if (!line(t, 32))
				return false;
			if (!parse_dec(t, v))
				return false;
			return memo_get(static_cast<uint64_t>(v));
		case op_binget:
			if (!need(1))
				return false;
			return memo_get(le(1));
		case op_long_binget:
			if (!need(4))
				return false;
			return memo_get(le(4));
		case op_global:
		case op_stack_global:
		case op_reduce:
		case op_build:
		case op_inst:
		case op_obj:
		case op_newobj:
		case op_newobj_ex:
		case op_ext1:
		case op_ext2:
		case op_ext4:
		case op_persid:
		case op_binpersid:
		case op_next_buffer:
		case op_readonly_buffer:
			return forbidden();
		case op_string:
			return fail_op("unsupported opcode (protocol 0 quoted string)");
		default:
			return fail_op("unknown opcode");
		}
	}

	std::vector<uint64_t> size_, bytes_; // expanded size of each node's subtree
	std::vector<uint8_t> state_;         // 0 new, 1 in progress, 2 measured
	std::vector<uint32_t> refs_;         // references to each node in the final tree

	// Expanded values and string bytes under idx, saturating just past the
	// limits; a node met again while in progress is a memo cycle.
	bool measure(uint32_t idx, size_t depth, std::string &why)
	{
		if (state_[idx] == 2)
			return true;
		if (state_[idx] == 1) {
			why = "memo cycle: a container holds itself";
			return false;
		}
		if (depth > lim_.max_depth) {
			why = "nesting deeper than " + std::to_string(lim_.max_depth);
			return false;
		}
		state_[idx] = 1;
		const node &n = arena_[idx];
		uint64_t items = 1, bytes = n.s.size();
		const uint64_t cap_items = uint64_t(lim_.max_items) + 1;
		const uint64_t cap_bytes = uint64_t(lim_.max_total_bytes) + 1;
		for (uint32_t c : n.items) {
			if (refs_[c] < UINT32_MAX)
				refs_[c]++;
			if (!measure(c, depth + 1, why))
				return false;
			items = std::min(cap_items, items + size_[c]);
			bytes = std::min(cap_bytes, bytes + bytes_[c]);
		}
		size_[idx] = items;
		bytes_[idx] = bytes;
		state_[idx] = 2;
		if (items > lim_.max_items) {
			why = "more than " + std::to_string(lim_.max_items) +
			      " values once memo references are expanded";
			return false;
		}
		if (bytes > lim_.max_total_bytes) {
			why = "more than " + std::to_string(lim_.max_total_bytes) +
			      " string bytes once memo references are expanded";
			return false;
		}
		return true;
	}

	bool expand(uint32_t idx, pickle_value &out, size_t depth, size_t &items, size_t &bytes,
		    std::string &why)
	{
		if (depth > lim_.max_depth) {
			why = "nesting deeper than " + std::to_string(lim_.max_depth) +
			      " (or a memo cycle)";
			return false;
		}
		if (++items > lim_.max_items) {
			why = "more than " + std::to_string(lim_.max_items) +
			      " values once memo references are expanded";
			return false;
		}
		node &n = arena_[idx];
		bytes += n.s.size();
		if (bytes > lim_.max_total_bytes) {
			why = "more than " + std::to_string(lim_.max_total_bytes) +
			      " string bytes once memo references are expanded";
			return false;
		}
		out.kind = n.kind;
		out.b = n.b;
		out.i = n.i;
		out.f = n.f;
		// A node used once is not needed again: move its string.
		if (refs_[idx] == 1)
			out.s = std::move(n.s);
		else
			out.s = n.s;
		out.items.resize(n.items.size());
		for (size_t k = 0; k < n.items.size(); k++) {
			// n.items is stable: arena_ no longer grows here.
			if (!expand(n.items[k], out.items[k], depth + 1, items, bytes, why))
				return false;
		}
		return true;
	}
};

} // namespace

std::string_view pickle_kind_name(pickle_kind k)
{
	switch (k) {
	case pickle_kind::none: return "none";
	case pickle_kind::boolean: return "bool";
	case pickle_kind::integer: return "int";
	case pickle_kind::floating: return "float";
	case pickle_kind::string: return "string";
	case pickle_kind::bytes: return "bytes";
	case pickle_kind::list: return "list";
	case pickle_kind::tuple: return "tuple";
	case pickle_kind::dict: return "dict";
	}
	return "?";
}

const pickle_value *pickle_value::get(std::string_view key) const
{
	if (kind != pickle_kind::dict)
		return nullptr;
	for (size_t k = items.size(); k >= 2; k -= 2) {
		const pickle_value &kv = items[k - 2];
		if (kv.kind == pickle_kind::string && kv.s == key)
			return &items[k - 1];
	}
	return nullptr;
}

std::string_view pickle_opcode_name(uint8_t op)
{
	switch (op) {
	case op_mark: return "MARK";
	case op_stop: return "STOP";
	case op_pop: return "POP";
	case op_pop_mark: return "POP_MARK";
	case op_dup: return "DUP";
	case op_float: return "FLOAT";
	case op_int: return "INT";
	case op_binint: return "BININT";
	case op_binint1: return "BININT1";
	case op_long: return "LONG";
	case op_binint2: return "BININT2";
	case op_none: return "NONE";
	case op_persid: return "PERSID";
	case op_binpersid: return "BINPERSID";
	case op_reduce: return "REDUCE";
	case op_string: return "STRING";
	case op_binstring: return "BINSTRING";
	case op_short_binstring: return "SHORT_BINSTRING";
	case op_unicode: return "UNICODE";
	case op_binunicode: return "BINUNICODE";
	case op_append: return "APPEND";
	case op_build: return "BUILD";
	case op_global: return "GLOBAL";
	case op_dict: return "DICT";
	case op_empty_dict: return "EMPTY_DICT";
	case op_appends: return "APPENDS";
	case op_get: return "GET";
	case op_binget: return "BINGET";
	case op_inst: return "INST";
	case op_long_binget: return "LONG_BINGET";
	case op_list: return "LIST";
	case op_empty_list: return "EMPTY_LIST";
	case op_obj: return "OBJ";
	case op_put: return "PUT";
	case op_binput: return "BINPUT";
	case op_long_binput: return "LONG_BINPUT";
	case op_setitem: return "SETITEM";
	case op_tuple: return "TUPLE";
	case op_empty_tuple: return "EMPTY_TUPLE";
	case op_setitems: return "SETITEMS";
	case op_binfloat: return "BINFLOAT";
	case op_binbytes: return "BINBYTES";
	case op_short_binbytes: return "SHORT_BINBYTES";
	case op_proto: return "PROTO";
	case op_newobj: return "NEWOBJ";
	case op_ext1: return "EXT1";
	case op_ext2: return "EXT2";
	case op_ext4: return "EXT4";
	case op_tuple1: return "TUPLE1";
	case op_tuple2: return "TUPLE2";
	case op_tuple3: return "TUPLE3";
	case op_newtrue: return "NEWTRUE";
	case op_newfalse: return "NEWFALSE";
	case op_long1: return "LONG1";
	case op_long4: return "LONG4";
	case op_short_binunicode: return "SHORT_BINUNICODE";
	case op_binunicode8: return "BINUNICODE8";
	case op_binbytes8: return "BINBYTES8";
	case op_empty_set: return "EMPTY_SET";
	case op_additems: return "ADDITEMS";
	case op_frozenset: return "FROZENSET";
	case op_newobj_ex: return "NEWOBJ_EX";
	case op_stack_global: return "STACK_GLOBAL";
	case op_memoize: return "MEMOIZE";
	case op_frame: return "FRAME";
	case op_bytearray8: return "BYTEARRAY8";
	case op_next_buffer: return "NEXT_BUFFER";
	case op_readonly_buffer: return "READONLY_BUFFER";
	}
	return "";
}

pickle_result pickle_load(std::string_view data, const pickle_limits &lim)
{
	return unpickler(data, lim).run();
}

} // namespace diag
