// rdma-shared and sriov with cni spiderpool (seed 003, Spiderpool's AI
// cluster guides; links in docs/render.md "Spiderpool"): per rail a
// SpiderMultusConfig (macvlan over the rail's NIC with its shared RDMA
// resource; sriov or ib-sriov with the rail's VF resource) whose pools are
// that rail's SpiderIPPools, laid out by the profile's subnet plan
// (subnet_plan.h). Spiderpool makes a NetworkAttachmentDefinition of the
// same name and namespace from each SpiderMultusConfig, so the workers'
// Multus annotation names them as it names any network.
#include "k8s/render/modes.h"
#include "k8s/render/subnet_plan.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kApi = "spiderpool.spidernet.io/v2beta1";
constexpr const char* kNamespace = "spiderpool";  // the chart's namespace in the guides
constexpr const char* kResourcePrefix = "spidernet.io";
// The shared device plugin's ConfigMap as the chart names it
// (rdma.rdmaSharedDevicePlugin.name); the guide edits it for one resource per NIC.
constexpr const char* kSharedPluginConfig = "spiderpool-rdma-shared-device-plugin";

// rdmaIsolation moves the VF's RDMA device into the pod, which needs the
// node's RDMA subsystem in exclusive netns mode; with Spiderpool nothing sets it.
constexpr const char* kExclusiveNetns =
    " (rdmaIsolation needs the RDMA subsystem in exclusive netns mode on the node: railkit render node-prep, "
    "ib_core-netns-exclusive.conf)";

std::string resource(const Profile& profile, size_t rail) {
  return profile.resource_name + std::to_string(rail);
}

std::string helmCommand(const Profile& profile) {
  std::string component =
      profile.mode == "sriov" ? "--set sriov.install=true" : "--set rdma.rdmaSharedDevicePlugin.install=true";
  return "helm install spiderpool spiderpool/spiderpool -n spiderpool --create-namespace " + component +
         " --set spiderpoolAgent.prometheus.enabled=true --set "
         "spiderpoolAgent.prometheus.enabledRdmaMetric=true"
         " (railkit render node-prep writes the same as spiderpool-values.yaml)";
}

// The shared device plugin's config: one resource per rail, each selecting
// only that rail's NIC, so rail i's macvlan always comes with rail i's RDMA device.
RenderedObject sharedPluginConfig(const Profile& profile) {
  json list = json::array();
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i)
    list.push_back({{"resourcePrefix", kResourcePrefix},
                    {"resourceName", resource(profile, i)},
                    {"rdmaHcaMax", 100},
                    {"selectors", {{"ifNames", {profile.data_interfaces[i]}}}}});
  json config = {{"periodicUpdateInterval", 300}, {"configList", list}};
  return {"spiderpool-rdma-shared-device-plugin.yaml",
          "ConfigMap of Spiderpool's RDMA shared device plugin (installed by: " + helmCommand(profile) +
              "): one resource " + kResourcePrefix + "/" + profile.resource_name +
              "<rail> per data NIC, replacing the chart's single resource; restart the plugin after applying "
              "it (kubectl -n spiderpool rollout restart daemonset " +
              kSharedPluginConfig + ").",
          {{"apiVersion", "v1"},
           {"kind", "ConfigMap"},
           {"metadata", metadata(kSharedPluginConfig, kNamespace)},
           {"data", {{"config.json", config.dump(2)}}}}};
}

// SR-IOV: the operator Spiderpool installs (sriov.install) makes RDMA VFs per
// rail's PF; its device plugin advertises them under spidernet.io.
RenderedObject vfPolicy(const Profile& profile, size_t rail) {
  const std::string& pf = profile.data_interfaces[rail];
  json spec = {{"resourceName", resource(profile, rail)},
               {"nodeSelector", {{"kubernetes.io/os", "linux"}}},
               {"numVfs", 8},
               {"priority", 90},
               {"isRdma", true},
               {"deviceType", "netdevice"},
               {"linkType", profile.fabric == "infiniband" ? "IB" : "ETH"},
               {"nicSelector", {{"vendor", "15b3"}, {"pfNames", {pf}}}}};
  std::string comment = "SriovNetworkNodePolicy for the SR-IOV operator Spiderpool installs";
  if (rail == 0) comment += " (" + helmCommand(profile) + ")";
  return {"sriov-policy-rail" + std::to_string(rail) + ".yaml",
          comment + ": RDMA VFs on " + pf + " (rail " + std::to_string(rail) + ") advertised as " +
              kResourcePrefix + "/" + resource(profile, rail) +
              ". The operator reboots each node to make them.",
          {{"apiVersion", "sriovnetwork.openshift.io/v1"},
           {"kind", "SriovNetworkNodePolicy"},
           {"metadata", metadata(railName(profile, rail), kNamespace)},
           {"spec", spec}}};
}

