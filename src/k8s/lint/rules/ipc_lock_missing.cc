// ipc-lock-missing: RDMA memory registration pins pages; without IPC_LOCK the
// container is held to RLIMIT_MEMLOCK (often 64 KiB) and registration fails
// unless the runtime raised the limit for every container. Where the
// platform is known to do that (EKS EFA nodes, GKE GPU nodes, CoreWeave) the
// finding is informational: its own examples rely on it and work there.
#include "core/shared_rules.h"
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkIpcLockMissing(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers) {
      if (container.init || container.ipc_lock || container.privileged) continue;
      if (isPureLauncher(input, pod, container) || !usesRdma(input, pod, container)) continue;
      std::string message = "container '" + container.name + "' uses RDMA but does not add IPC_LOCK; ";
      Severity severity = Severity::kError;
      if (!pod.memlock_platform.empty()) {
        severity = Severity::kInfo;
        message += pod.memlock_platform +
                   " already runs containers with memlock unlimited, so registration works there; elsewhere "
                   "it is limited by RLIMIT_MEMLOCK";
      } else {
        message += "memory registration is limited by RLIMIT_MEMLOCK";
      }
      out.push_back(
          lintFinding(kIpcLockMissing, severity, *pod.view.object, container.node->line,
                      container.path + ".securityContext.capabilities.add", message,
                      "add securityContext: {capabilities: {add: [IPC_LOCK]}} (or set memlock unlimited "
                      "in the runtime's base spec: railkit render node-prep)"));
    }
}

extern const Rule kIpcLockMissing = {shared_rules::kIpcLockMissing, checkIpcLockMissing};

}  // namespace railkit::k8s::rules
