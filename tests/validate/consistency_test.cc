// Phase 2 from real trees: the attributes a node's inventory reduces to, and
// the outliers rank 0 names when one node of many differs (firmware, a
// missing device, the RoCE GID layout, MTU, an environment variable).
#include "validate/consistency.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "validate/inventories.h"

using railkit::testing::inventoryOf;
using railkit::testing::NodeBuilder;
using railkit::validate::findOutliers;
using railkit::validate::formatOutliers;
using railkit::validate::NodeAttribute;
using railkit::validate::NodeAttributes;
using railkit::validate::nodeAttributes;
using railkit::validate::Outlier;

namespace {

[[maybe_unused]] ::testing::Environment* const kCleanup = ::testing::AddGlobalTestEnvironment(
    new railkit::testing::NodeScratchCleanup(railkit::testing::kValidateScratch));

// By how the node names each attribute (its label, else the compared key).
std::map<std::string, std::string> asMap(const std::vector<NodeAttribute>& attributes) {
  std::map<std::string, std::string> out;
  for (const auto& a : attributes) out[a.label.empty() ? a.name : a.label] = a.value;
  return out;
}

std::vector<NodeAttribute> attributesOf(const NodeBuilder& node, const std::string& name) {
  return nodeAttributes(inventoryOf(node, name));
}

// `count` nodes "node-0".."node-N": every one `healthy` except those in `odd`.
std::vector<NodeAttributes> cluster(int count, const std::vector<NodeAttribute>& healthy,
                                    const std::map<int, std::vector<NodeAttribute>>& odd) {
  std::vector<NodeAttributes> nodes;
  for (int i = 0; i < count; ++i) {
    auto it = odd.find(i);
    nodes.push_back({"node-" + std::to_string(i), it == odd.end() ? healthy : it->second});
  }
  return nodes;
}

std::string describe(const std::vector<Outlier>& outliers) {
  std::string s;
  for (const auto& o : outliers)
    s += "  " + o.host + " " + o.attribute + " " + o.value + " vs " + o.majority_value + "\n";
  return s;
}

TEST(NodeAttributes, HealthyDgxReadsNaturally) {
  auto node = NodeBuilder::healthyDgxH100();
  node.spec().module_versions["mlx5_core"] = "23.10-1.1.9";
  auto a = asMap(attributesOf(node, "dgx"));
  EXPECT_EQ(a["mlx5_0 firmware"], "28.39.1002");
  EXPECT_EQ(a["mlx5_0 driver"], "mlx5_core");
  EXPECT_EQ(a["mlx5_0 driver version"], "23.10-1.1.9");
  EXPECT_EQ(a["mlx5_0 PCIe width"], "x16");
  EXPECT_EQ(a["mlx5_0 PCIe speed"], "32 GT/s");
  EXPECT_EQ(a["mlx5_0/1 link rate"], "400 Gb/sec");
  EXPECT_EQ(a["mlx5_0/1 link width"], "4X");
  EXPECT_EQ(a["mlx5_0/1 link layer"], "InfiniBand");
  // A port's state is phase 1's finding, not an attribute to compare.
  EXPECT_EQ(a.count("mlx5_0/1 state"), 0u);
  EXPECT_EQ(a["ib0 MTU"], "4092");
  EXPECT_EQ(a["RDMA device count"], "8");
  EXPECT_EQ(a["RDMA netns mode"], "shared");
  EXPECT_EQ(a["GPU count"], "8");
  EXPECT_EQ(a["GPU model"], "NVIDIA H100 80GB HBM3");
  // Device names in these two are compared as their rails (netdevs): a VF's
  // name differs from pod to pod, its rail does not.
  EXPECT_EQ(a["env NCCL_IB_HCA"], "=ib0,ib1,ib2,ib3,ib4,ib5,ib6,ib7");
  EXPECT_EQ(a["env UCX_NET_DEVICES"], "ib0:1");
  // IB ports have no RoCE GID; only NCCL_* and UCX_* are compared; no per-node identities.
  EXPECT_EQ(a.count("mlx5_0/1 RoCE v2 IPv4 GID index"), 0u);
  for (const auto& [name, value] : a) {
    EXPECT_NE(name.rfind("env OMPI_", 0), 0u) << name;
    EXPECT_EQ(name.find("guid"), std::string::npos) << name;
  }
}

TEST(NodeAttributes, SortedUniqueAndTheSameForTwoCopiesOfOneNode) {
  auto first = attributesOf(NodeBuilder::healthyDgxH100(), "copy-a");
  auto second = attributesOf(NodeBuilder::healthyDgxH100(), "copy-b");
  ASSERT_GE(first.size(), 8u * 9u);  // 8 devices x (4 device + 4 port attributes + MTU) and more
  EXPECT_TRUE(std::is_sorted(first.begin(), first.end(),
                             [](const auto& x, const auto& y) { return x.name < y.name; }));
  for (size_t i = 1; i < first.size(); ++i) EXPECT_NE(first[i - 1].name, first[i].name);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].name, second[i].name);
    EXPECT_EQ(first[i].value, second[i].value) << first[i].name;
  }
  EXPECT_TRUE(findOutliers({{"a", first}, {"b", second}}).empty());
}

