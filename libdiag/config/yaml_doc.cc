#include "config/yaml_doc.hh"

#include <yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace diag {

const ynode *ynode::get(std::string_view key) const
{
	if (kind != mapping)
		return nullptr;
	for (const auto &e : entries)
		if (e.first == key)
			return &e.second;
	return nullptr;
}

namespace {

// Converts libyaml's document graph; depth bounded against hostile files,
// and size too: an alias is a pointer in the graph but a copy here, so
// nested aliases ("billion laughs") would grow the tree exponentially.
bool convert(yaml_document_t *doc, yaml_node_t *n, ynode &out, int depth, size_t &budget, std::string &err)
{
	if (!n)
		return true;
	if (depth > 64) {
		err = "nesting too deep";
		return false;
	}
	if (budget == 0) {
		err = std::to_string(n->start_mark.line + 1) + ": aliases expand to too many nodes";
		return false;
	}
	budget--;
	out.line = static_cast<int>(n->start_mark.line) + 1;
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		std::string v(reinterpret_cast<char *>(n->data.scalar.value), n->data.scalar.length);
		bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (plain && (v.empty() || v == "~" || v == "null")) {
			out.kind = ynode::null;
		} else {
			out.kind = ynode::scalar;
			out.value = std::move(v);
		}
		return true;
	}
	case YAML_SEQUENCE_NODE:
		out.kind = ynode::sequence;
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			out.items.emplace_back();
			if (!convert(doc, yaml_document_get_node(doc, *it), out.items.back(), depth + 1, budget, err))
				return false;
		}
		return true;
	case YAML_MAPPING_NODE:
		out.kind = ynode::mapping;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			if (!k || k->type != YAML_SCALAR_NODE) {
				err = std::to_string(k ? k->start_mark.line + 1 : out.line) + ": mapping key is not a scalar";
				return false;
			}
			std::string key(reinterpret_cast<char *>(k->data.scalar.value), k->data.scalar.length);
			out.entries.emplace_back(key, ynode());
			if (!convert(doc, yaml_document_get_node(doc, p->value), out.entries.back().second, depth + 1, budget, err))
				return false;
		}
		return true;
	default:
		return true;
	}
}

std::optional<ynode> load(yaml_parser_t &parser, const std::string &name, std::string &err)
{
	yaml_document_t doc;
	if (!yaml_parser_load(&parser, &doc)) {
		err = name + ":" + std::to_string(parser.problem_mark.line + 1) + ": " +
		      (parser.problem ? parser.problem : "YAML syntax error");
		return std::nullopt;
	}
	ynode root;
	std::string cerr;
	// What the file holds, a few times over: room for ordinary aliases.
	size_t budget = 4096 + 8 * static_cast<size_t>(doc.nodes.top - doc.nodes.start);
	bool ok = convert(&doc, yaml_document_get_root_node(&doc), root, 0, budget, cerr);
	yaml_document_delete(&doc);
	if (!ok) {
		err = name + ":" + cerr;
		return std::nullopt;
	}
	return root;
}

} // namespace

std::optional<ynode> load_yaml_string(std::string_view text, const std::string &name, std::string &err)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		err = name + ": cannot initialise the YAML parser";
		return std::nullopt;
	}
	yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char *>(text.data()), text.size());
	auto r = load(parser, name, err);
	yaml_parser_delete(&parser);
	return r;
}

std::optional<ynode> load_yaml_file(const std::string &path, std::string &err)
{
	FILE *f = fopen(path.c_str(), "rbe");
	if (!f) {
		err = path + ": " + strerror(errno);
		return std::nullopt;
	}
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		err = path + ": cannot initialise the YAML parser";
		return std::nullopt;
	}
	yaml_parser_set_input_file(&parser, f);
	auto r = load(parser, path, err);
	yaml_parser_delete(&parser);
	fclose(f);
	return r;
}

std::optional<long long> yaml_int(const ynode *n)
{
	if (!n || n->kind != ynode::scalar || n->value.empty())
		return std::nullopt;
	char *end = nullptr;
	errno = 0;
	long long v = strtoll(n->value.c_str(), &end, 0);
	if (errno || *end)
		return std::nullopt;
	return v;
}

std::optional<bool> yaml_bool(const ynode *n)
{
	if (!n || n->kind != ynode::scalar)
		return std::nullopt;
	const std::string &v = n->value;
	if (v == "true" || v == "yes" || v == "on" || v == "True")
		return true;
	if (v == "false" || v == "no" || v == "off" || v == "False")
		return false;
	return std::nullopt;
}

} // namespace diag
