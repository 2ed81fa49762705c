// sriov through the SR-IOV Network Operator: per rail a node policy that
// makes RDMA VFs on that PF and a network with its own range that hands one
// VF to the pod; the rdma CNI meta-plugin moves the VF's RDMA device into
// the pod, and a SriovNetworkPoolConfig puts the nodes' RDMA subsystem in
// exclusive netns mode (which that move needs) through the operator.
#include "k8s/render/modes.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kSriovOperatorNamespace = "sriov-network-operator";
constexpr const char* kNodeLabel = "feature.node.kubernetes.io/network-sriov.capable";

std::string whereabouts(const Profile& profile, size_t rail) {
  return R"({"type": "whereabouts", "range": ")" + railSubnet(profile, rail).cidr + R"("})";
}

}  // namespace

Result<Objects> renderSriovMode(const Profile& profile, PodDecoration& decoration) {
  Objects objects;
  objects.push_back({"sriov-poolconfig.yaml",
                     "SriovNetworkPoolConfig: RDMA exclusive network-namespace mode on the SR-IOV nodes, so "
                     "each pod sees only "
                     "its own VFs' RDMA devices (the rdma CNI needs it). The operator sets it through the "
                     "ib_core module option "
                     "and reboots the nodes of the pool, maxUnavailable at a time: apply it before the job, "
                     "in a maintenance "
                     "window.",
                     {{"apiVersion", "sriovnetwork.openshift.io/v1"},
                      {"kind", "SriovNetworkPoolConfig"},
                      {"metadata", metadata(profile.name + "-rdma-exclusive", kSriovOperatorNamespace)},
                      {"spec",
                       {{"maxUnavailable", 1},
                        {"rdmaMode", "exclusive"},
                        {"nodeSelector", {{"matchLabels", {{kNodeLabel, "true"}}}}}}}}});
  const bool infiniband = profile.fabric == "infiniband";
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i) {
    const std::string resource = profile.resource_name + std::to_string(i);
    const std::string& pf = profile.data_interfaces[i];
    json policy = {{"resourceName", resource},
                   {"nodeSelector", {{kNodeLabel, "true"}}},
                   {"numVfs", 8},
                   {"priority", 90},
                   {"isRdma", true},
                   {"deviceType", "netdevice"},
                   {"linkType", infiniband ? "IB" : "ETH"},
                   {"nicSelector", {{"vendor", "15b3"}, {"pfNames", {pf}}}}};
    objects.push_back({"sriov-policy-rail" + std::to_string(i) + ".yaml",
                       "SriovNetworkNodePolicy: RDMA VFs on " + pf + " (rail " + std::to_string(i) +
                           ") advertised as openshift.io/" + resource +
                           "; nodeSelector is required by the CRD.",
                       {{"apiVersion", "sriovnetwork.openshift.io/v1"},
                        {"kind", "SriovNetworkNodePolicy"},
                        {"metadata", metadata(railName(profile, i), kSriovOperatorNamespace)},
                        {"spec", policy}}});
  }
  const std::string kind = infiniband ? "SriovIBNetwork" : "SriovNetwork";
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i) {
    const std::string resource = profile.resource_name + std::to_string(i);
    json spec = {{"resourceName", resource},
                 {"networkNamespace", profile.ns},
                 {"ipam", whereabouts(profile, i)},
                 {"metaPlugins", R"({"type": "rdma"})"}};
    objects.push_back(
        {"sriov-network-rail" + std::to_string(i) + ".yaml",
         kind + ": one VF of rail " + std::to_string(i) + " in the pod as net" + std::to_string(i + 1) +
             ", addressed from its own Whereabouts range (Whereabouts and Multus must be installed; "
             "the operator installs neither).",
         {{"apiVersion", "sriovnetwork.openshift.io/v1"},
          {"kind", kind},
          {"metadata", metadata(railName(profile, i), kSriovOperatorNamespace)},
          {"spec", spec}}});
    decoration.limits["openshift.io/" + resource] = 1;
  }
  attachRailNetworks(profile, decoration);
  socketEnv(profile, decoration, false);
  return objects;
}

}  // namespace railkit::k8s::render
