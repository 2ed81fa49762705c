#pragma once
// Interfaces and names: what Multus, a DRA network driver and cluster DNS give
// a pod, for the pod runner (resolve.h).
#include <string>
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

// The hosts file of one pod: localhost, the kubelet's own line for the pod,
// and every published pod name in each form the pod's DNS search path
// (NS.svc.DOMAIN, svc.DOMAIN, DOMAIN and dnsConfig.searches) completes.
std::string hostsFile(const ResolvedPod& self, const std::vector<ResolvedPod>& pods,
                      const std::string& domain);

}  // namespace railkit::podrun
