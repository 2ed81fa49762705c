// extended-resource-mismatch: extended resources cannot be overcommitted; the
// API server rejects a container whose request differs from its limit.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkExtendedResourceMismatch(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers)
      for (const auto& [name, request] : container.requests) {
        auto limit = container.limits.find(name);
        if (!isExtendedResource(name) || limit == container.limits.end() || limit->second == request)
          continue;
        if (parseQuantityCount(limit->second) == parseQuantityCount(request) &&
            parseQuantityCount(request) > 0)
          continue;  // "1" and 1
        out.push_back(
            lintFinding(kExtendedResourceMismatch, *pod.view.object, container.node->line,
                        container.path + ".resources.requests." + name,
                        "extended resource " + name + " requests " + request + " but limits " + limit->second,
                        "set requests equal to limits (or give only limits)"));
      }
}

extern const Rule kExtendedResourceMismatch = {
    {"extended-resource-mismatch", Severity::kError, "extended resource requests differ from limits",
     R"(Extended resources (nvidia.com/gpu, rdma/*, SR-IOV VF pools) cannot be overcommitted: the API
server rejects a container whose requests differ from its limits, or the job silently gets
what the limit says.)",
     R"(Fix: set requests equal to limits (or give limits only).)"},
    checkExtendedResourceMismatch};

}  // namespace railkit::k8s::rules
