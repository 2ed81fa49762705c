// dra-claim-unknown: a pod's DRA claim whose devices lint cannot place (its
// ResourceClaimTemplate or ResourceClaim is not in the input, or it requests
// a device class lint does not know). Such a claim counts as neither a NIC
// nor RDMA, so the rules that hinge on it stay quiet; this says so instead
// of guessing either way.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

void checkDraClaimUnknown(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (size_t i = 0; i < pod.claims.size(); ++i) {
      const PodClaim& claim = pod.claims[i];
      std::string path = pod.view.path + ".resourceClaims[" + std::to_string(i) + "]";
      std::string what =
          "DRA claim '" + claim.name + "' (" + (claim.source.empty() ? "no source" : claim.source) + ")";
      if (!claim.resolved) {
        out.push_back(lintFinding(
            kDraClaimUnknown, *pod.view.object, claim.line, path,
            what + " is not in the input: lint cannot tell what it gives and counts it as neither a NIC nor "
                   "RDMA (its interface names are unknown too)",
            "lint the claim's ResourceClaimTemplate (or ComputeDomain) and DeviceClass together with the "
            "pod"));
      } else if (!claim.devices.unknown_classes.empty()) {
        out.push_back(
            lintFinding(kDraClaimUnknown, *pod.view.object, claim.line, path,
                        what + " requests device class " + joined(claim.devices.unknown_classes) +
                            ", which lint does not know (it knows " + knownDeviceClassesText() +
                            "): counted as neither a NIC nor RDMA",
                        "lint the DeviceClass together with the pod, so its selectors name the driver"));
      }
    }
}

extern const Rule kDraClaimUnknown = {
    {"dra-claim-unknown", Severity::kInfo, "DRA claim whose devices lint cannot place",
     R"(A pod's DRA claim says what it gives only through its ResourceClaimTemplate (or ResourceClaim)
and the DeviceClass each request names. Where those are not in the input, or the class is
neither a DeviceClass of the input nor one a known driver installs (the finding lists them),
lint counts the claim as neither a NIC nor RDMA: ipc-lock-missing and ompi-btl-if-unset do
not fire for it, and
NCCL_SOCKET_IFNAME is not compared with the pod's interfaces.)",
     R"(Fix: lint the claim templates and DeviceClasses together with the workload.)"},
    checkDraClaimUnknown};

}  // namespace railkit::k8s::rules
