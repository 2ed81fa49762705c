// Phase 1 over NodeBuilder trees: the counts of active data-rail ports and
// GPUs, the rdma-nic-count / gpu-count findings that name what is missing
// and what is there, and doctor's findings alongside them.
#include "validate/node_check.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "validate/inventories.h"
#include "validate/rules.h"

using railkit::Finding;
using railkit::Severity;
using railkit::testing::inventoryOf;
using railkit::testing::NodeBuilder;
using railkit::validate::checkNode;
using railkit::validate::countFindings;
using railkit::validate::countNode;
using railkit::validate::NodeExpectations;

namespace {

[[maybe_unused]] ::testing::Environment* const kCleanup = ::testing::AddGlobalTestEnvironment(
    new railkit::testing::NodeScratchCleanup(railkit::testing::kValidateScratch));

std::vector<Finding> withId(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out), [&](const Finding& f) { return f.id == id; });
  return out;
}

NodeExpectations expect(int nics, int gpus, std::string hca = "") {
  return {nics, gpus, std::move(hca)};
}

TEST(NodeCheck, HealthyDgxMeetsItsCountsWithoutFindings) {
  auto inv = inventoryOf(NodeBuilder::healthyDgxH100(), "healthy");
  auto check = checkNode(inv, expect(8, 8));
  EXPECT_EQ(check.counts.nics_active, 8);
  EXPECT_EQ(check.counts.gpus, 8);
  EXPECT_EQ(check.counts.nics_expected, 8);
  EXPECT_EQ(check.counts.gpus_expected, 8);
  EXPECT_TRUE(check.counts.nics_inactive.empty());
  EXPECT_TRUE(withId(check.findings, "rdma-nic-count").empty());
  EXPECT_TRUE(withId(check.findings, "gpu-count").empty());
  EXPECT_FALSE(railkit::hasErrors(check.findings));
}

TEST(NodeCheck, OnePortDownIsNamedWithWhatIsActive) {
  auto node = NodeBuilder::healthyDgxH100();
  node.setPortState("mlx5_3", 1, "1: DOWN", "3: Disabled");
  auto check = checkNode(inventoryOf(node, "down"), expect(8, 8));
  EXPECT_EQ(check.counts.nics_active, 7);
  ASSERT_EQ(check.counts.nics_inactive.size(), 1u);
  auto found = withId(check.findings, "rdma-nic-count");
  ASSERT_EQ(found.size(), 1u);
  const auto& f = found[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.subject, "node");
  EXPECT_NE(f.message.find("7 of 8 expected active RDMA ports on the data rails"), std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("mlx5_3/1 is DOWN (Disabled)"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("active: mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_4/1"), std::string::npos) << f.message;
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].source, "/sys/class/infiniband/mlx5_3/ports/1/state");
  EXPECT_EQ(f.evidence[0].text, "DOWN (Disabled)");
  EXPECT_FALSE(f.fix.empty());
  // Doctor's own rule sees the same port; every error comes before any warning or info.
  EXPECT_FALSE(withId(check.findings, "rdma-port-down").empty());
  EXPECT_TRUE(std::is_sorted(check.findings.begin(), check.findings.end(),
                             [](const Finding& a, const Finding& b) { return a.severity < b.severity; }));
}

TEST(NodeCheck, PortUpButNotLinkedIsNotActive) {
  auto node = NodeBuilder::healthyDgxH100();
  node.setPortState("mlx5_6", 1, "4: ACTIVE", "2: Polling");
  auto counts = countNode(inventoryOf(node, "polling"), expect(8, 8));
  EXPECT_EQ(counts.nics_active, 7);
  ASSERT_EQ(counts.nics_inactive.size(), 1u);
  EXPECT_EQ(counts.nics_inactive[0], "mlx5_6/1 is ACTIVE (Polling)");
}

TEST(NodeCheck, UnreadablePhysStateIsJudgedByStateAlone) {
  // A snapshot or a container may lack phys_state: ACTIVE then counts, a
  // port whose state is unreadable does not.
  railkit::model::Inventory inv;
  railkit::model::RdmaDevice dev;
  dev.name = "mlx5_0";
  dev.ports.resize(2);
  dev.ports[0].port = 1;
  dev.ports[0].state = "ACTIVE";
  dev.ports[1].port = 2;
  inv.rdma_devices.push_back(dev);
  auto counts = countNode(inv, expect(2, 0));
  EXPECT_EQ(counts.nics_active, 1);
  EXPECT_EQ(counts.nics_active_ports, std::vector<std::string>{"mlx5_0/1"});
  EXPECT_EQ(counts.nics_inactive, std::vector<std::string>{"mlx5_0/2 is in an unreadable state"});
}

