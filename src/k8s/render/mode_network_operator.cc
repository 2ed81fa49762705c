// rdma-shared, host-device and host-network through the NVIDIA Network
// Operator: the NicClusterPolicy pieces the job needs (rendered as a merge,
// since the policy is a cluster singleton), and one network with its own
// nv-ipam pool per rail.
#include "k8s/render/modes.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kRepository = "nvcr.io/nvidia/mellanox";
constexpr const char* kVersion = "network-operator-v26.4.1";
constexpr const char* kNetworkOperatorNamespace = "nvidia-network-operator";

json component(const std::string& image) {
  return {{"image", image}, {"repository", kRepository}, {"version", kVersion}};
}

// NicClusterPolicy/nic-cluster-policy is one per cluster, usually installed
// with the operator's Helm chart. Creating it whole would replace the
// cluster's (its ofedDriver, its other resources), so the object holds only
// what this job needs and its comment says how to merge it.
RenderedObject nicClusterPolicyMerge(const json& spec, const std::string& why) {
  return {
      "nicclusterpolicy-merge.yaml",
      "NicClusterPolicy, to MERGE into the cluster's: " + why +
          " The policy is a cluster singleton, so this holds only what this job needs. Where the cluster has "
          "one: kubectl patch nicclusterpolicy nic-cluster-policy --type merge --patch-file <this file> "
          "(keeps "
          "ofedDriver and every field not named here; a plugin's config string is replaced whole, so copy "
          "the cluster's existing resource entries into it first). Where it has none: kubectl create -f "
          "<this "
          "file>. Never kubectl apply it over a policy that was itself applied: apply deletes the fields "
          "this "
          "file lacks.",
      {{"apiVersion", "mellanox.com/v1alpha1"},
       {"kind", "NicClusterPolicy"},
       {"metadata", {{"name", "nic-cluster-policy"}}},
       {"spec", spec}}};
}

// What the rendered networks need on every node: Multus to attach them, the
// reference CNI plugins (macvlan, host-device), the IPoIB CNI for IPoIB
// networks, and nv-ipam for their pools (the operator dropped Whereabouts in
// v25.10; its examples use nv-ipam).
void addSecondaryNetwork(const Profile& profile, json& spec) {
  json secondary = {{"multus", component("multus-cni")}, {"cniPlugins", component("plugins")}};
  if (profile.mode == "rdma-shared" && profile.fabric == "infiniband")
    secondary["ipoib"] = component("ipoib-cni");
  spec["secondaryNetwork"] = secondary;
  json ipam = component("nvidia-k8s-ipam");
  ipam["enableWebhook"] = false;
  spec["nvIpam"] = ipam;
}

RenderedObject railPool(const Profile& profile, size_t rail) {
  RailSubnet subnet = railSubnet(profile, rail);
  return {"ippool-rail" + std::to_string(rail) + ".yaml",
          "nv-ipam IPPool: the addresses of rail " + std::to_string(rail) + " (" +
              profile.data_interfaces[rail] +
              "), one range per rail so each net interface of a pod sits in its own subnet.",
          {{"apiVersion", "nv-ipam.nvidia.com/v1alpha1"},
           {"kind", "IPPool"},
           {"metadata", metadata(railName(profile, rail), kNetworkOperatorNamespace)},
           {"spec", {{"subnet", subnet.cidr}, {"perNodeBlockSize", subnet.per_node_block}}}}};
}

std::string nvIpam(const Profile& profile, size_t rail) {
  return R"({"type": "nv-ipam", "poolName": ")" + railName(profile, rail) + R"("})";
}

json sharedPluginSpec(const Profile& profile) {
  json config = {{"configList",
                  {{{"resourceName", profile.resource_name},
                    {"rdmaHcaMax", 63},
                    {"selectors", {{"ifNames", profile.data_interfaces}}}}}}};
  json plugin = component("k8s-rdma-shared-dev-plugin");
  plugin["config"] = config.dump();
  return {{"rdmaSharedDevicePlugin", plugin}};
}