TEST(Outliers, OneFirmwareOfSixteenNodes) {
  auto healthy = NodeBuilder::healthyDgxH100();
  for (auto& nic : healthy.spec().nics) nic.fw_ver = "28.41.1000";
  auto odd = healthy;
  odd.nic("mlx5_2").fw_ver = "28.39.1002";
  auto nodes = cluster(16, attributesOf(healthy, "fw-healthy"), {{3, attributesOf(odd, "fw-odd")}});
  auto outliers = findOutliers(nodes);
  ASSERT_EQ(outliers.size(), 1u) << describe(outliers);
  const auto& o = outliers[0];
  EXPECT_EQ(o.attribute, "mlx5_2 firmware");
  EXPECT_EQ(o.host, "node-3");
  EXPECT_EQ(o.value, "28.39.1002");
  EXPECT_EQ(o.majority_value, "28.41.1000");
  EXPECT_EQ(o.majority_count, 15);
  EXPECT_FALSE(o.tie);
  EXPECT_EQ(formatOutliers(outliers, 16),
            std::vector<std::string>{"node-3 mlx5_2 firmware 28.39.1002; the 15 others 28.41.1000"});
}

TEST(Outliers, NodeMissingADeviceShowsAbsent) {
  auto healthy = attributesOf(NodeBuilder::healthyDgxH100(), "dev-healthy");
  auto missing =
      attributesOf(railkit::testing::withoutNic(NodeBuilder::healthyDgxH100(), "mlx5_7"), "dev-missing");
  auto outliers = findOutliers(cluster(8, healthy, {{5, missing}}));
  std::map<std::string, Outlier> by_attribute;
  for (const auto& o : outliers) {
    EXPECT_EQ(o.host, "node-5");
    EXPECT_EQ(o.majority_count, 7);
    by_attribute[o.attribute] = o;
  }
  ASSERT_EQ(by_attribute.count("mlx5_7 firmware"), 1u) << describe(outliers);
  EXPECT_EQ(by_attribute["mlx5_7 firmware"].value, "(absent)");
  EXPECT_EQ(by_attribute["mlx5_7 firmware"].majority_value, "28.39.1002");
  EXPECT_EQ(by_attribute["ib7 MTU"].value, "(absent)");
  EXPECT_EQ(by_attribute["RDMA device count"].value, "7");
  EXPECT_EQ(by_attribute["RDMA device count"].majority_value, "8");
}

TEST(Outliers, TwoNodesThatDifferAreATie) {
  auto a = attributesOf(NodeBuilder::healthyDgxH100(), "tie-a");
  auto bnode = NodeBuilder::healthyDgxH100();
  bnode.setNetdevMtu("ib4", 2044);
  auto outliers = findOutliers(cluster(2, a, {{1, attributesOf(bnode, "tie-b")}}));
  ASSERT_EQ(outliers.size(), 1u) << describe(outliers);
  EXPECT_TRUE(outliers[0].tie);
  EXPECT_EQ(outliers[0].attribute, "ib4 MTU");
  EXPECT_EQ(outliers[0].host, "node-1");  // the first node's value stands as the majority
  EXPECT_EQ(outliers[0].majority_value, "4092");
  EXPECT_EQ(outliers[0].majority_count, 1);
  auto lines = formatOutliers(outliers, 2);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "node-1 ib4 MTU 2044; no majority (1 node has 4092)");
}

TEST(Outliers, RoceGidIndexAndMtu) {
  auto healthy = NodeBuilder::healthyRoce();
  auto ha = asMap(attributesOf(healthy, "roce-healthy"));
  EXPECT_EQ(ha["mlx5_0/1 RoCE v2 IPv4 GID index"], "3");
  EXPECT_EQ(ha["mlx5_0/1 link layer"], "Ethernet");
  EXPECT_EQ(ha["ens0f0np0 MTU"], "9000");
  // One node lists its IPv4 RoCE v2 GID at index 2: NCCL_IB_GID_INDEX=3 picks v1 there.
  auto gid = NodeBuilder::healthyRoce();
  gid.setGidType("mlx5_0", 1, 2, "RoCE v2").setGidType("mlx5_0", 1, 3, "IB/RoCE v1");
  auto mtu = NodeBuilder::healthyRoce();
  mtu.setNetdevMtu("ens1f0np0", 1500);
  auto outliers =
      findOutliers(cluster(6, attributesOf(healthy, "roce-healthy"),
                           {{2, attributesOf(gid, "roce-gid")}, {4, attributesOf(mtu, "roce-mtu")}}));
  ASSERT_EQ(outliers.size(), 2u) << describe(outliers);
  // Compared by rail (the port's netdev), named as the node names the port.
  EXPECT_EQ(outliers[0].key, "ens0f0np0 RoCE v2 IPv4 GID index");
  EXPECT_EQ(outliers[0].attribute, "mlx5_0/1 RoCE v2 IPv4 GID index");
  EXPECT_EQ(outliers[0].host, "node-2");
  EXPECT_EQ(outliers[0].value, "2");
  EXPECT_EQ(outliers[0].majority_value, "3");
  EXPECT_EQ(outliers[1].attribute, "ens1f0np0 MTU");
  EXPECT_EQ(outliers[1].host, "node-4");
  EXPECT_EQ(formatOutliers(outliers, 6),
            (std::vector<std::string>{"node-2 mlx5_0/1 RoCE v2 IPv4 GID index 2; the 5 others 3",
                                      "node-4 ens1f0np0 MTU 1500; the 5 others 9000"}));
}

