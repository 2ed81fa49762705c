// The fabric's tiers (blocks, spine groups, datacenter) and what railkit
// writes of them for each scheduler: topograph's labels and their kubectl
// script, Volcano HyperNodes, a Kueue Topology and Slurm's topology.conf.
#include "fabric/tiers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "fabric/ibnetdiscover.h"
#include "fabric/rails.h"
#include "fabric/scheduler_topology.h"
#include "fabric_text.h"

namespace railkit::fabric {
namespace {

using railkit::testing::RailFabricText;

// A fabric built cable by cable: switches named as managed switches print
// themselves ("MF0;NAME:MQM9700/U1"), HCAs "<host> <device>".
class FabricBuilder {
 public:
  std::size_t addSwitch(const std::string& name) {
    return add(NodeKind::kSwitch, "S-" + name, "MF0;" + name + ":MQM9700/U1");
  }
  std::size_t addHca(const std::string& host, const std::string& device) {
    return add(NodeKind::kCa, "H-" + host + "-" + device, host + " " + device);
  }
  void cable(std::size_t a, std::size_t b) {
    int pa = static_cast<int>(fabric_.nodes[a].ports.size()) + 1;
    int pb = static_cast<int>(fabric_.nodes[b].ports.size()) + 1;
    fabric_.nodes[a].ports.push_back(PortLink{pa, b, pb, 4, "NDR", 0, 0, ""});
    fabric_.nodes[b].ports.push_back(PortLink{pb, a, pa, 4, "NDR", 0, 0, ""});
  }
  Fabric& fabric() { return fabric_; }

