// The verdict vocabulary of doc/verdict.md: failure classes, event roles and
// next-action kinds, with their contract names.
#pragma once

#include <optional>
#include <string_view>

namespace diag {

enum class failure_class {
	gpu_hardware,
	cuda_oom,
	host_oom,
	network,
	collective_hang,
	python_exception,
	nan_inf,
	cuda_error,
	segfault,
	filesystem,
	launch_failure,
	time_limit,
	preemption,
	user_cancel,
	node_failure,
	unknown,
};
constexpr int failure_class_count = static_cast<int>(failure_class::unknown) + 1;

// Who an event points at: the fault itself, a rank suffering from it, or a
// fact that helps (maps, clocks, job state) without blaming anyone.
enum class event_role { initiating, victim, context };

enum class action_kind {
	drain_node,
	reset_gpu,
	check_network,
	fix_code,
	reduce_memory,
	raise_time_limit,
	resubmit,
	investigate,
	none,
};

std::string_view class_name(failure_class c);
std::optional<failure_class> class_from_name(std::string_view name);
std::string_view role_name(event_role r);
std::optional<event_role> role_from_name(std::string_view name);
std::string_view action_name(action_kind a);
std::optional<action_kind> action_from_name(std::string_view name);

} // namespace diag