// SR-IOV and DRA: the pod's VF has another name on every node (mlx5_17 here,
// mlx5_10 there) behind the same rail (netdev). Names alone are no outlier;
// a real difference is named with the node's own device name.
TEST(Outliers, DevicesNamedDifferentlyOnTheSameRailAreCompared) {
  auto renamed = [](const std::string& to, const std::string& fw) {
    auto node = NodeBuilder::healthyRoce();
    auto& nics = node.spec().nics;
    nics[0].name = to;
    nics[0].fw_ver = fw;
    node.setEnv("NCCL_IB_HCA", "=" + to + ":1");
    return node;
  };
  auto a = nodeAttributes(inventoryOf(renamed("mlx5_17", "28.39.1002"), "vf-a"));
  auto b = nodeAttributes(inventoryOf(renamed("mlx5_10", "28.39.1002"), "vf-b"));
  auto c = nodeAttributes(inventoryOf(renamed("mlx5_13", "28.36.1010"), "vf-c"));
  auto same = findOutliers({{"node-a", a}, {"node-b", b}, {"node-a2", a}});
  EXPECT_TRUE(same.empty()) << describe(same);
  auto odd = findOutliers({{"node-a", a}, {"node-b", b}, {"node-c", c}});
  ASSERT_EQ(odd.size(), 1u) << describe(odd);
  EXPECT_EQ(odd[0].host, "node-c");
  EXPECT_EQ(odd[0].attribute, "mlx5_13 firmware");
  EXPECT_EQ(odd[0].key, "ens0f0np0 firmware");
}

TEST(Outliers, VariableOnlyOneNodeSets) {
  auto healthy = NodeBuilder::healthyDgxH100();
  auto odd = NodeBuilder::healthyDgxH100();
  odd.setEnv("NCCL_ALGO", "Ring").setEnv("OMPI_MCA_pml", "ob1");  // OMPI_* is not compared
  auto outliers =
      findOutliers(cluster(4, attributesOf(healthy, "env-healthy"), {{1, attributesOf(odd, "env-odd")}}));
  ASSERT_EQ(outliers.size(), 1u) << describe(outliers);
  EXPECT_EQ(outliers[0].attribute, "env NCCL_ALGO");
  EXPECT_EQ(outliers[0].host, "node-1");
  EXPECT_EQ(outliers[0].value, "Ring");
  EXPECT_EQ(outliers[0].majority_value, "(absent)");
  EXPECT_EQ(outliers[0].majority_count, 3);
}

TEST(Outliers, DriverVersionOfOneNode) {
  auto healthy = NodeBuilder::healthyDgxH100();
  healthy.spec().module_versions["mlx5_core"] = "24.04-0.7.0";
  auto odd = healthy;
  odd.spec().module_versions["mlx5_core"] = "23.10-1.1.9";
  auto outliers =
      findOutliers(cluster(3, attributesOf(healthy, "drv-healthy"), {{0, attributesOf(odd, "drv-odd")}}));
  ASSERT_EQ(outliers.size(), 8u) << describe(outliers);  // one per mlx5 device
  EXPECT_EQ(outliers[0].attribute, "mlx5_0 driver version");
  EXPECT_EQ(outliers[0].host, "node-0");
  EXPECT_EQ(outliers[0].majority_value, "24.04-0.7.0");
}

TEST(NodeAttributes, JsonRoundTrip) {
  auto attributes = attributesOf(NodeBuilder::healthyRoce(), "json");
  auto text = railkit::validate::attributesToJson(attributes).dump();
  auto back = railkit::validate::attributesFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_EQ(back->size(), attributes.size());
  for (size_t i = 0; i < attributes.size(); ++i) {
    EXPECT_EQ((*back)[i].name, attributes[i].name);
    EXPECT_EQ((*back)[i].value, attributes[i].value);
  }
}

}  // namespace