 private:
  std::size_t add(NodeKind kind, std::string id, std::string description) {
    Node node;
    node.kind = kind;
    node.id = std::move(id);
    node.description = std::move(description);
    fabric_.nodes.push_back(std::move(node));
    return fabric_.nodes.size() - 1;
  }
  Fabric fabric_{"built", {}};
};

// `pods` pods, each with `groups` groups of `nodes` nodes on `rails` rail
// leaves and `spines` spines of its own; every spine on every core. With
// `cores` 0 the pods' spines are the top.
struct Clos {
  int pods = 1, groups = 1, nodes = 4, rails = 2, spines = 2, cores = 0;
};
Fabric buildClos(const Clos& c, FabricBuilder& b) {
  std::vector<std::size_t> cores;
  for (int k = 0; k < c.cores; ++k) cores.push_back(b.addSwitch("core" + std::to_string(k + 1)));
  int host = 0;
  for (int p = 0; p < c.pods; ++p) {
    std::vector<std::size_t> spines;
    for (int s = 0; s < c.spines; ++s) {
      spines.push_back(b.addSwitch("spine-p" + std::to_string(p + 1) + "-" + std::to_string(s + 1)));
      for (auto core : cores) b.cable(spines.back(), core);
    }
    for (int g = 0; g < c.groups; ++g) {
      std::vector<std::size_t> leaves;
      for (int r = 0; r < c.rails; ++r) {
        leaves.push_back(b.addSwitch("leaf-p" + std::to_string(p + 1) + "g" + std::to_string(g + 1) + "-r" +
                                     std::to_string(r)));
        for (auto spine : spines) b.cable(leaves.back(), spine);
      }
      for (int n = 0; n < c.nodes; ++n) {
        char name[16];
        std::snprintf(name, sizeof name, "node%03d", ++host);
        for (int r = 0; r < c.rails; ++r) b.cable(b.addHca(name, "mlx5_" + std::to_string(r)), leaves[r]);
      }
    }
  }
  return b.fabric();
}

std::vector<std::string> groupNames(const FabricTiers& tiers, std::size_t tier) {
  std::vector<std::string> names;
  for (const auto& g : tiers.tiers.at(tier)) names.push_back(g.name);
  return names;
}

TEST(FabricTiers, RailOptimizedUnitIsOneBlockUnderOneSpineGroup) {
  auto fabric = parseIbnetdiscover(RailFabricText(16, 8, 4).text(), "rail.txt");
  ASSERT_TRUE(fabric) << fabric.error().message;
  auto tiers = buildTiers(*fabric, buildRailView(*fabric));
  ASSERT_EQ(tiers.tiers.size(), 2u);
  ASSERT_EQ(tiers.tiers[0].size(), 1u);
  EXPECT_EQ(tiers.tiers[0][0].name, "leaf-r0");
  EXPECT_EQ(tiers.tiers[0][0].switches.size(), 8u);
  EXPECT_EQ(tiers.tiers[0][0].hosts.size(), 16u);
  ASSERT_EQ(tiers.tiers[1].size(), 1u);
  EXPECT_EQ(tiers.tiers[1][0].name, "spine-1");
  EXPECT_EQ(tiers.tiers[1][0].switches.size(), 4u);
  EXPECT_EQ(tiers.tiers[1][0].children, std::vector<std::size_t>{0});
  EXPECT_EQ(tiers.host_groups.at("node007"), (std::vector<std::size_t>{0, 0}));
}

TEST(FabricTiers, PodsMakeSpineGroupsUnderOneCore) {
  FabricBuilder b;
  auto fabric = buildClos({2, 2, 3, 2, 2, 2}, b);
  auto tiers = buildTiers(fabric, buildRailView(fabric));
  ASSERT_EQ(tiers.tiers.size(), 3u);
  EXPECT_EQ(groupNames(tiers, 0),
            (std::vector<std::string>{"leaf-p1g1-r0", "leaf-p1g2-r0", "leaf-p2g1-r0", "leaf-p2g2-r0"}));
  EXPECT_EQ(groupNames(tiers, 1), (std::vector<std::string>{"spine-p1-1", "spine-p2-1"}));
  EXPECT_EQ(groupNames(tiers, 2), (std::vector<std::string>{"core1"}));
  EXPECT_EQ(tiers.tiers[1][1].children, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(tiers.tiers[2][0].switches.size(), 2u);
  EXPECT_EQ(tiers.tiers[2][0].hosts.size(), 12u);
  // node010 is in pod 2's second group.
  EXPECT_EQ(tiers.host_groups.at("node010"), (std::vector<std::size_t>{3, 1, 0}));
}

TEST(FabricTiers, AStrayCableDoesNotJoinTwoBlocks) {
  FabricBuilder b;
  auto fabric = buildClos({1, 2, 4, 2, 2, 0}, b);
  // node001's rail-1 cable moved onto group 2's rail-0 leaf.
  std::size_t hca = 0, group2_rail0 = 0;
  for (std::size_t i = 0; i < fabric.nodes.size(); ++i) {
    if (fabric.nodes[i].description == "node001 mlx5_1") hca = i;
    if (fabric.nodes[i].description == "MF0;leaf-p1g2-r0:MQM9700/U1") group2_rail0 = i;
  }
  auto& link = fabric.nodes[hca].ports[0];
  auto& old_leaf = fabric.nodes[link.peer];
  old_leaf.ports.erase(std::find_if(old_leaf.ports.begin(), old_leaf.ports.end(),
                                    [&](const PortLink& l) { return l.peer == hca; }));
  link.peer = group2_rail0;
  link.peer_port = 40;
  fabric.nodes[group2_rail0].ports.push_back(PortLink{40, hca, 1, 4, "NDR", 0, 0, ""});
  auto tiers = buildTiers(fabric, buildRailView(fabric));
  ASSERT_EQ(tiers.tiers.size(), 2u);
  EXPECT_EQ(groupNames(tiers, 0), (std::vector<std::string>{"leaf-p1g1-r0", "leaf-p1g2-r0"}));
  EXPECT_EQ(tiers.host_groups.at("node001")[0], 0u);
}

TEST(FabricTiers, NamesAreLabelValuesAndUnique) {
  EXPECT_EQ(dnsLabel("MF0;B09-P1-IBLEAF-03-08:MQM9701/U1"), "mf0-b09-p1-ibleaf-03-08-mqm9701-u1");
  EXPECT_EQ(dnsLabel("B09-P1-IBLEAF-03-08"), "b09-p1-ibleaf-03-08");
  EXPECT_EQ(dnsLabel("--leaf_1--"), "leaf-1");
  EXPECT_EQ(dnsLabel(";;;"), "");
  EXPECT_EQ(dnsLabel(std::string(70, 'a') + "-b"), std::string(63, 'a'));
  EXPECT_EQ(dnsLabel(std::string(62, 'a') + "-b"), std::string(62, 'a'));
  // Two switches whose names clean to the same label.
  FabricBuilder b;
  auto l1 = b.addSwitch("Leaf_1"), l2 = b.addSwitch("leaf-1"), spine = b.addSwitch("leaf.1");
  b.cable(l1, spine);
  b.cable(l2, spine);
  b.cable(b.addHca("a01", "mlx5_0"), l1);
  b.cable(b.addHca("a02", "mlx5_0"), l2);
  auto tiers = buildTiers(b.fabric(), buildRailView(b.fabric()));
  ASSERT_EQ(tiers.tiers.size(), 2u);
  EXPECT_EQ(groupNames(tiers, 0), (std::vector<std::string>{"leaf-1", "leaf-1-2"}));
  EXPECT_EQ(groupNames(tiers, 1), (std::vector<std::string>{"leaf-1-3"}));
}

TEST(FabricTiers, NoNamedHostNoTiers) {
  FabricBuilder b;
  b.cable(b.addSwitch("leaf"), b.addHca("MT4129", "ConnectX7 Mellanox"));
  EXPECT_TRUE(buildTiers(b.fabric(), buildRailView(b.fabric())).tiers.empty());
}

TEST(SlurmHostlist, CompressesRunsOfOneWidth) {
  EXPECT_EQ(slurmHostlist({"node003", "node001", "node002", "node005", "gpu-a", "node010", "n9", "n10"}),
            "n9,n10,node[001-003,005,010],gpu-a");
  EXPECT_EQ(slurmHostlist({"spine-1"}), "spine-1");
  EXPECT_EQ(slurmHostlist({"spine-1", "spine-2"}), "spine-[1-2]");
  EXPECT_EQ(slurmHostlist({"a1234567890"}), "a1234567890");
}

TEST(DnsSubdomain, AcceptsNodeNamesOnly) {
  EXPECT_TRUE(isDnsSubdomain("node001"));
  EXPECT_TRUE(isDnsSubdomain("b08-p1-dgx-08-c01.cluster.local"));
  EXPECT_FALSE(isDnsSubdomain("Node001"));
  EXPECT_FALSE(isDnsSubdomain("node_1"));
  EXPECT_FALSE(isDnsSubdomain("-node"));
  EXPECT_FALSE(isDnsSubdomain("a..b"));
  EXPECT_FALSE(isDnsSubdomain(std::string(64, 'a')));
  EXPECT_FALSE(isDnsSubdomain(""));
}

TEST(SchedulerTopology, EachSchedulersFormOfATwoPodFabric) {
  FabricBuilder b;
  auto fabric = buildClos({2, 1, 2, 2, 1, 1}, b);
  auto topology = schedulerTopology(fabric, buildTiers(fabric, buildRailView(fabric)), "gpu-fabric");
  const auto& labels = topology.node_labels;
  EXPECT_EQ(labels["kind"], "railkit.node-labels/v1");
  EXPECT_EQ(labels["labels"].size(), 3u);
  EXPECT_EQ(labels["nodes"]["node003"]["network.topology.nvidia.com/block"], "leaf-p2g1-r0");
  EXPECT_EQ(labels["nodes"]["node003"]["network.topology.nvidia.com/spine"], "spine-p2-1");
  EXPECT_EQ(labels["nodes"]["node003"]["network.topology.nvidia.com/datacenter"], "core1");
  EXPECT_EQ(labels["groups"][0]["switches"], (nlohmann::json{"leaf-p1g1-r0", "leaf-p1g1-r1"}));

  EXPECT_NE(
      topology.label_script.find(
          "\"$KUBECTL\" label node --overwrite node001 network.topology.nvidia.com/block=leaf-p1g1-r0 "
          "network.topology.nvidia.com/spine=spine-p1-1 network.topology.nvidia.com/datacenter=core1\n"),
      std::string::npos)
      << topology.label_script;

  // 2 blocks, 2 spine groups, 1 datacenter; the blocks hold nodes, the rest HyperNodes.
  ASSERT_EQ(topology.hypernodes.size(), 5u);
  const auto& block = topology.hypernodes[0];
  EXPECT_EQ(block["metadata"]["name"], "leaf-p1g1-r0");
  EXPECT_EQ(block["spec"]["tier"], 1);
  EXPECT_EQ(block["spec"]["tierName"], "block");
  EXPECT_EQ(block["spec"]["members"][1]["selector"]["exactMatch"]["name"], "node002");
  EXPECT_EQ(block["spec"]["members"][1]["type"], "Node");
  const auto& top = topology.hypernodes[4];
  EXPECT_EQ(top["spec"]["tier"], 3);
  EXPECT_EQ(top["spec"]["members"][0]["type"], "HyperNode");
  EXPECT_EQ(top["spec"]["members"][1]["selector"]["exactMatch"]["name"], "spine-p2-1");

  EXPECT_EQ(topology.kueue_topology["metadata"]["name"], "gpu-fabric");
  EXPECT_EQ(topology.kueue_topology["spec"]["levels"],
            (nlohmann::json{{{"nodeLabel", "network.topology.nvidia.com/datacenter"}},
                            {{"nodeLabel", "network.topology.nvidia.com/spine"}},
                            {{"nodeLabel", "network.topology.nvidia.com/block"}},
                            {{"nodeLabel", "kubernetes.io/hostname"}}}));

  std::string conf = topology.slurm_topology;
  EXPECT_NE(conf.find("SwitchName=leaf-p1g1-r0 Nodes=node[001-002]\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=spine-p2-1 Switches=leaf-p2g1-r0\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=core1 Switches=spine-p1-1,spine-p2-1\n"), std::string::npos) << conf;
  EXPECT_TRUE(topology.skipped.empty());
}

TEST(SchedulerTopology, HostsThatCannotBeNodeNamesAreLeftOutAndSaid) {
  FabricBuilder b;
  auto leaf = b.addSwitch("leaf-a");
  b.cable(b.addHca("GPU01", "mlx5_0"), leaf);  // a node name in lowercase
  b.cable(b.addHca("gpu_02", "mlx5_0"), leaf);
  b.cable(b.addHca("gpu01", "mlx5_0"), leaf);  // the same node name as GPU01
  auto topology = schedulerTopology(b.fabric(), buildTiers(b.fabric(), buildRailView(b.fabric())));
  EXPECT_EQ(topology.node_labels["nodes"].size(), 1u) << topology.node_labels.dump();
  EXPECT_TRUE(topology.node_labels["nodes"].contains("gpu01"));
  ASSERT_EQ(topology.skipped.size(), 2u);
  EXPECT_EQ(topology.skipped[0], "gpu01: the same node name as host GPU01");
  EXPECT_NE(topology.skipped[1].find("gpu_02: not a Kubernetes node name"), std::string::npos);
  EXPECT_NE(topology.slurm_topology.find("SwitchName=leaf-a Nodes=GPU01\n"), std::string::npos)
      << topology.slurm_topology;
  EXPECT_EQ(topology.kueue_topology["spec"]["levels"].size(), 2u);
}

}  // namespace
}  // namespace railkit::fabric
