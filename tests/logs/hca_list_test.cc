// The HCA list of a `NET/IB : Using ...` line (logs/nccl/hca_list.h), read
// once for the job's facts and once for the per-rank view: every format
// NCCL printed, and both views list the same HCAs.
#include "logs/nccl/hca_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "logs/nccl_log.h"
#include "nccl_log_test_util.h"

namespace railkit::logs {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> hcas(std::string_view list) {
  std::vector<std::string> out;
  nccl::forEachHca(list, [&](std::string_view hca) { out.emplace_back(hca); });
  return out;
}

TEST(NcclHcaList, EveryFormatNcclPrinted) {
  // One HCA per NIC, the OOB address after the `;` (NCCL 2.x).
  EXPECT_THAT(hcas("[0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.1<0>"),
              ElementsAre("mlx5_0:1/IB", "mlx5_1:1/IB"));
  // Merged NICs (NCCL_IB_MERGE_NICS, 2.21+), with the relaxed-ordering tag.
  EXPECT_THAT(
      hcas("[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_4:1/RoCE} [RO]; OOB eth0:10.1.1.2<0>"),
      ElementsAre("mlx5_2:1/RoCE", "mlx5_3:1/RoCE", "mlx5_4:1/RoCE"));
  // No `;` at all, a tag without its close, tokens that are not HCAs.
  EXPECT_THAT(hcas("[0]mlx5_0:1/IB"), ElementsAre("mlx5_0:1/IB"));
  EXPECT_THAT(hcas("[0 mlx5_0:1/IB"), ElementsAre("mlx5_0:1/IB"));
  EXPECT_TRUE(hcas("[0]mlx5_0/IB:1 eth0 10.0.0.1:80 ; [1]mlx5_1:1/IB").empty());
  EXPECT_TRUE(hcas("").empty());
  EXPECT_TRUE(hcas(";").empty());
  EXPECT_EQ(nccl::hcaListText("[0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>"), "[0]mlx5_0:1/IB ");
}

TEST(NcclHcaList, JobFactsAndPerRankViewListTheSameHcas) {
  NcclLogAnalyzer a("t.log");
  testutil::feedText(
      a,
      "node-1:11:11 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [RO]; "
      "OOB eth0:10.1.1.2<0>\n"
      "node-1:11:11 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 - Init "
      "START\n");
  auto facts = a.facts();
  EXPECT_THAT(facts.hcas, ElementsAre("mlx5_2:1/RoCE", "mlx5_3:1/RoCE"));
  ASSERT_EQ(facts.per_rank.ranks.size(), 1u);
  EXPECT_EQ(facts.per_rank.ranks[0].nics, facts.hcas);
}

// The memo both readers keep: by the text before `;`, four lists, the oldest
// dropped first, an over-long list never kept.
TEST(NcclHcaList, RecentListsRememberTheLastFourByTheirText) {
  nccl::RecentHcaLists<int> recent;
  EXPECT_EQ(recent.find("[0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>"), nullptr);
  recent.remember("[0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>", 1);
  // Another process's OOB address: the same list.
  const int* found = recent.find("[0]mlx5_0:1/IB ; OOB eth0:10.0.0.2<0>");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(*found, 1);
  EXPECT_EQ(recent.find("[0]mlx5_1:1/IB ; OOB eth0:10.0.0.1<0>"), nullptr);
  EXPECT_EQ(recent.find(""), nullptr);  // an unused slot matches nothing
  for (int i = 2; i <= 5; ++i) recent.remember("[0]mlx5_" + std::to_string(i) + ":1/IB", i);
  EXPECT_EQ(recent.find("[0]mlx5_0:1/IB"), nullptr);  // the oldest went first
  ASSERT_NE(recent.find("[0]mlx5_2:1/IB"), nullptr);
  EXPECT_EQ(*recent.find("[0]mlx5_5:1/IB"), 5);
  std::string huge(nccl::RecentHcaLists<int>::kMaxBytes + 1, 'x');
  recent.remember(huge, 9);
  EXPECT_EQ(recent.find(huge), nullptr);
  ASSERT_NE(recent.find("[0]mlx5_2:1/IB"), nullptr);  // nothing was dropped for it
}

}  // namespace
}  // namespace railkit::logs
