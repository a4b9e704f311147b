#include "run_state.hh"

#include "bounded_child.hh"

#include <algorithm>

namespace denpex::epilog {

double run_state::left() const
{
	if (stop_requested())
		return -1;
	return cfg.deadline_s - (mono_now() - t0) - 3;
}

unsigned run_state::read_timeout() const
{
	double l = left();
	if (l < 1)
		return 1;
	return static_cast<unsigned>(std::min<double>(cfg.read_timeout_s, l));
}

read_limits run_state::limits()
{
	read_limits l;
	l.max_bytes_per_file = cfg.max_bytes_per_file;
	l.budget = &budget;
	l.timeout_s = read_timeout();
	return l;
}

std::string run_state::node_dir() const
{
	return safe_component(ctx.node) ? ctx.node : std::string("node");
}

} // namespace denpex::epilog
