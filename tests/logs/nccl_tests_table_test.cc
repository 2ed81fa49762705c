#include "logs/nccl_tests_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_support.h"

namespace railkit::logs {
namespace {

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LogsNcclTestsTable, NewLayoutWithNaWrongCounts) {
  const std::string text =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\r\n"
      "           8             2     float     sum      -1    21.50    0.00    0.00      0    20.90    0.00 "
      "   0.00      0\r\n"
      "     1048576        262144     float     sum      -1    110.2    9.51   17.83    N/A    108.7    9.65 "
      "  18.09      2\r\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 9.0 \n";
  auto t = parseNcclTestsTable(text);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].line, 3u);
  EXPECT_EQ(t.rows[1].redop, "sum");
  ASSERT_TRUE(t.rows[1].root.has_value());
  EXPECT_EQ(*t.rows[1].root, -1);
  ASSERT_TRUE(t.wrong_total.has_value());
  EXPECT_EQ(*t.wrong_total, 2);
  EXPECT_DOUBLE_EQ(*t.peak_busbw_gbs, 18.09);
  EXPECT_DOUBLE_EQ(*t.largest_busbw_gbs, 18.09);
  EXPECT_DOUBLE_EQ(*t.avg_busbw_gbs, 9.0);
  EXPECT_EQ(*t.out_of_bounds, "# Out of bounds values : 0 OK");
}

TEST(LogsNcclTestsTable, OldLayoutWithErrorColumnHasNoWrongTotal) {
  const std::string text =
      "[1,0]<stdout>:#       size         count    type   redop     time   algbw   busbw  error     time   "
      "algbw   busbw  error\n"
      "[1,0]<stdout>:        8             2   float     sum    167.5    0.00    0.00  2e-07    167.1    "
      "0.00    0.00  1e-07\n"
      "[1,0]<stdout>:  1073741824     268435456   float     sum    61556   17.44   32.71  5e-07    61303   "
      "17.52   32.84  5e-07\n";
  auto t = parseNcclTestsTable(text);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_TRUE(t.old_layout);
  EXPECT_FALSE(t.wrong_total.has_value());
  EXPECT_FALSE(t.avg_busbw_gbs.has_value());
  EXPECT_DOUBLE_EQ(*t.peak_busbw_gbs, 32.84);
}

TEST(LogsNcclTestsTable, GarbageAndEmptyGiveNoRows) {
  EXPECT_TRUE(parseNcclTestsTable("").rows.empty());
  EXPECT_TRUE(parseNcclTestsTable(std::string(10u << 20, 'x')).rows.empty());
  std::string binary(4096, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 37);
  auto t = parseNcclTestsTable(binary);
  EXPECT_FALSE(t.peak_busbw_gbs.has_value());
}

TEST(LogsNcclTestsTable, DranetSeedTable) {
  RAILKIT_REQUIRE_SHARED();
  std::filesystem::path seed;
  for (const auto& e : std::filesystem::directory_iterator(testing::sharedDir() / "seeds")) {
    if (readAll(e.path()).find("Avg bus bandwidth") != std::string::npos) seed = e.path();
  }
  ASSERT_FALSE(seed.empty()) << "no seed with an nccl-tests table";
  auto t = parseNcclTestsTable(readAll(seed));
  ASSERT_TRUE(t.avg_busbw_gbs.has_value());
  EXPECT_NEAR(*t.avg_busbw_gbs, 15.5188, 1e-9);
  EXPECT_NEAR(*t.peak_busbw_gbs, 31.89, 1e-9);
}

TEST(LogsNcclTestsTable, EverySharedSampleHasRows) {
  RAILKIT_REQUIRE_SHARED();
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::sharedDir() / "data/nccl-tests")) {
    if (e.path().extension() != ".txt") continue;
    ++files;
    auto t = parseNcclTestsTable(readAll(e.path()));
    EXPECT_FALSE(t.rows.empty()) << e.path();
  }
  EXPECT_GT(files, 0);
}

TEST(NcclTestsTable, RowsPastTheCapAreCountedNotKept) {
  NcclTestsTableParser parser;
  uint64_t n = 0;
  parser.feedLine("# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20",
                  ++n);
  for (size_t i = 0; i < kMaxTableRows + 25; ++i)
    parser.feedLine(
        "     1048576        262144     float     sum      -1   123.4    8.50   15.93      0   122.9    "
        "8.53   15.99      0",
        ++n);
  parser.feedLine("# Out of bounds values : 0 OK", ++n);
  NcclTestsTable table = parser.result();
  EXPECT_EQ(table.rows.size(), kMaxTableRows);
  EXPECT_EQ(table.rows_not_kept, 25u);
  EXPECT_EQ(table.wrong_total, 0);
  EXPECT_EQ(table.out_of_bounds, "# Out of bounds values : 0 OK");
}

TEST(NcclTestsTable, ManyDistinctHostsAreListedOnce) {
  NcclTestsTableParser parser;
  uint64_t n = 0;
  for (int r = 0; r < 3000; ++r)
    parser.feedLine("#  Rank " + std::to_string(r) + " Group  0 Pid  1 on node-" + std::to_string(r / 8) +
                        " device  0 [0x0f] NVIDIA H100",
                    ++n);
  NcclTestsTable table = parser.result();
  EXPECT_EQ(table.ranks.size(), 3000u);
  ASSERT_EQ(table.hosts.size(), 375u);
  EXPECT_EQ(table.hosts.front(), "node-0");
  EXPECT_EQ(table.hosts.back(), "node-374");
}

}  // namespace
}  // namespace railkit::logs
