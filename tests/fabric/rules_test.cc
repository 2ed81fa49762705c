// The fabric checks over rail-optimized fabrics built in ibnetdiscover's
// form: a healthy fabric has no finding, and each fault is named exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fabric/check.h"
#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"
#include "fabric_text.h"

namespace railkit::fabric {
namespace {

using railkit::testing::RailFabricText;

FabricReport analyse(const RailFabricText& text) {
  auto f = parseIbnetdiscover(text.text(), "fabric.txt");
  EXPECT_TRUE(f) << f.error().message;
  return f ? analyseFabric(*f) : FabricReport{};
}

std::vector<std::string> ids(const FabricReport& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) out.push_back(f.id);
  return out;
}

TEST(FabricChecks, HealthyFabricHasNoFinding) {
  auto r = analyse(RailFabricText(16, 8, 4));
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
  EXPECT_EQ(r.switches, 12);
  EXPECT_EQ(r.leaves, 8);
  EXPECT_EQ(r.upper, 4);
  EXPECT_EQ(r.hosts, 16);
  EXPECT_EQ(r.hca_ports, 128);
  EXPECT_EQ(r.rails, 8);
  ASSERT_EQ(r.picture.size(), 8u);
  ASSERT_EQ(r.picture[3].leaves.size(), 1u);
  EXPECT_EQ(r.picture[3].leaves[0].leaf, "leaf-r3");
  EXPECT_EQ(r.picture[3].leaves[0].hcas, 16);
}

TEST(FabricChecks, CableInTheWrongLeafIsNamed) {
  RailFabricText t(32, 8, 4);
  t.unplug(16, 3);
  t.move(16, 3, 5, t.uplinkPort(3) + 1);  // node017's rail 3 into a free port of leaf-r5
  auto r = analyse(t);
  ASSERT_EQ(ids(r), std::vector<std::string>({"rail-miscabled"}));
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.subject, "node017 mlx5_3");
  EXPECT_EQ(
      f.message,
      "node017 mlx5_3 (rail 3) is on leaf-r5 port 37; leaf-r5 holds rail 5 (32 of its HCAs are mlx5_5); the "
      "31 other nodes' rail 3 are on leaf-r3");
  EXPECT_NE(f.fix.find("Move the cable of node017 mlx5_3 from leaf-r5 port 37 to leaf-r3"), std::string::npos)
      << f.fix;
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].source, "fabric.txt");
  EXPECT_TRUE(f.evidence[0].line.has_value());
  // The picture marks the stray cell.
  bool marked = false;
  for (const auto& c : r.picture[3].leaves) marked |= c.leaf == "leaf-r5" && c.stray && c.hcas == 1;
  EXPECT_TRUE(marked);
  EXPECT_EQ(r.errors, 1);
}

TEST(FabricChecks, SwappedPairIsNamedAsSwapped) {
  RailFabricText t(8, 4, 2);
  t.move(2, 1, 2, 3);  // node003's rail-1 and rail-2 cables swapped at the node
  t.move(2, 2, 1, 3);
  auto r = analyse(t);
  ASSERT_EQ(ids(r), std::vector<std::string>({"rail-miscabled", "rail-miscabled"}));
  EXPECT_NE(r.findings[0].message.find("the two cables are swapped"), std::string::npos)
      << r.findings[0].message;
  EXPECT_EQ(r.findings[0].evidence.size(), 2u);
}

TEST(FabricChecks, UnpluggedPortIsAMissingRail) {
  RailFabricText t(8, 8, 2);
  t.unplug(3, 6);
  auto r = analyse(t);
  ASSERT_EQ(ids(r), std::vector<std::string>({"fabric-node-ports-missing"}));
  EXPECT_EQ(r.findings[0].subject, "node004");
  EXPECT_EQ(r.findings[0].message,
            "node004 has 7 HCA ports on the fabric; 7 of the 8 nodes have 8. Missing: rail 6 "
            "(mlx5_6)");
  EXPECT_NE(r.findings[0].fix.find("ibstat mlx5_6"), std::string::npos);
}

