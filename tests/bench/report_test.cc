// The text layout must match nccl-tests byte for byte: compare with rows of
// a real all_reduce_perf log in ../shared.
#include "bench/report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/test_support.h"

namespace railkit::bench {
namespace {

std::string lineStartingWith(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

TEST(BenchReport, RowMatchesNcclTests) {
  RAILKIT_REQUIRE_SHARED();
  std::string file = (::railkit::testing::sharedDir() / "data/nccl-tests/002.txt").string();
  std::string real = lineStartingWith(file, "   268435456");
  ASSERT_FALSE(real.empty());
  Row row{268435456, 67108864, "float", "sum", -1, {2360.9, 113.70, 213.19, 0}, {2359.9, 113.75, 213.28, 0}};
  EXPECT_EQ(formatRow(row), real + "\n");
  std::string big = lineStartingWith(file, "  8589934592");
  Row row2{8589934592ull,
           2147483648ull,
           "float",
           "sum",
           -1,
           {47535, 180.71, 338.82, 0},
           {47743, 179.92, 337.35, 0}};
  EXPECT_EQ(formatRow(row2), big + "\n");
}

TEST(BenchReport, HeaderLinesMatchNcclTests) {
  RAILKIT_REQUIRE_SHARED();
  std::string file = (::railkit::testing::sharedDir() / "data/nccl-tests/002.txt").string();
  std::string header = formatColumnHeader();
  EXPECT_NE(header.find(lineStartingWith(file, "#       size")), std::string::npos);
  EXPECT_NE(header.find(lineStartingWith(file, "#        (B)")), std::string::npos);
  EXPECT_NE(header.find(lineStartingWith(file, "#                  ")), std::string::npos);
  std::string rank = formatHeader({8, 64, 2, 0, 5, 20, 1}, {RankLine{0, 6899, "ztan-mig-235z", "x"}});
  EXPECT_NE(rank.find("#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [cpu] x\n"),
            std::string::npos);
  EXPECT_NE(rank.find("# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20"),
            std::string::npos);
  EXPECT_EQ(formatFooter(0, 70.742), "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 70.742 \n#\n");
}

TEST(BenchReport, TimeColumnPrecision) {
  EXPECT_EQ(formatTime(30.054), "  30.05");
  EXPECT_EQ(formatTime(135.84), "  135.8");
  EXPECT_EQ(formatTime(12646.2), "  12646");
}

TEST(BenchReport, UncheckedShowsNA) {
  Row row{8, 2, "float", "sum", -1, {1, 0, 0, std::nullopt}, {1, 0, 0, std::nullopt}};
  EXPECT_NE(formatRow(row).find("    N/A"), std::string::npos);
}

}  // namespace
}  // namespace railkit::bench
