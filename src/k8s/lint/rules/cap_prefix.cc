// cap-prefix: Kubernetes capability names have no CAP_ prefix; the runtime
// adds it, so "CAP_IPC_LOCK" becomes an unknown capability.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkCapPrefix(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers)
      for (size_t i = 0; i < container.cap_add.size(); ++i)
        if (container.cap_add[i].rfind("CAP_", 0) == 0)
          out.push_back(
              lintFinding(kCapPrefix, *pod.view.object,
                          container.node->at({"securityContext", "capabilities", "add"})->items[i].line,
                          container.path + ".securityContext.capabilities.add[" + std::to_string(i) + "]",
                          "capability '" + container.cap_add[i] + "' carries the CAP_ prefix",
                          "write '" + container.cap_add[i].substr(4) + "'"));
}

extern const Rule kCapPrefix = {
    {"cap-prefix", Severity::kError, "capability written with the CAP_ prefix",
     R"(Kubernetes capability names in securityContext.capabilities are written without the CAP_
prefix (IPC_LOCK, NET_ADMIN). With the prefix the name may not match what the runtime or a
Pod Security policy expects, so the capability can be silently missing or the pod rejected.)",
     R"(Fix: write the bare name: capabilities: {add: [IPC_LOCK]}.)"},
    checkCapPrefix};

}  // namespace railkit::k8s::rules