TEST(FabricChecks, NarrowAndSlowLinksAreNamed) {
  RailFabricText t(8, 4, 2);
  t.rate(1, 2, "1xNDR");
  t.rate(5, 0, "4xHDR");
  auto r = analyse(t);
  ASSERT_EQ(ids(r), std::vector<std::string>({"fabric-link-degraded", "fabric-link-degraded"}));
  EXPECT_EQ(
      r.findings[0].message,
      "the cable leaf-r0 port 6 - node006 mlx5_0 port 1 runs at 4xHDR (HDR instead of NDR); the fabric's "
      "other host cables run at 4xNDR");
  EXPECT_EQ(
      r.findings[1].message,
      "the cable leaf-r2 port 2 - node002 mlx5_2 port 1 runs at 1xNDR (1 of 4 lanes); the fabric's other "
      "host cables run at 4xNDR");
}

TEST(FabricChecks, LeafWithAMissingUplink) {
  RailFabricText t(8, 4, 4);
  t.dropUplink(2, 1);
  auto r = analyse(t);
  ASSERT_EQ(ids(r), std::vector<std::string>({"fabric-leaf-uplinks-missing"}));
  EXPECT_EQ(r.findings[0].subject, "leaf-r2");
  EXPECT_EQ(
      r.findings[0].message,
      "leaf-r2 has 3 uplinks for its 8 host ports (2.7:1); 3 of the 4 leaves have 4. Fewer cables than most "
      "leaves to: spine-2 (0 of 1)");
  EXPECT_EQ(r.warnings, 1);
  EXPECT_EQ(r.errors, 0);
}

TEST(FabricChecks, DefaultNodeDescriptionIsReported) {
  RailFabricText t(4, 2, 2);
  t.describe(2, 1, "MT4129 ConnectX7   Mellanox Technologies");
  auto r = analyse(t);
  // node003 then shows one port: both the unnamed HCA and the missing rail.
  ASSERT_EQ(ids(r), std::vector<std::string>({"fabric-node-ports-missing", "ib-node-description-default"}));
  EXPECT_EQ(r.unnamed, 1);
  EXPECT_NE(r.findings[0].message.find("1 HCA on the fabric carry no node description"), std::string::npos);
  EXPECT_EQ(
      r.findings[1].message,
      "1 HCA on the fabric has no \"<host> <device>\" node description (e.g. \"MT4129 ConnectX7   Mellanox "
      "Technologies\" on leaf-r1 port 3): railkit cannot tell their node or rail, so the rail and port-count "
      "checks skip them");
}

TEST(FabricChecks, RailsFollowTheDeviceOrderNotTheNumbers) {
  // DGX H100: compute NICs mlx5_0,3,4,5,6,9,10,11 are rails 0..7.
  const int numbers[] = {0, 3, 4, 5, 6, 9, 10, 11};
  RailFabricText t(4, 8, 2);
  for (int n = 0; n < 4; ++n)
    for (int r = 0; r < 8; ++r)
      t.describe(n, r, "dgx" + std::to_string(n) + " mlx5_" + std::to_string(numbers[r]));
  auto r = analyse(t);
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.picture.size(), 8u);
  EXPECT_EQ(r.picture[5].device, "mlx5_9");
  EXPECT_EQ(r.picture[5].leaves[0].leaf, "leaf-r5");
}

TEST(FabricChecks, TableIsSortedAndExplained) {
  const auto& all = allFabricChecks();
  ASSERT_EQ(all.size(), 10u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(std::string(all[i - 1].id), std::string(all[i].id));
  EXPECT_EQ(findFabricCheck("rail-miscabled"), &all[9]);
  EXPECT_EQ(findFabricCheck("nope"), nullptr);
}

}  // namespace
}  // namespace railkit::fabric
