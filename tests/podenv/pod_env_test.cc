// computePodEnv on pods written as sysfs trees: one test per way a pod gets
// its RDMA device (PF, renamed VF, macvlan on a shared device, IPoIB child).
#include "podenv/pod_env.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/collect.h"
#include "podenv/output.h"
#include "podenv/pod_fixtures.h"
#include "podenv/port_map.h"
#include "support/test_support.h"

namespace railkit::podenv {
namespace {

using testing::NodeBuilder;

class PodEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = railkit::testing::freshTestDir("railkit-podenv"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  model::Inventory collect() {
    auto inv = model::collectInventory(FileRoot(dir_), model::CollectOptions{});
    EXPECT_TRUE(inv.has_value());
    return inv ? *inv : model::Inventory{};
  }
  PodEnv envOf(const NodeBuilder& node, const PodEnvOptions& options = {}) {
    node.write(dir_);
    return computePodEnv(collect(), options);
  }
  PodEnv envOfWritten(const PodEnvOptions& options = {}) { return computePodEnv(collect(), options); }

  std::filesystem::path dir_;
};

std::string exported(const PodEnv& env, const std::string& name) {
  for (const auto& [k, v] : env.exports)
    if (k == name) return v;
  return "<unset>";
}

std::string allNotes(const PodEnv& env) {
  std::string out;
  for (const auto& n : env.notes) out += n + "\n";
  return out;
}

PodEnvOptions dataIfs(std::vector<std::string> names) {
  PodEnvOptions o;
  o.data_ifs = std::move(names);
  return o;
}

TEST_F(PodEnvTest, InfinibandPfsInDataInterfaceOrderWithoutGidIndex) {
  auto env = envOf(NodeBuilder::healthyDgxH100(), dataIfs({"ib5", "ib2"}));
  EXPECT_EQ(exported(env, "NCCL_IB_HCA"), "=mlx5_5:1,mlx5_2:1");
  EXPECT_EQ(exported(env, "UCX_NET_DEVICES"), "mlx5_5:1,mlx5_2:1");
  EXPECT_EQ(exported(env, "NCCL_SOCKET_IFNAME"), "=eth0");
  EXPECT_EQ(exported(env, "NCCL_IB_GID_INDEX"), "<unset>");  // never on InfiniBand
  EXPECT_EQ(exported(env, "NCCL_IB_ROCE_VERSION_NUM"), "<unset>");
  ASSERT_EQ(env.ports.size(), 2u);
  EXPECT_EQ(env.ports[0].netdev, "ib5");
  EXPECT_EQ(env.ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(env.ports[0].mapped_by, "device");
  EXPECT_FALSE(env.ports[0].gid_index.has_value());
  EXPECT_TRUE(env.missing.empty());
}

TEST_F(PodEnvTest, DefaultDataInterfacesAreEveryRdmaNetdevButTheControlOne) {
  auto env = envOf(NodeBuilder::healthyDgxH100());
  EXPECT_EQ(exported(env, "NCCL_IB_HCA"),
            "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  EXPECT_EQ(env.control_source, "fallback");  // no /proc/net/route in the tree
  EXPECT_TRUE(env.missing.empty());
}

TEST_F(PodEnvTest, RenamedVfInThePodIsFoundThroughItsDeviceLink) {
  auto node = railkit::testing::sriovVfPod();
  node.write(dir_);
  railkit::testing::writeAddresses(dir_, R"({"eth0": ["10.244.1.7/24"], "net1": ["10.10.5.7/24"]})");
  railkit::testing::writeDefaultRoute(dir_, "eth0");
  auto env = envOfWritten();
  ASSERT_EQ(env.ports.size(), 1u) << allNotes(env);
  EXPECT_EQ(env.ports[0].name(), "mlx5_5:1");
  EXPECT_EQ(env.ports[0].netdev, "net1");
  EXPECT_EQ(env.ports[0].mapped_by, "device");
  EXPECT_EQ(env.ports[0].gid_index, 3);
  EXPECT_EQ(env.control_source, "default route");
  EXPECT_EQ(exported(env, "NCCL_IB_HCA"), "=mlx5_5:1");
  EXPECT_EQ(exported(env, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(exported(env, "UCX_NET_DEVICES"), "mlx5_5:1");
}

TEST_F(PodEnvTest, MacvlanOnSharedRoceDeviceIsFoundThroughGidNdevsAndItsAddress) {
  railkit::testing::macvlanSharedPod().write(dir_);
  railkit::testing::writeAddresses(dir_, R"({"eth0": ["10.244.1.7/24"], "net1": ["10.20.0.3/16"]})");
  auto env = envOfWritten(dataIfs({"net1"}));
  ASSERT_EQ(env.ports.size(), 1u) << allNotes(env);
  EXPECT_EQ(env.ports[0].name(), "mlx5_3:1");  // not mlx5_4, whose net1 is another pod's
  EXPECT_EQ(env.ports[0].mapped_by, "gid");
  EXPECT_EQ(env.ports[0].gid_index, 5);
  EXPECT_EQ(exported(env, "NCCL_IB_GID_INDEX"), "5");
  // Defaults find the same interface: the host netdevs are not in the pod.
  auto defaults = envOfWritten();
  ASSERT_EQ(defaults.ports.size(), 1u);
  EXPECT_EQ(defaults.ports[0].name(), "mlx5_3:1");
}

TEST_F(PodEnvTest, MacvlanWithoutRecordedAddressesIsAmbiguousAndSaysSo) {
  railkit::testing::macvlanSharedPod().write(dir_);
  auto env = envOfWritten(dataIfs({"net1"}));
  EXPECT_TRUE(env.ports.empty());
  ASSERT_EQ(env.missing.size(), 1u);
  EXPECT_EQ(env.missing[0].kind, "data-if");
  EXPECT_NE(env.missing[0].reason.find("mlx5_3:1, mlx5_4:1"), std::string::npos) << env.missing[0].reason;
}

TEST_F(PodEnvTest, PortsThatDifferInGidIndexLeaveItToNcclAndSayEachIndex) {
  auto env = envOf(railkit::testing::roceDifferentGidIndices(), dataIfs({"ens0f0np0", "ens1f0np0"}));
  ASSERT_EQ(env.ports.size(), 2u);
  EXPECT_EQ(env.ports[0].gid_index, 3);
  EXPECT_EQ(env.ports[1].gid_index, 5);
  EXPECT_EQ(exported(env, "NCCL_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(exported(env, "NCCL_IB_ROCE_VERSION_NUM"), "2");
  EXPECT_EQ(exported(env, "NCCL_IB_ADDR_FAMILY"), "AF_INET");
  EXPECT_NE(allNotes(env).find("mlx5_0:1=3, mlx5_1:1=5"), std::string::npos) << allNotes(env);
  std::string shell = renderShell(env, true);
  EXPECT_NE(shell.find("# note: NCCL_IB_GID_INDEX not set"), std::string::npos) << shell;
  // Same index on both: one variable, no fallback.
  auto same = envOf(NodeBuilder::healthyRoce(), dataIfs({"ens0f0np0", "ens1f0np0"}));
  EXPECT_EQ(exported(same, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(exported(same, "NCCL_IB_ROCE_VERSION_NUM"), "<unset>");
}

TEST_F(PodEnvTest, IpoibChildMapsToItsParentsPort) {
  auto node = NodeBuilder::healthyDgxH100();
  railkit::testing::NetdevSpec child;
  child.name = "net1";  // ib2.8001 moved into the pod and renamed by the ipoib CNI
  child.type = "32";
  child.mtu = 4092;
  child.pci = node.nic("mlx5_2").pci.address;
  node.addNetdev(child);
  auto env = envOf(node, dataIfs({"net1"}));
  ASSERT_EQ(env.ports.size(), 1u) << allNotes(env);
  EXPECT_EQ(env.ports[0].name(), "mlx5_2:1");
  EXPECT_EQ(env.ports[0].mapped_by, "device");
  // The pod sees only the child (its parent ib2 stays in the host).
  std::erase_if(node.spec().netdevs, [](const auto& n) { return n.name == "ib2"; });
  auto pod = envOf(node, dataIfs({"net1"}));
  ASSERT_EQ(pod.ports.size(), 1u);
  EXPECT_EQ(pod.ports[0].name(), "mlx5_2:1");
}

TEST_F(PodEnvTest, MissingDataInterfacesAreNamedWithTheirReason) {
  auto env = envOf(NodeBuilder::healthyDgxH100(), dataIfs({"ib0", "net9", "eth0"}));
  ASSERT_EQ(env.ports.size(), 1u);
  ASSERT_EQ(env.missing.size(), 2u);
  EXPECT_EQ(env.missing[0].name, "net9");
  EXPECT_NE(env.missing[0].reason.find("not in this pod"), std::string::npos);
  EXPECT_EQ(env.missing[1].name, "eth0");
  EXPECT_NE(env.missing[1].reason.find("no RDMA device"), std::string::npos) << env.missing[1].reason;
}

TEST_F(PodEnvTest, HcaDevicesAreSelectedOrMissing) {
  PodEnvOptions options;
  options.hcas = {{"mlx5_1", 1}, {"mlx5_9", std::nullopt}, {"mlx5_2", 2}};
  auto env = envOf(NodeBuilder::healthyDgxH100(), options);
  ASSERT_EQ(env.ports.size(), 1u);
  EXPECT_EQ(env.ports[0].name(), "mlx5_1:1");
  EXPECT_EQ(env.ports[0].mapped_by, "hca");
  EXPECT_EQ(env.ports[0].netdev, "ib1");
  ASSERT_EQ(env.missing.size(), 2u);
  EXPECT_EQ(env.missing[0].name, "mlx5_9");
  EXPECT_EQ(env.missing[1].name, "mlx5_2:2");
}

// Only ports NCCL and UCX would use are exported (model::portUsable, the
// rule doctor checks the lists by): a DOWN, a Polling and an ACTIVE port
// whose phys_state code is not LinkUp are each left out with a note.
TEST_F(PodEnvTest, PortsNotActiveAndLinkUpAreSkippedWithANote) {
  auto node = NodeBuilder::healthyDgxH100()
                  .setPortState("mlx5_1", 1, "1: DOWN", "3: Disabled")
                  .setPortState("mlx5_2", 1, "2: INIT", "2: Polling")
                  .setPortState("mlx5_3", 1, "4: ACTIVE", "4: ACTIVE");
  auto env = envOf(node);
  EXPECT_EQ(exported(env, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  EXPECT_EQ(exported(env, "UCX_NET_DEVICES"), "mlx5_0:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  std::string notes = allNotes(env);
  EXPECT_NE(notes.find("skipped mlx5_1:1 (ib1), which is DOWN / Disabled (not ACTIVE / LinkUp)"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("skipped mlx5_2:1 (ib2), which is INIT / Polling"), std::string::npos) << notes;
  EXPECT_NE(notes.find("skipped mlx5_3:1 (ib3), which is ACTIVE / ACTIVE"), std::string::npos) << notes;
  EXPECT_TRUE(env.missing.empty());
}

TEST_F(PodEnvTest, DownPortAskedForByNameIsMissing) {
  PodEnvOptions options;
  options.hcas = {{"mlx5_1", std::nullopt}, {"mlx5_0", 1}};
  auto env =
      envOf(NodeBuilder::healthyDgxH100().setPortState("mlx5_1", 1, "1: DOWN", "3: Disabled"), options);
  ASSERT_EQ(env.ports.size(), 1u);
  EXPECT_EQ(env.ports[0].name(), "mlx5_0:1");
  ASSERT_EQ(env.missing.size(), 1u);
  EXPECT_EQ(env.missing[0].kind, "hca");
  EXPECT_EQ(env.missing[0].name, "mlx5_1");
  EXPECT_NE(env.missing[0].reason.find("port mlx5_1:1 is DOWN / Disabled"), std::string::npos)
      << env.missing[0].reason;
}

TEST_F(PodEnvTest, EveryPortDownIsMissingRdmaWithTheCount) {
  auto node = NodeBuilder::healthyDgxH100();
  for (int i = 0; i < 8; ++i) node.setPortState("mlx5_" + std::to_string(i), 1, "1: DOWN", "3: Disabled");
  auto env = envOf(node);
  EXPECT_EQ(exported(env, "NCCL_IB_HCA"), "<unset>");
  ASSERT_EQ(env.missing.size(), 1u);
  EXPECT_EQ(env.missing[0].kind, "rdma");
  EXPECT_NE(env.missing[0].reason.find("no RDMA port of this pod is ACTIVE / LinkUp (8 skipped)"),
            std::string::npos)
      << env.missing[0].reason;
}

TEST_F(PodEnvTest, PodWithoutRdmaSetsOnlyTheSocketInterfaceAndMissesRdma) {
  auto env = envOf(NodeBuilder::emptyPod());
  EXPECT_EQ(exported(env, "NCCL_SOCKET_IFNAME"), "=eth0");
  EXPECT_EQ(exported(env, "NCCL_IB_HCA"), "<unset>");
  ASSERT_EQ(env.missing.size(), 1u);
  EXPECT_EQ(env.missing[0].kind, "rdma");
}

TEST_F(PodEnvTest, AbsentControlInterfaceGivenByFlagIsMissing) {
  PodEnvOptions options;
  options.ctrl_if = "bond0";
  auto env = envOf(NodeBuilder::healthyDgxH100(), options);
  EXPECT_EQ(exported(env, "NCCL_SOCKET_IFNAME"), "=bond0");
  ASSERT_EQ(env.missing.size(), 1u);
  EXPECT_EQ(env.missing[0].kind, "ctrl-if");
}

TEST_F(PodEnvTest, JsonHasExportsPortsNotesAndMissing) {
  auto env = envOf(NodeBuilder::healthyDgxH100(), dataIfs({"ib0", "net9"}));
  auto j = podEnvToJson(env, "/x", false);
  EXPECT_EQ(j["exports"]["NCCL_IB_HCA"], "=mlx5_0:1");
  ASSERT_EQ(j["ports"].size(), 1u);
  EXPECT_EQ(j["ports"][0]["device"], "mlx5_0");
  EXPECT_EQ(j["ports"][0]["port"], 1);
  EXPECT_EQ(j["ports"][0]["netdev"], "ib0");
  EXPECT_EQ(j["ports"][0]["link_layer"], "InfiniBand");
  EXPECT_TRUE(j["ports"][0]["gid_index"].is_null());
  EXPECT_EQ(j["missing"][0]["kind"], "data-if");
  EXPECT_EQ(j["missing"][0]["name"], "net9");
  EXPECT_TRUE(j["notes"].is_array());
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["control_interface"], "eth0");
}

TEST_F(PodEnvTest, ShellTextOfAFailedCheckExportsNothing) {
  auto env = envOf(NodeBuilder::healthyDgxH100(), dataIfs({"ib0", "net9"}));
  std::string shell = renderShell(env, false);
  EXPECT_EQ(shell.find("export"), std::string::npos) << shell;
  EXPECT_NE(shell.find("# missing: data interface net9"), std::string::npos) << shell;
}

TEST(PodEnvGid, Ipv4OfGid) {
  EXPECT_EQ(ipv4OfGid("0000:0000:0000:0000:0000:ffff:0a0a:0301").value_or(""), "10.10.3.1");
  EXPECT_EQ(ipv4OfGid("0000:0000:0000:0000:0000:FFFF:c0a8:0001\n").value_or(""), "192.168.0.1");
  EXPECT_FALSE(ipv4OfGid("fe80:0000:0000:0000:0000:00ff:fe00:0507"));
  EXPECT_FALSE(ipv4OfGid("0000:0000:0000:0000:0000:ffff:0a0a"));
  EXPECT_FALSE(ipv4OfGid("0000:0000:0000:0000:0000:ffff:0a0a:zzzz"));
  EXPECT_FALSE(ipv4OfGid(""));
}

}  // namespace
}  // namespace railkit::podenv
