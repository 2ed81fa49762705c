// ipc-lock-missing: RDMA memory registration pins pages; without IPC_LOCK the
// container is held to RLIMIT_MEMLOCK (often 64 KiB) and registration fails
// unless the runtime raised the limit for every container.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkIpcLockMissing(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers) {
      if (container.init || container.ipc_lock || container.privileged) continue;
      if (isPureLauncher(input, pod, container) || !usesRdma(input, pod, container)) continue;
      out.push_back(lintFinding("ipc-lock-missing", Severity::kError, *pod.view.object, container.node->line,
                                container.path + ".securityContext.capabilities.add",
                                "container '" + container.name +
                                    "' uses RDMA but does not add IPC_LOCK; memory registration is limited by "
                                    "RLIMIT_MEMLOCK",
                                "add securityContext: {capabilities: {add: [IPC_LOCK]}} (or set memlock unlimited "
                                "in the runtime's base spec: railkit render node-prep)"));
    }
}

}  // namespace railkit::k8s::rules
