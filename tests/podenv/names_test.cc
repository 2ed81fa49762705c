// Names that reach shell text and NCCL lists: what is refused, how values are quoted.
#include "podenv/names.h"

#include <gtest/gtest.h>

namespace railkit::podenv {
namespace {

TEST(PodEnvNames, NetdevNamesFollowTheKernelAndNcclLists) {
  for (const char* ok : {"eth0", "net1", "ens1f0np0", "ib0.8001", "dranet0", "a'b$(x)", "123456789012345"})
    EXPECT_FALSE(netdevNameProblem(ok).has_value()) << ok;
  for (const char* bad :
       {"", ".", "..", "1234567890123456", "a/b", "a:b", "a b", "a\tb", "a\nb", "a,b", "a\x01"})
    EXPECT_TRUE(netdevNameProblem(bad).has_value()) << bad;
}

TEST(PodEnvNames, RdmaNames) {
  for (const char* ok : {"mlx5_0", "rdmap16s27", "rocep1s0f0", "roceP2p1s0f0", "irdma0", "bnxt_re0"})
    EXPECT_FALSE(rdmaNameProblem(ok).has_value()) << ok;
  for (const char* bad : {"", "mlx5 0", "mlx5_0:1", "a,b", "a'b", "a$b"})
    EXPECT_TRUE(rdmaNameProblem(bad).has_value()) << bad;
}

TEST(PodEnvNames, Lists) {
  auto ifs = parseInterfaceList("net1,net2,net1", "--data-if");
  ASSERT_TRUE(ifs.has_value());
  EXPECT_EQ(*ifs, (std::vector<std::string>{"net1", "net2"}));
  EXPECT_FALSE(parseInterfaceList("", "--data-if").has_value());
  EXPECT_FALSE(parseInterfaceList("net1,,net2", "--data-if").has_value());
  auto bad = parseInterfaceList("net1,a/b", "--data-if");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kUsage);
  EXPECT_NE(bad.error().message.find("--data-if: 'a/b'"), std::string::npos);

  auto hcas = parseHcaList("mlx5_0,mlx5_1:2");
  ASSERT_TRUE(hcas.has_value());
  ASSERT_EQ(hcas->size(), 2u);
  EXPECT_FALSE((*hcas)[0].port.has_value());
  EXPECT_EQ((*hcas)[1].device, "mlx5_1");
  EXPECT_EQ((*hcas)[1].port, 2);
  for (const char* b : {"", "mlx5_0:", "mlx5_0:0", "mlx5_0:x", "mlx5_0:256", "=mlx5_0", "mlx5 0"})
    EXPECT_FALSE(parseHcaList(b).has_value()) << b;
}

TEST(PodEnvNames, ShellQuoteAndComments) {
  EXPECT_EQ(commentSafe("a\nexport X=1\r\x7f"), "a?export X=1??");
}

}  // namespace
}  // namespace railkit::podenv
