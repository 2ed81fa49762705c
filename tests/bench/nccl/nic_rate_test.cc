// The data NICs' line rate (--expect-line-rate) and the NCCL_IB_HCA derived
// from them, read from NodeBuilder trees through a FileRoot.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/interfaces.h"
#include "bench/nccl/nccl_env.h"
#include "support/node_builder.h"

namespace fs = std::filesystem;
using namespace railkit;
using namespace railkit::bench;
using railkit::testing::NodeBuilder;

namespace {

fs::path treeDir(const std::string& name) {
  return fs::temp_directory_path() / ("railkit-nic-" + name + "-" + std::to_string(getpid()));
}

void writeSpeed(const fs::path& dir, const std::string& netdev, const std::string& value) {
  // sys/class/net/<netdev> is a symlink into sys/devices; write through it.
  std::ofstream(dir / "sys/class/net" / netdev / "speed") << value << "\n";
}

TEST(NicRate, InfinibandPortRateOfTheDataNetdev) {
  auto node = NodeBuilder::healthyDgxH100();
  node.setRate("mlx5_3", 1, "200 Gb/sec (4X HDR)");
  fs::path dir = treeDir("ib");
  node.write(dir);
  auto nics = describeDataNics(FileRoot(dir), {"ib0", "ib3"});
  ASSERT_EQ(nics.size(), 2u);
  EXPECT_EQ(nics[0].rdma_device, "mlx5_0");
  EXPECT_EQ(nics[0].port, 1);
  ASSERT_TRUE(nics[0].rate_gbps);
  EXPECT_DOUBLE_EQ(*nics[0].rate_gbps, 400);
  EXPECT_EQ(nics[0].source, "/sys/class/infiniband/mlx5_0/ports/1/rate \"400 Gb/sec (4X NDR)\"");
  EXPECT_EQ(nics[1].rdma_device, "mlx5_3");
  EXPECT_DOUBLE_EQ(*nics[1].rate_gbps, 200);
  auto rate = nodeLineRate(nics);
  ASSERT_TRUE(rate) << rate.error().message;
  EXPECT_DOUBLE_EQ(*rate, 600);
  fs::remove_all(dir);
}

TEST(NicRate, RoceNetdevMapsToItsPortAndFeedsNcclIbHca) {
  fs::path dir = treeDir("roce");
  NodeBuilder::healthyRoce().write(dir);
  auto nics = describeDataNics(FileRoot(dir), {"ens0f0np0", "ens1f0np0"});
  ASSERT_EQ(nics.size(), 2u);
  EXPECT_EQ(nics[0].rdma_device, "mlx5_0");
  EXPECT_EQ(nics[1].rdma_device, "mlx5_1");
  ASSERT_TRUE(nics[1].rate_gbps);
  EXPECT_DOUBLE_EQ(*nics[1].rate_gbps, 400);
  std::vector<DataHca> hcas;
  for (const auto& n : nics) hcas.push_back({n.rdma_device, n.port, n.interface});
  auto env = deriveNcclEnv({}, "=ens0f0np0,ens1f0np0", hcas);
  EXPECT_EQ(env, (std::vector<std::string>{"NCCL_SOCKET_IFNAME==ens0f0np0,ens1f0np0",
                                           "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1"}));
  fs::remove_all(dir);
}

// What the ucx backend gets for UCX_NET_DEVICES: read by the caller from its root.
TEST(NicRate, RdmaPortsBehindTheDataNetdev) {
  fs::path dir = treeDir("ports");
  NodeBuilder::healthyRoce().write(dir);
  EXPECT_EQ(rdmaPortsBehind(FileRoot(dir), "ens1f0np0"), std::vector<std::string>{"mlx5_1:1"});
  EXPECT_TRUE(rdmaPortsBehind(FileRoot(dir), "eth9").empty());
  EXPECT_TRUE(rdmaPortsBehind(FileRoot(dir), "lo").empty());
  fs::remove_all(dir);
}

TEST(NicRate, PlainEthernetUsesNetdevSpeed) {
  fs::path dir = treeDir("eth");
  NodeBuilder::emptyPod().write(dir);
  writeSpeed(dir, "eth0", "25000");
  auto nics = describeDataNics(FileRoot(dir), {"eth0"});
  ASSERT_EQ(nics.size(), 1u);
  EXPECT_EQ(nics[0].rdma_device, "");
  ASSERT_TRUE(nics[0].rate_gbps);
  EXPECT_DOUBLE_EQ(*nics[0].rate_gbps, 25);
  EXPECT_EQ(nics[0].source, "/sys/class/net/eth0/speed \"25000\" Mb/s");
  EXPECT_DOUBLE_EQ(*nodeLineRate(nics), 25);
  fs::remove_all(dir);
}

TEST(NicRate, UnknownRateIsAClearError) {
  fs::path dir = treeDir("none");
  NodeBuilder::emptyPod().write(dir);
  auto nics = describeDataNics(FileRoot(dir), {"eth0", "lo"});
  writeSpeed(dir, "lo", "-1");
  nics = describeDataNics(FileRoot(dir), {"eth0", "lo"});
  auto rate = nodeLineRate(nics);
  ASSERT_FALSE(rate);
  EXPECT_EQ(rate.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(rate.error().message,
            "no link rate for a data interface: no RDMA port maps to eth0 and /sys/class/net/eth0/speed is "
            "unreadable; "
            "no RDMA port maps to lo and /sys/class/net/lo/speed is \"-1\" (unknown)");
  EXPECT_FALSE(nodeLineRate({}));
  fs::remove_all(dir);
}

TEST(NicRate, SelectedNamesFollowTheSpecSyntax) {
  std::vector<NetInterface> all{
      {"lo", "127.0.0.1"}, {"eth0", "10.0.0.1"}, {"net1", "10.1.0.1"}, {"net10", "10.2.0.1"}};
  EXPECT_EQ(selectedNames(all, "=net1"), std::vector<std::string>{"net1"});
  EXPECT_EQ(selectedNames(all, "net1"), (std::vector<std::string>{"net1", "net10"}));
  EXPECT_EQ(selectedNames(all, "^lo,eth"), (std::vector<std::string>{"net1", "net10"}));
}

}  // namespace
