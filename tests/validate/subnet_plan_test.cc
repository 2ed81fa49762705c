// validate's subnet plan per rail (phase 2) on the two plans of seed 003,
// Spiderpool's RDMA guide: shared (every node's rail-i NIC in one subnet,
// e.g. 172.17.1.0/24) and exclusive (each node its own /27 of the rail's
// 172.17.0.0/24: node1 172.17.0.0/27 ... node8 172.17.0.224/27).
#include "validate/subnet_plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "validate/consistency.h"
#include "validate/inventories.h"

namespace railkit::validate {
namespace {

// Node i's rail-r address: `address(i, r)`; "" leaves it out.
template <typename AddressOf>
std::vector<NodeAttributes> nodesWith(int nodes, int rails, AddressOf address) {
  std::vector<NodeAttributes> out;
  for (int i = 0; i < nodes; ++i) {
    NodeAttributes node{"node" + std::to_string(i + 1), {{"GPU count", "8"}}};
    for (int r = 1; r <= rails; ++r) {
      std::string a = address(i, r);
      if (!a.empty()) node.attributes.push_back({"net" + std::to_string(r) + " IPv4 address", a});
    }
    out.push_back(std::move(node));
  }
  return out;
}

// Seed 003's exclusive plan: rail r is 172.17.(r-1).0/24, node i its /27.
std::string exclusiveAddress(int i, int r) {
  return "172.17." + std::to_string(r - 1) + "." + std::to_string(32 * i + 2) + "/27";
}

TEST(SubnetPlan, SharedPlanOneSubnetPerRail) {
  auto nodes = nodesWith(4, 2, [](int i, int r) {
    return "172.17." + std::to_string(r) + "." + std::to_string(10 + i) + "/24";
  });
  SubnetPlans plans = findSubnetPlans(nodes);
  ASSERT_EQ(plans.rails.size(), 2u);
  EXPECT_EQ(plans.rails[0].plan, "shared");
  EXPECT_EQ(plans.rails[0].range, "172.17.1.0/24");
  EXPECT_EQ(plans.rails[1].range, "172.17.2.0/24");
  EXPECT_TRUE(plans.outliers.empty());
  EXPECT_EQ(formatSubnetPlans(plans.rails)[0], "net1: shared subnet 172.17.1.0/24 (4 nodes)");
  // The value comparison leaves the addresses to the plan: no outlier there.
  EXPECT_TRUE(findOutliers(nodes).empty());
}

TEST(SubnetPlan, ExclusivePlanSeedsBlocks) {
  auto nodes = nodesWith(8, 2, exclusiveAddress);
  SubnetPlans plans = findSubnetPlans(nodes);
  ASSERT_EQ(plans.rails.size(), 2u);
  EXPECT_EQ(plans.rails[0].plan, "exclusive");
  EXPECT_EQ(plans.rails[0].block_prefix, 27);
  EXPECT_EQ(plans.rails[0].range, "172.17.0.0/24");
  EXPECT_EQ(plans.rails[1].range, "172.17.1.0/24");
  EXPECT_TRUE(plans.outliers.empty());
  EXPECT_EQ(formatSubnetPlans(plans.rails)[1], "net2: exclusive /27 blocks within 172.17.1.0/24 (8 nodes)");
  EXPECT_TRUE(findOutliers(nodes).empty());
}

// node3's rail-2 address was taken from rail 1's range: named as such, in
// both plans.
TEST(SubnetPlan, AddressInAnotherRailsRangeIsNamed) {
  auto exclusive = nodesWith(
      8, 2, [](int i, int r) { return i == 2 && r == 2 ? "172.17.0.70/27" : exclusiveAddress(i, r); });
  SubnetPlans plans = findSubnetPlans(exclusive);
  ASSERT_EQ(plans.outliers.size(), 1u);
  EXPECT_EQ(plans.outliers[0].host, "node3");
  EXPECT_EQ(plans.outliers[0].attribute, "net2 IPv4 address");
  EXPECT_EQ(plans.outliers[0].value, "172.17.0.70/27 (in net1's range 172.17.0.0/24)");
  EXPECT_EQ(plans.outliers[0].majority_value, "exclusive /27 blocks within 172.17.1.0/24");
  EXPECT_EQ(plans.outliers[0].majority_count, 7);
  EXPECT_EQ(plans.rails[1].range, "172.17.1.0/24");  // the range of the nodes on the plan

  auto shared = nodesWith(4, 2, [](int i, int r) {
    return "172.17." + std::to_string(i == 1 && r == 2 ? 1 : r) + "." + std::to_string(10 + i) + "/24";
  });
  plans = findSubnetPlans(shared);
  ASSERT_EQ(plans.outliers.size(), 1u);
  EXPECT_EQ(plans.outliers[0].host, "node2");
  EXPECT_EQ(plans.outliers[0].value, "172.17.1.11/24 (in net1's range 172.17.1.0/24)");
  EXPECT_EQ(plans.outliers[0].majority_value, "shared subnet 172.17.2.0/24");
}

// 4 nodes use half of each rail's /24; node4's rail-2 address comes from
// the free half of rail 1's: it overlaps no rail-1 block, but without it
// rail 2's blocks stay clear of rail 1's.
TEST(SubnetPlan, AddressInAnotherRailsFreeBlocksIsNamed) {
  auto nodes = nodesWith(
      4, 2, [](int i, int r) { return i == 3 && r == 2 ? "172.17.0.130/27" : exclusiveAddress(i, r); });
  SubnetPlans plans = findSubnetPlans(nodes);
  ASSERT_EQ(plans.outliers.size(), 1u);
  EXPECT_EQ(plans.outliers[0].host, "node4");
  EXPECT_EQ(plans.outliers[0].attribute, "net2 IPv4 address");
  EXPECT_EQ(plans.outliers[0].value, "172.17.0.130/27 (outside net2's plan)");
  EXPECT_EQ(plans.rails[1].range, "172.17.1.0/25");
  EXPECT_EQ(plans.rails[0].range, "172.17.0.0/25");
  // The same blocks on their own rails: nothing to name.
  EXPECT_TRUE(findSubnetPlans(nodesWith(4, 2, exclusiveAddress)).outliers.empty());
}

TEST(SubnetPlan, AddressOutsideEveryPlanIsOutsideItsRailsPlan) {
  auto nodes = nodesWith(
      4, 1, [](int i, int) { return i == 3 ? "10.9.9.9/24" : "172.17.1." + std::to_string(10 + i) + "/24"; });
  SubnetPlans plans = findSubnetPlans(nodes);
  ASSERT_EQ(plans.outliers.size(), 1u);
  EXPECT_EQ(plans.outliers[0].host, "node4");
  EXPECT_EQ(plans.outliers[0].value, "10.9.9.9/24 (outside net1's plan)");
  // An exclusive rail with one block from far away (without it the range
  // around the others is 2^8 times smaller or more).
  auto far = nodesWith(8, 1, [](int i, int r) { return i == 5 ? "10.9.9.2/27" : exclusiveAddress(i, r); });
  plans = findSubnetPlans(far);
  ASSERT_EQ(plans.outliers.size(), 1u);
  EXPECT_EQ(plans.outliers[0].host, "node6");
  EXPECT_EQ(plans.outliers[0].value, "10.9.9.2/27 (outside net1's plan)");
  EXPECT_EQ(plans.rails[0].range, "172.17.0.0/24");
  // A block of another size in an exclusive plan is off the plan too.
  auto blocks =
      nodesWith(4, 1, [](int i, int) { return i == 0 ? "172.17.0.2/26" : exclusiveAddress(i + 1, 1); });
  plans = findSubnetPlans(blocks);
  ASSERT_EQ(plans.outliers.size(), 1u);
  EXPECT_EQ(plans.outliers[0].host, "node1");
}

TEST(SubnetPlan, TooFewNodesToTell) {
  SubnetPlans one = findSubnetPlans(nodesWith(1, 1, exclusiveAddress));
  ASSERT_EQ(one.rails.size(), 1u);
  EXPECT_EQ(one.rails[0].plan, "unknown");
  EXPECT_TRUE(subnetPlansToJson(one.rails)[0]["range"].is_null());
  // Two nodes in two blocks: exclusive, but neither can be called the odd one.
  SubnetPlans two =
      findSubnetPlans(nodesWith(2, 1, [](int i, int) { return i ? "10.0.0.1/27" : "172.17.0.2/27"; }));
  EXPECT_EQ(two.rails[0].plan, "exclusive");
  EXPECT_TRUE(two.outliers.empty());
  // No addresses (a --root capture): no rail, nothing said.
  EXPECT_TRUE(findSubnetPlans(nodesWith(3, 2, [](int, int) { return std::string(); })).rails.empty());
}

// A --root snapshot of a live node carries its addresses in railkit/live.json
// (snapshot.cc writes them): read back as validate --root reads a tree, the
// rails' addresses reach the plan, and an IPv6 address first is passed over.
// (The scratch trees are removed by consistency_test.cc's environment.)
TEST(SubnetPlan, SnapshotLiveJsonCarriesTheRailAddresses) {
  std::vector<NodeAttributes> nodes;
  for (int i = 0; i < 3; ++i) {
    auto node = testing::NodeBuilder::healthyRoce();
    nlohmann::json addresses = {{"eth0", {"10.244.1." + std::to_string(7 + i) + "/24"}}};
    for (int r = 1; r <= 2; ++r)
      addresses["ens" + std::to_string(r - 1) + "f0np0"] = {"fe80::" + std::to_string(r) + "/64",
                                                            exclusiveAddress(i, r)};
    node.setLiveJson(nlohmann::json{{"addresses", addresses}}.dump());
    nodes.push_back({"node" + std::to_string(i + 1),
                     nodeAttributes(testing::inventoryOf(node, "plan-node" + std::to_string(i)))});
  }
  SubnetPlans plans = findSubnetPlans(nodes);
  ASSERT_EQ(plans.rails.size(), 2u);
  EXPECT_EQ(formatSubnetPlans(plans.rails)[0],
            "ens0f0np0: exclusive /27 blocks within 172.17.0.0/25 (3 nodes)");
  EXPECT_EQ(formatSubnetPlans(plans.rails)[1],
            "ens1f0np0: exclusive /27 blocks within 172.17.1.0/25 (3 nodes)");
  EXPECT_TRUE(plans.outliers.empty());
  // Without live.json (a tree that is not a snapshot of a live node): no address, no plan.
  auto bare = nodeAttributes(testing::inventoryOf(testing::NodeBuilder::healthyRoce(), "plan-bare"));
  EXPECT_TRUE(findSubnetPlans({{"node1", bare}, {"node2", bare}}).rails.empty());
}

TEST(SubnetPlan, JsonForm) {
  auto json = subnetPlansToJson(findSubnetPlans(nodesWith(8, 1, exclusiveAddress)).rails);
  EXPECT_EQ(
      json,
      nlohmann::json::parse(
          R"([{"rail":"net1","plan":"exclusive","range":"172.17.0.0/24","block_prefix":27,"nodes":8}])"));
}

}  // namespace
}  // namespace railkit::validate
