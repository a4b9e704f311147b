#include "aligning/timeline.hh"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>

namespace diag {

std::vector<size_t> merge_timeline(const evidence &ev)
{
	// One stream per (source, host): a monotone clock correction keeps
	// each in order. Lines of one writer may still step back a little
	// (buffered output): a stable sort within the stream settles that.
	std::map<std::pair<uint32_t, int>, std::vector<size_t>> streams;
	std::vector<size_t> untimed;
	for (size_t i = 0; i < ev.events.size(); i++) {
		const event &e = ev.events[i];
		if (e.dropped)
			continue;
		if (e.time_us == no_time)
			untimed.push_back(i);
		else
			streams[{e.file, e.host}].push_back(i);
	}
	auto key = [&](size_t i) {
		const event &e = ev.events[i];
		return std::make_tuple(e.time_us, e.file, e.line, e.order);
	};
	std::vector<std::vector<size_t> *> lists;
	for (auto &s : streams) {
		auto &v = s.second;
		if (!std::is_sorted(v.begin(), v.end(), [&](size_t a, size_t b) { return key(a) < key(b); }))
			std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
		lists.push_back(&v);
	}
	using head = std::pair<decltype(key(0)), std::pair<size_t, size_t>>; // key, (list, pos)
	std::priority_queue<head, std::vector<head>, std::greater<head>> heap;
	for (size_t l = 0; l < lists.size(); l++)
		heap.push({key((*lists[l])[0]), {l, 0}});
	std::vector<size_t> out;
	out.reserve(ev.events.size());
	while (!heap.empty()) {
		auto [k, lp] = heap.top();
		heap.pop();
		out.push_back((*lists[lp.first])[lp.second]);
		if (lp.second + 1 < lists[lp.first]->size())
			heap.push({key((*lists[lp.first])[lp.second + 1]), {lp.first, lp.second + 1}});
	}
	std::sort(untimed.begin(), untimed.end(), [&](size_t a, size_t b) {
		return std::make_tuple(ev.events[a].file, ev.events[a].line) < std::make_tuple(ev.events[b].file, ev.events[b].line);
	});
	out.insert(out.end(), untimed.begin(), untimed.end());
	return out;
}

} // namespace diag
