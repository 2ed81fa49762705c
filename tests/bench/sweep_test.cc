#include "bench/sweep.h"

#include <gtest/gtest.h>

namespace railkit::bench {
namespace {

TEST(BenchSweep, ParsesSuffixes) {
  EXPECT_EQ(*parseSize("8"), 8u);
  EXPECT_EQ(*parseSize("128K"), 128u * 1024);
  EXPECT_EQ(*parseSize("1M"), 1u << 20);
  EXPECT_EQ(*parseSize("8g"), 8ull << 30);
  EXPECT_EQ(*parseSize("4MB"), 4u << 20);
  EXPECT_FALSE(parseSize("").has_value());
  EXPECT_FALSE(parseSize("M").has_value());
  EXPECT_FALSE(parseSize("12X").has_value());
  EXPECT_FALSE(parseSize("99999999999999999999G").has_value());
  EXPECT_EQ(parseSize("x").error().code, ErrorCode::kUsage);
}

TEST(BenchSweep, FactorAndStep) {
  EXPECT_EQ(sweepSizes(8, 64, 2, 0), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweepSizes(8, 100, 4, 0), (std::vector<std::uint64_t>{8, 32}));
  EXPECT_EQ(sweepSizes(10, 40, 2, 15), (std::vector<std::uint64_t>{10, 25, 40}));
  EXPECT_EQ(sweepSizes(64, 8, 2, 0).size(), 0u);
  EXPECT_EQ(sweepSizes(0, 8, 2, 0).size(), 1u);  // 0 * factor never grows
}

}  // namespace
}  // namespace railkit::bench
