// spiderpool-multus-config: a SpiderMultusConfig whose RDMA resource or
// pools cannot work. Spiderpool turns it into the NetworkAttachmentDefinition
// of the same name, so these only fail when a pod starts: a resource name
// without its prefix matches no device plugin, a pod that attaches the
// network without requesting its resource gets a macvlan with no RDMA device
// (or an SR-IOV attachment with no VF), and a pool name that matches no
// SpiderIPPool leaves the attachment without an address.
#include <set>

#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"
#include "k8s/lint/rules/spiderpool.h"

namespace railkit::k8s::rules {
namespace {

bool requests(const PodFacts& pod, const std::string& resource) {
  for (const ContainerFacts& container : pod.containers)
    if (container.limits.count(resource) != 0 || container.requests.count(resource) != 0) return true;
  return false;
}

void checkPools(const SpiderNetwork& network, const std::vector<SpiderPool>& pools,
                std::vector<Finding>& out) {
  if (pools.empty()) return;  // the pools are applied from elsewhere: nothing to compare with
  for (const std::string& reference : network.pools) {
    bool found = false;
    for (const SpiderPool& pool : pools) found = found || poolNameMatches(reference, pool.object->name);
    if (found) continue;
    const YamlNode* block = network.object->root->at({"spec", network.block, "ippools"});
    out.push_back(lintFinding(kSpiderpoolMultusConfig, Severity::kWarning, *network.object,
                              block != nullptr ? block->line : 0, "spec." + network.block + ".ippools",
                              "pool '" + reference + "' matches no SpiderIPPool in the linted files",
                              "name a SpiderIPPool that exists (a trailing * matches a name prefix)"));
  }
}

}  // namespace

void checkSpiderpoolMultusConfig(const LintInput& input, std::vector<Finding>& out) {
  std::vector<SpiderPool> pools = spiderPools(input);
  std::vector<PodFacts> pods = allPods(input);
  for (const SpiderNetwork& network : spiderNetworks(input)) {
    checkPools(network, pools, out);
    if (network.resource.empty()) continue;
    const long line = network.resource_node->line;
    if (network.resource.find('/') == std::string::npos) {
      out.push_back(lintFinding(
          kSpiderpoolMultusConfig, *network.object, line, network.resource_path,
          network.resource_path.substr(network.resource_path.rfind('.') + 1) + " '" + network.resource +
              "' has no prefix: device plugins advertise PREFIX/NAME, so no node has it",
          "write the resource as the device plugin advertises it (spidernet.io/" + network.resource +
              " with Spiderpool's plugins)"));
      continue;
    }
    std::set<const Object*> reported;
    for (const PodFacts& pod : pods) {
      bool attaches = false;
      for (const std::string& name : pod.network_names) attaches = attaches || name == network.object->name;
      if (!attaches || requests(pod, network.resource) || !reported.insert(pod.view.object).second) continue;
      out.push_back(
          lintFinding(kSpiderpoolMultusConfig, *pod.view.object, pod.view.object->line, "resources.limits",
                      "the pod attaches " + network.object->ref() + " (cniType " + network.cni_type +
                          ") but no container " + "requests " + network.resource +
                          (network.cni_type == "sriov" || network.cni_type == "ib-sriov"
                               ? ": the CNI gets no VF for it"
                               : ": the interface comes without its RDMA device"),
                      "add " + network.resource + ": 1 to the limits of the container that runs the ranks"));
    }
  }
}

extern const Rule kSpiderpoolMultusConfig = {
    {"spiderpool-multus-config", Severity::kError, "SpiderMultusConfig RDMA resource or pools cannot work",
     R"(Spiderpool makes a NetworkAttachmentDefinition from each SpiderMultusConfig; what is wrong in it
shows only when a pod starts. The RDMA resource (macvlan.rdmaResourceName, sriov.resourceName,
ibsriov.resourceName) is what the device plugin advertises, PREFIX/NAME: without the prefix no
node has it. A pod that attaches the network must request that resource, or the macvlan comes
without the NIC's RDMA device (NCCL falls back to sockets) and SR-IOV has no VF to give. A pool
name (or name* prefix) that matches no SpiderIPPool leaves the attachment without an address.)",
     R"(Fix: name the resource with its prefix, request it in the container that runs the ranks, and
name pools that exist.)"},
    checkSpiderpoolMultusConfig};

}  // namespace railkit::k8s::rules
