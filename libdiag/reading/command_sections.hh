// Whose output follows a command a user pasted with its prompt: below
// "$ kubectl logs trainer-worker-1" comes that pod's output, below
// "$ kubectl describe node gpu-07" that node's description, until the next
// command (a pod's description names its node itself). Their lines name no host of their own (no prefix), so the
// command is where the host is said (issue 11's kind 5: the host left out).
#pragma once

#include <string_view>

namespace diag {

// The pod or node whose output the command line seg ("$ kubectl ...")
// prints: a `kubectl logs` pod, a `kubectl describe node` name. Empty
// when the command names none (another command, a selector, several).
std::string_view command_section_host(std::string_view seg);

} // namespace diag
