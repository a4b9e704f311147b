// denpex_conf_parse: the YAML loader of the signatures, behind the C
// header, for the epilog's denpex.yaml (the epilog reaches libdiag only
// through denpex_diag.h, and keeps no YAML reader of its own).
#include "denpex_diag.h"

#include "config/yaml_doc.hh"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

struct flat_entry {
	std::string key;
	bool is_list = false;
	std::string value;
	std::vector<std::string> items;
	int line = 0;
};

char *dup_c(const std::string &s)
{
	char *p = static_cast<char *>(malloc(s.size() + 1));
	if (p)
		memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

bool flatten(const diag::ynode &root, const std::string &name, std::vector<flat_entry> &out, std::string &err)
{
	if (root.kind != diag::ynode::mapping) {
		err = name + ":" + std::to_string(root.line ? root.line : 1) + ": expected a mapping of keys to values";
		return false;
	}
	for (const auto &[key, v] : root.entries) {
		flat_entry e;
		e.key = key;
		e.line = v.line;
		if (v.kind == diag::ynode::mapping) {
			err = name + ":" + std::to_string(v.line) + ": " + key + ": nested mappings are not allowed";
			return false;
		}
		if (v.kind == diag::ynode::sequence) {
			e.is_list = true;
			for (const diag::ynode &it : v.items) {
				if (it.kind == diag::ynode::mapping || it.kind == diag::ynode::sequence) {
					err = name + ":" + std::to_string(it.line) + ": " + key +
					      ": a list of plain values was expected";
					return false;
				}
				e.items.push_back(it.value);
			}
		} else {
			e.value = v.value; // null: ""
		}
		out.push_back(std::move(e));
	}
	return true;
}

// The entries, their item arrays and every string in one block, so that a
// C caller frees it with one denpex_free().
denpex_conf_entry *pack(const std::vector<flat_entry> &in)
{
	size_t n = in.size(), ptrs = 0, bytes = 0;
	for (const flat_entry &e : in) {
		bytes += e.key.size() + 1 + e.value.size() + 1;
		ptrs += e.items.size();
		for (const std::string &s : e.items)
			bytes += s.size() + 1;
	}
	size_t size = n * sizeof(denpex_conf_entry) + ptrs * sizeof(char *) + bytes;
	char *block = static_cast<char *>(calloc(1, size ? size : 1));
	if (!block)
		return nullptr;
	auto *entries = reinterpret_cast<denpex_conf_entry *>(block);
	auto *items = reinterpret_cast<const char **>(block + n * sizeof(denpex_conf_entry));
	char *text = block + n * sizeof(denpex_conf_entry) + ptrs * sizeof(char *);
	auto put = [&text](const std::string &s) {
		char *p = text;
		memcpy(p, s.c_str(), s.size() + 1);
		text += s.size() + 1;
		return p;
	};
	for (size_t i = 0; i < n; i++) {
		const flat_entry &e = in[i];
		entries[i].key = put(e.key);
		entries[i].line = e.line;
		if (e.is_list) {
			entries[i].items = items;
			entries[i].nitems = e.items.size();
			for (const std::string &s : e.items)
				*items++ = put(s);
		} else {
			entries[i].value = put(e.value);
		}
	}
	return entries;
}

} // namespace

extern "C" denpex_status denpex_conf_parse(const char *text, size_t len, const char *name,
					   denpex_conf_entry **entries, size_t *nentries, char **error) noexcept
{
	if (error)
		*error = nullptr;
	if (!entries || !nentries || (!text && len)) {
		if (error)
			*error = dup_c("denpex_conf_parse: bad arguments");
		return DENPEX_ERR_ARGS;
	}
	*entries = nullptr;
	*nentries = 0;
	std::string err;
	try {
		std::string nm = name ? name : "config";
		auto root = diag::load_yaml_string(std::string_view(text ? text : "", len), nm, err);
		std::vector<flat_entry> flat;
		if (root && root->kind == diag::ynode::null)
			root->kind = diag::ynode::mapping; // an empty file: no keys
		if (root && flatten(*root, nm, flat, err)) {
			denpex_conf_entry *e = pack(flat);
			if (!e)
				throw std::bad_alloc();
			*entries = e;
			*nentries = flat.size();
			return DENPEX_OK;
		}
	} catch (const std::exception &e) {
		err = std::string("internal error: ") + e.what();
	} catch (...) {
		err = "internal error";
	}
	if (error)
		*error = dup_c(err);
	return DENPEX_ERR_INPUT;
}
