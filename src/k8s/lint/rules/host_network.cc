// host-network: the pod shares the node's network namespace: every host
// interface and port, no isolation, and NCCL/MPI interface names follow the
// host's naming instead of the pod's.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkHostNetwork(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    if (pod.host_network)
      out.push_back(lintFinding(
          kHostNetwork, *pod.view.object, pod.view.spec->get("hostNetwork")->line,
          pod.view.path + ".hostNetwork", "pod uses hostNetwork: it sees every host interface and port",
          "expose RDMA with a device plugin, SR-IOV or DRA instead; keep hostNetwork only "
          "where the platform requires it"));
}

extern const Rule kHostNetwork = {
    {"host-network", Severity::kWarning, "pod uses the host network namespace",
     R"(hostNetwork: true puts the pod in the node's network namespace: it sees every host interface
and port, there is no isolation, and NCCL/MPI interface names follow the host's naming.
It is needed only where the platform requires it.)",
     R"(Fix: expose RDMA with a device plugin, SR-IOV or DRA and keep the pod network; keep
hostNetwork only for modes that need it (railkit render --mode host-network).)"},
    checkHostNetwork};

}  // namespace railkit::k8s::rules