TEST(NodeCheck, DataRailListRestrictsWhichPortsCount) {
  auto node = NodeBuilder::healthyDgxH100();
  node.setPortState("mlx5_7", 1, "1: DOWN", "3: Disabled");
  auto inv = inventoryOf(node, "rails");
  // mlx5_7 is not a data rail: its port being down is not a shortfall.
  auto four = countNode(inv, expect(4, 8, "=mlx5_0,mlx5_1,mlx5_2,mlx5_3"));
  EXPECT_EQ(four.nics_active, 4);
  EXPECT_TRUE(countFindings(four).empty());
  auto excluded = countNode(inv, expect(7, 8, "^mlx5_7"));
  EXPECT_EQ(excluded.nics_active, 7);
  EXPECT_TRUE(countFindings(excluded).empty());
  auto with_port = countNode(inv, expect(2, 8, "mlx5_0:1,mlx5_7:1"));
  EXPECT_EQ(with_port.nics_active, 1);
  auto f = countFindings(with_port);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("1 of 2"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("mlx5_7/1 is DOWN (Disabled)"), std::string::npos) << f[0].message;
}

TEST(NodeCheck, ListedDeviceTheNodeLacksIsNamed) {
  auto node = railkit::testing::withoutNic(NodeBuilder::healthyDgxH100(), "mlx5_7");
  auto inv = inventoryOf(node, "missing");
  auto counts = countNode(inv, expect(8, 8, "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"));
  EXPECT_EQ(counts.nics_active, 7);
  auto f = countFindings(counts);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("mlx5_7 is not present"), std::string::npos) << f[0].message;
  ASSERT_EQ(f[0].evidence.size(), 1u);
  EXPECT_EQ(f[0].evidence[0].source, "/sys/class/infiniband");
  // Without a list the count still falls short, with nothing to name but what is there.
  auto all = countFindings(countNode(inv, expect(8, 8)));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_NE(all[0].message.find("7 of 8"), std::string::npos) << all[0].message;
  EXPECT_NE(all[0].message.find("active: mlx5_0/1"), std::string::npos) << all[0].message;
}

TEST(NodeCheck, MissingGpuIsAGpuCountError) {
  auto node = NodeBuilder::healthyDgxH100();
  node.spec().gpus.pop_back();
  auto check = checkNode(inventoryOf(node, "gpus"), expect(8, 8));
  EXPECT_EQ(check.counts.gpus, 7);
  EXPECT_TRUE(withId(check.findings, "rdma-nic-count").empty());
  auto found = withId(check.findings, "gpu-count");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kError);
  EXPECT_NE(found[0].message.find("7 of 8 expected GPUs"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("gpu0 ("), std::string::npos) << found[0].message;
  EXPECT_EQ(found[0].message.find("gpu7"), std::string::npos) << found[0].message;
}

TEST(NodeCheck, MoreThanExpectedIsInfoNotError) {
  auto inv = inventoryOf(NodeBuilder::healthyDgxH100(), "more");
  auto f = countFindings(countNode(inv, expect(4, 4)));
  ASSERT_EQ(f.size(), 2u);
  for (const auto& finding : f) EXPECT_EQ(finding.severity, Severity::kInfo) << finding.message;
  EXPECT_EQ(f[0].id, "rdma-nic-count");
  EXPECT_EQ(f[1].id, "gpu-count");
}

TEST(NodeCheck, NothingExpectedNothingCounted) {
  auto node = NodeBuilder::healthyDgxH100();
  node.setPortState("mlx5_3", 1, "1: DOWN", "3: Disabled");
  auto counts = countNode(inventoryOf(node, "noexpect"), {});
  EXPECT_EQ(counts.nics_active, 7);
  EXPECT_TRUE(countFindings(counts).empty());
}

TEST(NodeCheck, EveryCountIdIsExplained) {
  for (const char* id : {railkit::validate::kRdmaNicCount.id, railkit::validate::kGpuCount.id}) {
    const auto* rule = railkit::validate::findValidateRule(id);
    ASSERT_NE(rule, nullptr) << id;
    EXPECT_EQ(rule->severity, Severity::kError);
    EXPECT_GT(std::string(rule->explain).size(), 200u) << id;
  }
  const auto& rules = railkit::validate::allValidateRules();
  EXPECT_TRUE(std::is_sorted(rules.begin(), rules.end(),
                             [](const auto& a, const auto& b) { return std::string(a.id) < b.id; }));
  EXPECT_EQ(railkit::validate::findValidateRule("no-such-id"), nullptr);
}

}  // namespace
