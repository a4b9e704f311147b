#include "model/failure_class.hh"

#include <array>

namespace diag {
namespace {

constexpr std::array<std::string_view, failure_class_count> class_names = {
	"gpu_hardware", "cuda_oom", "host_oom", "network", "collective_hang",
	"python_exception", "nan_inf", "cuda_error", "segfault", "filesystem",
	"launch_failure", "time_limit", "preemption", "user_cancel", "node_failure",
	"unknown",
};
constexpr std::array<std::string_view, 3> role_names = {"initiating", "victim", "context"};
constexpr std::array<std::string_view, 9> action_names = {
	"drain_node", "reset_gpu", "check_network", "fix_code", "reduce_memory",
	"raise_time_limit", "resubmit", "investigate", "none",
};

template <typename E, size_t N>
std::optional<E> lookup(const std::array<std::string_view, N> &names, std::string_view name)
{
	for (size_t i = 0; i < N; i++)
		if (names[i] == name)
			return static_cast<E>(i);
	return std::nullopt;
}

} // namespace

std::string_view class_name(failure_class c) { return class_names[static_cast<size_t>(c)]; }
std::optional<failure_class> class_from_name(std::string_view n) { return lookup<failure_class>(class_names, n); }
std::string_view role_name(event_role r) { return role_names[static_cast<size_t>(r)]; }
std::optional<event_role> role_from_name(std::string_view n) { return lookup<event_role>(role_names, n); }
std::string_view action_name(action_kind a) { return action_names[static_cast<size_t>(a)]; }
std::optional<action_kind> action_from_name(std::string_view n) { return lookup<action_kind>(action_names, n); }

} // namespace diag
