// extended-resource-limit-missing: an extended resource (or hugepages) in
// `requests` with no `limits` entry of the same name. Such resources cannot
// be overcommitted, and the API server rejects the pod ("Limit must be set
// for non overcommitable resources"). The usual cause is a typo in one of
// the two names (`rdma/...` requested, `edma/...` limited): the closest
// limits name is offered.
#include <algorithm>

#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

bool needsLimit(const std::string& name) {
  return isExtendedResource(name) || name.rfind("hugepages-", 0) == 0;
}

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A limits name that is not requested and differs from `name` by a typo's
// worth of edits (at most 2), or "".
std::string likelyTypo(const ContainerFacts& container, const std::string& name) {
  std::string best;
  size_t best_distance = 3;
  for (const auto& [limit, value] : container.limits) {
    if (container.requests.count(limit) != 0) continue;
    size_t distance = editDistance(name, limit);
    if (distance < best_distance) {
      best = limit;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

void checkExtendedResourceLimitMissing(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers)
      for (const auto& [name, request] : container.requests) {
        if (!needsLimit(name) || container.limits.count(name) != 0) continue;
        std::string message = "container '" + container.name + "' requests " + name + ": " + request +
                              " but its limits have no " + name + " (the API server rejects the pod)";
        std::string fix = "add " + name + ": " + request + " to resources.limits (or give it in limits only)";
        if (std::string typo = likelyTypo(container, name); !typo.empty()) {
          message += "; limits has " + typo + ", a typo of it?";
          fix = "rename limits' " + typo + " to " + name;
        }
        out.push_back(lintFinding(kExtendedResourceLimitMissing, *pod.view.object, container.node->line,
                                  container.path + ".resources.requests." + name, message, fix));
      }
}

extern const Rule kExtendedResourceLimitMissing = {
    {"extended-resource-limit-missing", Severity::kError, "extended resource requested without a limit",
     R"(Extended resources (nvidia.com/gpu, rdma/*, SR-IOV VF pools) and hugepages cannot be
overcommitted: a container that requests one must limit it too, with the same value, or the
API server rejects the pod (Limit must be set for non overcommitable resources). A name
requested but not limited is often a typo in one of the two (rdma/... requested, edma/...
limited); the finding names the limits entry that looks like it.)",
     R"(Fix: give the same name in limits (or only in limits: the request defaults to the limit).)"},
    checkExtendedResourceLimitMissing};

}  // namespace railkit::k8s::rules