RenderedObject ipPool(const Profile& profile, const PoolPlan& pool) {
  json spec = {{"ipVersion", 4},
               {"subnet", ipv4NetText(pool.subnet)},
               {"ips", {ipv4Text(pool.first) + "-" + ipv4Text(pool.last)}}};
  std::string rail = "rail " + std::to_string(pool.rail) + " (" + profile.data_interfaces[pool.rail] + ")";
  std::string comment = "SpiderIPPool: the addresses of " + rail + " on every node (subnetPlan shared).";
  if (!pool.node.empty()) {
    spec["gateway"] = ipv4Text(pool.gateway);
    spec["routes"] = {{{"dst", ipv4NetText(pool.route)}, {"gw", ipv4Text(pool.gateway)}}};
    spec["nodeAffinity"] = {{"matchLabels", {{"kubernetes.io/hostname", pool.node}}}};
    comment = "SpiderIPPool: node " + pool.node + "'s block of " + rail + " (subnetPlan exclusive). " +
              ipv4Text(pool.gateway) +
              " is the leaf's address in the block; the route sends the rail's whole " + "range " +
              ipv4NetText(pool.route) + " through it, so the rail reaches the other nodes' blocks " +
              "as the leaves route between them.";
  }
  return {"spiderippool-" + poolName(profile, pool) + ".yaml",
          comment,
          {{"apiVersion", kApi},
           {"kind", "SpiderIPPool"},
           {"metadata", {{"name", poolName(profile, pool)}}},
           {"spec", spec}}};
}

RenderedObject multusConfig(const Profile& profile, size_t rail, const json& pools) {
  const std::string& nic = profile.data_interfaces[rail];
  const std::string res = std::string(kResourcePrefix) + "/" + resource(profile, rail);
  json spec = {{"enableCoordinator", true}, {"coordinator", {{"tunePodRoutes", true}}}};
  std::string what;
  if (profile.mode == "rdma-shared") {
    spec["cniType"] = "macvlan";
    spec["macvlan"] = {{"master", {nic}}, {"rdmaResourceName", res}, {"ippools", {{"ipv4", pools}}}};
    what = "a macvlan of " + nic + " sharing its RDMA device (" + res + ")";
  } else if (profile.fabric == "infiniband") {
    spec["cniType"] = "ib-sriov";
    spec["ibsriov"] = {{"resourceName", res}, {"rdmaIsolation", true}, {"ippools", {{"ipv4", pools}}}};
    what = "an IB VF of " + nic + " (" + res + ") with its own RDMA device" + kExclusiveNetns;
  } else {
    spec["cniType"] = "sriov";
    spec["sriov"] = {{"resourceName", res}, {"rdmaIsolation", true}, {"ippools", {{"ipv4", pools}}}};
    what = "a VF of " + nic + " (" + res + ") with its own RDMA device" + kExclusiveNetns;
  }
  return {"spidermultusconfig-rail" + std::to_string(rail) + ".yaml",
          "SpiderMultusConfig: rail " + std::to_string(rail) + " in the pod as net" +
              std::to_string(rail + 1) + ", " + what + ", addressed from " + std::to_string(pools.size()) +
              " SpiderIPPool(s); the coordinator gives each rail its own policy route table in the pod. "
              "Spiderpool creates the NetworkAttachmentDefinition of the same name.",
          {{"apiVersion", kApi},
           {"kind", "SpiderMultusConfig"},
           {"metadata", metadata(railName(profile, rail), profile.ns)},
           {"spec", spec}}};
}

}  // namespace

Result<Objects> renderSpiderpoolMode(const Profile& profile, PodDecoration& decoration) {
  Objects objects;
  const size_t rails = profile.data_interfaces.size();
  if (profile.mode == "sriov") {
    for (size_t i = 0; i < rails; ++i) objects.push_back(vfPolicy(profile, i));
  } else {
    objects.push_back(sharedPluginConfig(profile));
  }
  std::vector<PoolPlan> pools = planPools(profile);
  std::vector<json> pool_names(rails, json::array());
  for (const PoolPlan& pool : pools) {
    objects.push_back(ipPool(profile, pool));
    pool_names[pool.rail].push_back(poolName(profile, pool));
  }
  for (size_t i = 0; i < rails; ++i) {
    objects.push_back(multusConfig(profile, i, pool_names[i]));
    decoration.limits[std::string(kResourcePrefix) + "/" + resource(profile, i)] = 1;
  }
  attachRailNetworks(profile, decoration);
  // A macvlan pod uses the host's shared devices under their own names; a VF is another device.
  socketEnv(profile, decoration, profile.mode == "rdma-shared");
  return objects;
}

}  // namespace railkit::k8s::render
