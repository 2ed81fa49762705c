// UCX settings from the environment and --data-if, the address card, tags,
// and the RDMA ports behind a netdev.
#include "bench/ucx/ucx_config.h"

#include <gtest/gtest.h>

#include "bench/interfaces.h"

namespace railkit::bench::ucx {
namespace {

TEST(BenchUcxConfig, DevicesFollowTheDataInterface) {
  TransportOptions o;
  o.data_interface = "net1";
  o.env = {"UCX_TLS=tcp", "NCCL_DEBUG=INFO", "UCX_=x", "UCX_RNDV_THRESH="};
  auto s = settingsFor(o, {"mlx5_3:1"});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "TLS");
  EXPECT_EQ(s[0].value, "tcp");
  EXPECT_EQ(s[1].name, "NET_DEVICES");
  EXPECT_EQ(s[1].value, "net1,mlx5_3:1");
  EXPECT_EQ(describeSettings(s), "UCX_TLS=tcp UCX_NET_DEVICES=net1,mlx5_3:1");
  EXPECT_EQ(devicesInUse(s, "net1"), "net1,mlx5_3:1");
  EXPECT_EQ(devicesInUse({}, "net1"), "net1");
}

TEST(BenchUcxConfig, UserDevicesWin) {
  TransportOptions o;
  o.data_interface = "net1";
  o.env = {"UCX_NET_DEVICES=mlx5_0:1"};
  auto s = settingsFor(o, {"mlx5_3:1"});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].value, "mlx5_0:1");
  EXPECT_EQ(devicesInUse(s, "net1"), "mlx5_0:1");  // rank lines say what UCX really uses
  EXPECT_EQ(describeSettings({}), "UCX defaults");
}

TEST(BenchUcxConfig, CardRoundTripsBinaryWorkerAddress) {
  PeerCard c{"198.18.20.11", "node1", "net1", std::string("\0\x01 \xff\n", 5)};
  auto back = decodeCard(encodeCard(c), 3);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->worker, c.worker);
  EXPECT_EQ(back->host, "node1");
  EXPECT_EQ(back->interface, "net1");
  PeerCard empty{"", "", "", "x"};
  auto e = decodeCard(encodeCard(empty), 0);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "");
}

TEST(BenchUcxConfig, ForeignBlobNamesTheRank) {
  // What a tcp-backend rank publishes is not a ucx card.
  auto bad = decodeCard("198.18.20.12 4242 node2 net1", 2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kPeerLost);
  EXPECT_NE(bad.error().message.find("rank 2"), std::string::npos);
  EXPECT_FALSE(decodeCard("ucx1 a b c zz", 1));
  EXPECT_FALSE(decodeCard("ucx1 a b c ", 1));
}

TEST(BenchUcxConfig, TagsSeparateSendersAndSequence) {
  EXPECT_NE(messageTag(1, 0), messageTag(0, 1));
  EXPECT_EQ(messageTag(2, 5) >> kTagSenderShift, 2u);
  EXPECT_EQ(messageTag(2, kTagSeqMask + 6), messageTag(2, 5));  // wraps within its sender
}

TEST(BenchUcxConfig, RdmaPortsOfNetdev) {
  model::RdmaDevice a, b;
  a.name = "mlx5_0";
  a.ports.push_back(model::RdmaPort{});
  a.ports[0].port = 1;
  a.ports[0].netdev = "eth0";
  b.name = "mlx5_3";
  b.ports.push_back(model::RdmaPort{});
  b.ports[0].port = 1;
  b.ports[0].netdev = "net1";
  EXPECT_EQ(rdmaPortsFor({a, b}, "net1"), std::vector<std::string>{"mlx5_3:1"});
  EXPECT_TRUE(rdmaPortsFor({a, b}, "net2").empty());
  EXPECT_TRUE(rdmaPortsFor({a, b}, "").empty());
}

}  // namespace
}  // namespace railkit::bench::ucx
