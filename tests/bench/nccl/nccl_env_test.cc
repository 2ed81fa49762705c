// How the nccl backend's environment is derived from --data-if and read back
// from TransportOptions::env (pure functions, no NCCL needed).
#include "bench/nccl/nccl_env.h"

#include <gtest/gtest.h>

using namespace railkit;
using namespace railkit::bench;

TEST(NcclEnv, SocketIfnameFollowsDataIfUnlessSet) {
  EXPECT_EQ(deriveNcclEnv({}, "=net1", {}), std::vector<std::string>{"NCCL_SOCKET_IFNAME==net1"});
  EXPECT_EQ(deriveNcclEnv({}, "^docker,lo", {}), std::vector<std::string>{"NCCL_SOCKET_IFNAME=^docker,lo"});
  Environment env{{"NCCL_SOCKET_IFNAME", "eth"}};
  EXPECT_TRUE(deriveNcclEnv(env, "=net1", {}).empty());
  EXPECT_TRUE(deriveNcclEnv({}, "", {}).empty());
}

TEST(NcclEnv, IbHcaFromTheDataInterfacesRdmaPorts) {
  std::vector<DataHca> hcas{
      {"mlx5_1", 1, "ens1f0np0"}, {"mlx5_10", 1, "ens10f0np0"}, {"mlx5_1", 1, "ens1f0np0"}};
  auto out = deriveNcclEnv({}, "=ens1f0np0,ens10f0np0", hcas);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], "NCCL_IB_HCA==mlx5_1:1,mlx5_10:1");  // exact match, duplicates folded
  Environment env{{"NCCL_IB_HCA", "mlx5_0"}};
  auto kept = deriveNcclEnv(env, "", hcas);
  EXPECT_TRUE(kept.empty());
}

TEST(NcclEnv, SetupReadsOptionsEnv) {
  auto s =
      ncclSetup({"NCCL_DEBUG=INFO", "UCX_TLS=tcp", "NCCL_SOCKET_IFNAME=eth", "RAILKIT_NCCL_LIB=/opt/nccl",
                 "NCCL_SOCKET_IFNAME==net1", "OMPI_COMM_WORLD_LOCAL_RANK=3", "bogus"});
  ASSERT_EQ(s.nccl_env.size(), 2u);
  EXPECT_EQ(s.nccl_env[0], (std::pair<std::string, std::string>{"NCCL_DEBUG", "INFO"}));
  // The user's value (first) wins over a derived one (later).
  EXPECT_EQ(s.nccl_env[1], (std::pair<std::string, std::string>{"NCCL_SOCKET_IFNAME", "eth"}));
  EXPECT_EQ(s.library_dir, "/opt/nccl");
  EXPECT_EQ(s.local_rank, 3);
  EXPECT_EQ(ncclSetup({"LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_RANK=3"}).local_rank, 1);
  EXPECT_FALSE(ncclSetup({"LOCAL_RANK=x"}).local_rank);
}

TEST(NcclEnv, UniqueIdHexRoundTrip) {
  char id[128], back[128] = {};
  for (int i = 0; i < 128; ++i) id[i] = static_cast<char>(i * 37 - 5);
  std::string hex = hexEncode(id, sizeof id);
  ASSERT_EQ(hex.size(), 256u);
  ASSERT_TRUE(hexDecode(hex, back, sizeof back));
  EXPECT_EQ(std::string(id, 128), std::string(back, 128));
  EXPECT_FALSE(hexDecode(hex.substr(1), back, sizeof back));
  hex[10] = 'g';
  EXPECT_FALSE(hexDecode(hex, back, sizeof back));
  EXPECT_FALSE(hexDecode("-", back, sizeof back));
}
