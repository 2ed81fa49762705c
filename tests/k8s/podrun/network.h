#pragma once
// Interfaces and names: what Multus, a DRA network driver and cluster DNS give
// a pod, for the pod runner (resolve.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "k8s/manifest.h"
#include "resolve.h"

namespace railkit::podrun {

// The data interfaces the pod gets, in order: Multus attachments (the
// k8s.v1.cni.cncf.io/networks annotation, names net1.. unless `@if` or
// "interface" says otherwise), GKE's networking.gke.io/interfaces but the
// default one, then the dra.net interface each DRA claim
// names; with hostNetwork, the node's RDMA NICs as the NicClusterPolicy's
// shared device plugin selects them.
Result<std::vector<std::string>> dataInterfaces(const PlannedPod& pod, const k8s::Manifest& manifest,
                                                std::vector<std::string>& notes);

// The networks the pod's Multus annotation names, in order (namespaces
// dropped): network i is attached as dataInterfaces' entry i.
Result<std::vector<std::string>> multusNetworks(const PlannedPod& pod);

// What Spiderpool's IPAM gives one attachment: its address, the pool's
// routes (destination, next hop) and gateway.
struct PoolLease {
  std::string address;  // IPv4/prefix of the pool's subnet
  std::vector<std::pair<std::string, std::string>> routes;
  std::string gateway;  // IPv4/prefix, empty when the pool has none
};

// Spiderpool's IPAM as the pod runner plays it: an attachment whose network
// is a SpiderMultusConfig of the manifest gets the next free address of the
// first of its SpiderIPPools (in the order it names them, a trailing '*'
// matching a name prefix) whose node affinity takes the pod's node. The
// runner's node N is the Kubernetes node "nodeN" (kubernetes.io/hostname),
// so a profile's nodeNames node1.. are the runner's nodes.
class SpiderpoolIpam {
 public:
  explicit SpiderpoolIpam(const k8s::Manifest& manifest) : manifest_(manifest) {}
  // nullopt: `network` is no SpiderMultusConfig of the manifest.
  Result<std::optional<PoolLease>> lease(const std::string& network, int node, const std::string& where);

 private:
  const k8s::Manifest& manifest_;
  std::map<std::string, uint32_t> used_;  // addresses given, by pool
};

// The hosts file of one pod: localhost, the kubelet's own line for the pod,
// and every published pod name in each form the pod's DNS search path
// (NS.svc.DOMAIN, svc.DOMAIN, DOMAIN and dnsConfig.searches) completes.
std::string hostsFile(const ResolvedPod& self, const std::vector<ResolvedPod>& pods,
                      const std::string& domain);

}  // namespace railkit::podrun
