#include "reading/command_sections.hh"

#include <array>
#include <vector>

namespace diag {

namespace {

// kubectl's options that take a value as the next word.
bool takes_value(std::string_view opt)
{
	static constexpr std::array<std::string_view, 12> with_value = {
		"-n", "--namespace", "-c", "--container", "--context", "--cluster",
		"--kubeconfig", "--tail", "--since", "-o", "--output", "--since-time"};
	for (std::string_view o : with_value)
		if (opt == o)
			return true;
	return false;
}

// The words of the command up to a pipe, a list or a redirection: the
// part that names what is printed.
std::vector<std::string_view> command_words(std::string_view seg)
{
	std::vector<std::string_view> words;
	size_t i = 0;
	while (i < seg.size()) {
		while (i < seg.size() && (seg[i] == ' ' || seg[i] == '\t'))
			i++;
		if (i >= seg.size() || seg[i] == '|' || seg[i] == ';' || seg[i] == '&' || seg[i] == '>' || seg[i] == '<')
			break;
		size_t start = i;
		while (i < seg.size() && seg[i] != ' ' && seg[i] != '\t' && seg[i] != '|' && seg[i] != ';')
			i++;
		words.push_back(seg.substr(start, i - start));
	}
	return words;
}

// A name as Kubernetes spells one (lowercase letters, digits, '-', '.').
bool object_name(std::string_view w)
{
	if (w.empty() || w.size() > 253)
		return false;
	for (char c : w)
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
			return false;
	return true;
}

} // namespace

std::string_view command_section_host(std::string_view seg)
{
	if (seg.size() < 3 || seg[0] != '$' || seg[1] != ' ')
		return {};
	std::vector<std::string_view> words = command_words(seg.substr(2));
	if (words.empty())
		return {};
	std::string_view tool = words[0];
	if (size_t slash = tool.rfind('/'); slash != std::string_view::npos)
		tool = tool.substr(slash + 1);
	if (tool != "kubectl" && tool != "oc")
		return {};
	// The positional words, options and their values set aside; a label
	// selector means several objects, no one host.
	std::vector<std::string_view> args;
	for (size_t i = 1; i < words.size(); i++) {
		std::string_view w = words[i];
		if (w == "-l" || w.rfind("--selector", 0) == 0)
			return {};
		if (!w.empty() && w[0] == '-') {
			if (w.find('=') == std::string_view::npos && takes_value(w))
				i++;
			continue;
		}
		args.push_back(w);
	}
	auto strip_kind = [](std::string_view w, std::string_view kind) {
		return w.rfind(kind, 0) == 0 ? w.substr(kind.size()) : std::string_view();
	};
	if (args.size() == 2 && args[0] == "logs") {
		std::string_view pod = args[1];
		if (std::string_view p = strip_kind(pod, "pod/"); !p.empty())
			pod = p;
		return object_name(pod) ? pod : std::string_view();
	}
	// One object fetched by name ("get pod NAME -o yaml"): its status and
	// events are that pod's or node's (a listing of several names none).
	if (args.size() >= 2 && args.size() <= 3 && args[0] == "get") {
		if (args.size() == 2) {
			for (std::string_view kind : {"pod/", "pods/", "node/", "nodes/"})
				if (std::string_view n = strip_kind(args[1], kind); !n.empty())
					return object_name(n) ? n : std::string_view();
			return {};
		}
		for (std::string_view kind : {"pod", "pods", "po", "node", "nodes", "no"})
			if (args[1] == kind)
				return object_name(args[2]) ? args[2] : std::string_view();
		return {};
	}
	// (A pod's description names its node on a line of its own, which the
	// reader takes: only a node's is the command's.)
	if (args.size() >= 2 && args[0] == "describe") {
		if (args.size() == 2) {
			for (std::string_view kind : {"node/", "nodes/"})
				if (std::string_view n = strip_kind(args[1], kind); !n.empty())
					return object_name(n) ? n : std::string_view();
			return {};
		}
		if (args.size() == 3 && (args[1] == "node" || args[1] == "nodes" || args[1] == "no"))
			return object_name(args[2]) ? args[2] : std::string_view();
	}
	return {};
}

} // namespace diag