// Host-device hands whole NICs to pods, one resource per rail so rail i's
// network always gets rail i's NIC. The device plugin selects PFs by PCI
// address; without addresses, pfNames selects the VFs of the data PFs
// (pfNames never matches a PF itself). Either way no selector can take a
// NIC that is not a data interface.
json hostDevicePluginSpec(const Profile& profile) {
  json resources = json::array();
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i) {
    json selectors = {{"vendors", {"15b3"}}, {"isRdma", true}};
    if (!profile.data_pci_addresses.empty())
      selectors["pciAddresses"] = {profile.data_pci_addresses[i]};
    else
      selectors["pfNames"] = {profile.data_interfaces[i]};
    resources.push_back({{"resourcePrefix", "nvidia.com"},
                         {"resourceName", profile.resource_name + std::to_string(i)},
                         {"selectors", selectors}});
  }
  json plugin = component("sriov-network-device-plugin");
  plugin["config"] = json{{"resourceList", resources}}.dump();
  return {{"sriovDevicePlugin", plugin}};
}

}  // namespace

Result<Objects> renderNetworkOperatorMode(const Profile& profile, PodDecoration& decoration) {
  Objects objects;
  const size_t rails = profile.data_interfaces.size();
  if (profile.mode == "host-network") {
    objects.push_back(nicClusterPolicyMerge(
        sharedPluginSpec(profile), "the shared RDMA device plugin advertises rdma/" + profile.resource_name +
                                       " on nodes with the data NICs."));
    decoration.limits["rdma/" + profile.resource_name] = 1;
    decoration.host_network = true;
    decoration.pod_data_interfaces = profile.data_interfaces;
    decoration.pod_comment =
        "WARNING: hostNetwork shares the node's network namespace: every host interface and port, no "
        "isolation between pods, one job per node. Use it only where a secondary network is impossible.";
    socketEnv(profile, decoration, true);
    return objects;
  }
  bool host_device = profile.mode == "host-device";
  json spec = host_device ? hostDevicePluginSpec(profile) : sharedPluginSpec(profile);
  addSecondaryNetwork(profile, spec);
  std::string why = host_device
                        ? "the SR-IOV device plugin advertises each data NIC as nvidia.com/" +
                              profile.resource_name + "<rail>, selected by " +
                              (profile.data_pci_addresses.empty() ? "its PF name (VFs of the data PFs; set "
                                                                    "dataPciAddresses to hand over whole PFs)"
                                                                  : "PCI address") +
                              "; Multus, the CNI plugins and nv-ipam attach and address the networks."
                        : "the shared RDMA device plugin advertises rdma/" + profile.resource_name +
                              " for the data NICs only; Multus, the CNI plugins" +
                              (profile.fabric == "infiniband" ? ", the IPoIB CNI" : "") +
                              " and nv-ipam attach and address the networks.";
  objects.push_back(nicClusterPolicyMerge(spec, why));
  for (size_t i = 0; i < rails; ++i) objects.push_back(railPool(profile, i));
  for (size_t i = 0; i < rails; ++i) {
    const std::string rail = "rail " + std::to_string(i) + " (" + profile.data_interfaces[i] + ")";
    json network = {{"networkNamespace", profile.ns}, {"ipam", nvIpam(profile, i)}};
    std::string kind = "HostDeviceNetwork";
    std::string comment =
        "HostDeviceNetwork: moves " + rail + "'s NIC into the pod as net" + std::to_string(i + 1) + ".";
    if (host_device) {
      network["resourceName"] = profile.resource_name + std::to_string(i);
    } else if (profile.fabric == "infiniband") {
      kind = "IPoIBNetwork";
      network["master"] = profile.data_interfaces[i];
      comment =
          "IPoIBNetwork: an IPoIB child of " + rail + " in the pod as net" + std::to_string(i + 1) + ".";
    } else {
      kind = "MacvlanNetwork";
      network["master"] = profile.data_interfaces[i];
      network["mode"] = "bridge";
      network["mtu"] = 9000;
      comment = "MacvlanNetwork: a macvlan of " + rail + " in the pod as net" + std::to_string(i + 1) + ".";
    }
    objects.push_back({"network-rail" + std::to_string(i) + ".yaml",
                       comment,
                       {{"apiVersion", "mellanox.com/v1alpha1"},
                        {"kind", kind},
                        {"metadata", {{"name", railName(profile, i)}}},
                        {"spec", network}}});
    if (host_device) decoration.limits["nvidia.com/" + profile.resource_name + std::to_string(i)] = 1;
  }
  if (!host_device) decoration.limits["rdma/" + profile.resource_name] = 1;
  attachRailNetworks(profile, decoration);
  socketEnv(profile, decoration, !host_device);
  return objects;
}

}  // namespace railkit::k8s::render
