// nccl-socket-ifname-mismatch: NCCL_SOCKET_IFNAME selects interfaces by
// prefix (or exactly with '='); when it selects none of the pod's interfaces
// NCCL's bootstrap fails with "no socket interface found".
#include "core/name_list.h"
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkNcclSocketIfnameMismatch(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input)) {
    // Host network and DRA interfaces are named by the node, unknown here.
    if (pod.host_network || !pod.interfaces_known || pod.dra_claims) continue;
    std::vector<std::string> interfaces = {"eth0"};
    interfaces.insert(interfaces.end(), pod.interfaces.begin(), pod.interfaces.end());
    for (const ContainerFacts& container : pod.containers) {
      auto it = container.env.find("NCCL_SOCKET_IFNAME");
      if (it == container.env.end() || it->second.empty() || it->second.find('$') != std::string::npos) continue;
      NameListSpec spec = parseNameList(it->second);
      bool any = false;
      for (const std::string& name : interfaces) any = any || nameListSelects(spec, name);
      if (any) continue;
      std::string have;
      for (const std::string& name : interfaces) have += (have.empty() ? "" : ", ") + name;
      out.push_back(lintFinding("nccl-socket-ifname-mismatch", Severity::kError, *pod.view.object,
                                container.node->line, container.path + ".env.NCCL_SOCKET_IFNAME",
                                "NCCL_SOCKET_IFNAME=" + it->second + " selects none of the pod's interfaces (" +
                                    have + ")",
                                "name an interface the pod has (eth0 for the pod network)"));
    }
  }
}

}  // namespace railkit::k8s::rules
