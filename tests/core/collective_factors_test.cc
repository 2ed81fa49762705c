#include "core/collective_factors.h"

#include <gtest/gtest.h>

#include <string>

namespace railkit {
namespace {

TEST(CollectiveFactors, NcclTestsDefinitions) {
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::kAllReduce, 1), 0.0);
}

TEST(CollectiveFactors, NamesRoundTrip) {
  for (auto op :
       {CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
        CollectiveOp::kBroadcast, CollectiveOp::kReduce, CollectiveOp::kAllToAll, CollectiveOp::kSendRecv}) {
    EXPECT_EQ(collectiveFromName(collectiveName(op)), op);
  }
  EXPECT_FALSE(collectiveFromName("allreduce_perf").has_value());
}

TEST(CollectiveFactors, LineRateExpectation) {
  // 16 ranks on 2 nodes, 8x400 Gb/s per node, all_reduce, F = 0.8:
  // 0.8 * 400 GB/s * (2*15/16) / (2*1/2) = 600 GB/s
  auto expected = expectedBusbwFromLineRate(CollectiveOp::kAllReduce, 16, 2, 3200.0, 0.8);
  ASSERT_TRUE(expected.has_value());
  EXPECT_NEAR(*expected, 600.0, 1e-9);
  EXPECT_FALSE(expectedBusbwFromLineRate(CollectiveOp::kAllReduce, 8, 1, 3200.0, 0.8).has_value());
}

// --expect-line-rate[=F] means the same in bench and logs: one parser.
TEST(LineRateFraction, DefaultRangeAndErrors) {
  EXPECT_DOUBLE_EQ(*parseLineRateFraction(""), 0.8);
  EXPECT_DOUBLE_EQ(*parseLineRateFraction("0.5"), 0.5);
  EXPECT_DOUBLE_EQ(*parseLineRateFraction("1"), 1.0);
  for (const char* bad : {"0", "-0.1", "1.2", "abc", "nan", "0.5x"}) {
    auto r = parseLineRateFraction(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kUsage);
    EXPECT_NE(r.error().message.find(std::string("--expect-line-rate=") + bad), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace railkit
