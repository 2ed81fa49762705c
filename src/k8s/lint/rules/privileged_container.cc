// privileged-container: privileged gives every host device and capability;
// RDMA needs only the device the plugin injects plus IPC_LOCK.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkPrivilegedContainer(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers)
      if (container.privileged)
        out.push_back(lintFinding(kPrivilegedContainer, *pod.view.object, container.node->line,
                                  container.path + ".securityContext.privileged",
                                  "container '" + container.name + "' runs privileged",
                                  "drop privileged; request the RDMA device through a device plugin or DRA "
                                  "and add only capabilities: {add: [IPC_LOCK]}"));
}

extern const Rule kPrivilegedContainer = {
    {"privileged-container", Severity::kWarning, "container runs privileged",
     R"(privileged: true gives the container every capability and every host device. RDMA needs far
less: IPC_LOCK and the RDMA device from a device plugin, SR-IOV or DRA.)",
     R"(Fix: drop privileged; add IPC_LOCK and request the RDMA resource.)"},
    checkPrivilegedContainer};

}  // namespace railkit::k8s::rules
