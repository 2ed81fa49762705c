#include "logs/perftest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "logs/output_findings.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

std::string readShared(const std::string& name) {
  std::ifstream in(testing::sharedDir() / "data/perftest" / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LogsPerftest, MegabytesPerSecondBecomeGigabits) {
  const std::string text =
      "                    RDMA_Read BW Test\n"
      " Dual-port       : OFF          Device         : mlx5_0\n"
      " Number of qps   : 2            Transport type : IB\n"
      " Connection type : RC           Using SRQ      : OFF\n"
      " Mtu             : 4096[B]\n"
      " Link type       : IB\n"
      "---------------------------------------------------------------------------------------\n"
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\r\n"
      " 65536      1000             11000.00            10000.00            0.160000\r\n";
  auto r = parsePerftest(text);
  EXPECT_EQ(r.test, "RDMA_Read BW Test");
  EXPECT_EQ(r.tool, "ib_read_bw");
  EXPECT_FALSE(r.latency);
  EXPECT_EQ(r.device, "mlx5_0");
  EXPECT_EQ(r.transport_type, "IB");
  EXPECT_EQ(r.link_type, "IB");
  EXPECT_EQ(r.qps, 2);
  EXPECT_EQ(r.mtu_bytes, 4096);
  EXPECT_EQ(r.bw_unit, "MB/sec");
  ASSERT_EQ(r.rows.size(), 1u);
  // 10000 * 2^20 bytes/s * 8 = 83.886 Gb/s
  EXPECT_NEAR(*r.rows[0].bw_avg_gbps, 10000.0 * 1048576 * 8 / 1e9, 1e-9);
  EXPECT_NEAR(*r.rows[0].bw_peak_gbps, 11000.0 * 1048576 * 8 / 1e9, 1e-9);
  EXPECT_DOUBLE_EQ(*r.rows[0].msg_rate_mpps, 0.16);
  EXPECT_EQ(r.rows[0].line, 9u);
}

TEST(LogsPerftest, NotAPerftestOutput) {
  auto r = parsePerftest("host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n 65536 1000 1 2 3\n");
  EXPECT_TRUE(r.test.empty());
  EXPECT_TRUE(r.rows.empty());
  PerftestParser p;
  p.feedLine("# nThread 1 nGpus 1 minBytes 8", 1);
  EXPECT_FALSE(p.recognised());
}

TEST(LogsPerftest, RowsNeedTheHeaderColumnCount) {
  auto r = parsePerftest(
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      " 65536      1000   1.0\n"
      " 65536      1000   1.0  x  2.0\n"
      " 65536      1000   1.0  2.0  3.0\n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.rows[0].bw_avg_gbps, 2.0);
}

TEST(LogsPerftest, SharedWriteBwRunInfinitelyHasNoPeak) {
  RAILKIT_REQUIRE_SHARED();
  auto r = parsePerftest(readShared("002.txt"));
  EXPECT_EQ(r.tool, "ib_write_bw");
  EXPECT_EQ(r.test, "RDMA_Write BW Test");
  EXPECT_EQ(r.device, "rocep1s0f0");
  EXPECT_EQ(r.link_type, "Ethernet");
  EXPECT_EQ(r.connection_type, "RC");
  EXPECT_EQ(r.mtu_bytes, 1024);
  EXPECT_EQ(r.gid_index, 3);
  EXPECT_EQ(r.qps, 1);
  EXPECT_EQ(r.rdma_cm_qps, "OFF");
  EXPECT_TRUE(r.peak_not_measured);
  ASSERT_EQ(r.rows.size(), 5u);
  for (const auto& row : r.rows) {
    EXPECT_DOUBLE_EQ(row.bytes, 65536);
    EXPECT_FALSE(row.bw_peak_gbps.has_value());
  }
  EXPECT_DOUBLE_EQ(*r.rows[3].bw_avg_gbps, 92.56);
  EXPECT_DOUBLE_EQ(*r.rows[0].iterations, 882805);
  EXPECT_DOUBLE_EQ(*r.rows[4].msg_rate_mpps, 0.176555);
}

TEST(LogsPerftest, SharedReadLatency) {
  RAILKIT_REQUIRE_SHARED();
  auto r = parsePerftest(readShared("004.txt"));
  EXPECT_EQ(r.tool, "ib_read_lat");
  EXPECT_TRUE(r.latency);
  ASSERT_EQ(r.rows.size(), 1u);
  const auto& row = r.rows[0];
  EXPECT_DOUBLE_EQ(row.bytes, 2);
  EXPECT_DOUBLE_EQ(*row.iterations, 1000);
  EXPECT_DOUBLE_EQ(*row.t_min_us, 5.35);
  EXPECT_DOUBLE_EQ(*row.t_max_us, 11.78);
  EXPECT_DOUBLE_EQ(*row.t_typical_us, 5.49);
  EXPECT_DOUBLE_EQ(*row.t_avg_us, 5.50);
  EXPECT_DOUBLE_EQ(*row.t_stdev_us, 0.18);
  EXPECT_DOUBLE_EQ(*row.p99_us, 5.74);
  EXPECT_DOUBLE_EQ(*row.p999_us, 11.78);
  EXPECT_FALSE(row.bw_avg_gbps.has_value());
}

TEST(LogsPerftest, SharedReadBwSweep) {
  RAILKIT_REQUIRE_SHARED();
  auto r = parsePerftest(readShared("005.txt"));
  EXPECT_EQ(r.tool, "ib_read_bw");
  EXPECT_EQ(r.bw_unit, "Gb/sec");
  ASSERT_EQ(r.rows.size(), 23u);
  EXPECT_DOUBLE_EQ(r.rows.front().bytes, 2);
  EXPECT_DOUBLE_EQ(*r.rows.front().bw_peak_gbps, 0.045444);
  EXPECT_DOUBLE_EQ(r.rows.back().bytes, 8388608);
  EXPECT_DOUBLE_EQ(*r.rows.back().bw_avg_gbps, 197.48);
  EXPECT_DOUBLE_EQ(*r.rows[12].bw_peak_gbps, 125.80);
  EXPECT_DOUBLE_EQ(*r.rows[12].bw_avg_gbps, 116.65);
}

TEST(LogsPerftest, SharedFailedRunDecodesTheStatus) {
  RAILKIT_REQUIRE_SHARED();
  auto r = parsePerftest(readShared("007.txt"));
  EXPECT_EQ(r.device, "mlx5_3");
  EXPECT_EQ(r.mtu_bytes, 4096);
  ASSERT_EQ(r.rows.size(), 16u);
  EXPECT_DOUBLE_EQ(*r.rows.back().bw_avg_gbps, 381.41);
  bool status10 = false;
  for (const auto& e : r.errors)
    if (e.wc_status && *e.wc_status == 10) status10 = true;
  EXPECT_TRUE(status10);
  EXPECT_GE(r.errors.size(), 3u);
  EXPECT_STREQ(wcStatusName(10), "remote access error");
  EXPECT_STREQ(wcStatusName(12), "transport retry counter exceeded");
  EXPECT_STREQ(wcStatusName(99), "unknown status");
}

TEST(LogsPerftest, SharedMultiQpRdmaCmWithTabs) {
  RAILKIT_REQUIRE_SHARED();
  auto r = parsePerftest(readShared("009.txt"));
  EXPECT_EQ(r.device, "mlx5_5");
  EXPECT_EQ(r.qps, 4);
  EXPECT_EQ(r.rdma_cm_qps, "ON");
  EXPECT_EQ(r.data_exchange, "rdma_cm");
  bool tos = false;
  for (const auto& [k, v] : r.settings)
    if (k == "TOS" && v == "41") tos = true;
  EXPECT_TRUE(tos);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.rows[0].bw_peak_gbps, 98.01);
  EXPECT_DOUBLE_EQ(*r.rows[0].bw_avg_gbps, 98.01);
  EXPECT_DOUBLE_EQ(*r.rows[0].msg_rate_mpps, 0.186932);
}

TEST(LogsPerftest, EverySharedSampleIsRecognisedWithRows) {
  RAILKIT_REQUIRE_SHARED();
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::sharedDir() / "data/perftest")) {
    if (e.path().extension() != ".txt") continue;
    ++files;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    PerftestParser p;
    std::string text = ss.str();
    std::istringstream lines(text);
    std::string line;
    uint64_t n = 0;
    while (std::getline(lines, line)) p.feedLine(line, ++n);
    EXPECT_TRUE(p.recognised()) << e.path();
    EXPECT_FALSE(p.result().rows.empty()) << e.path();
  }
  EXPECT_GE(files, 8);
}

TEST(LogsPerftest, ErrorLinesAreCountedAndOnlyTheFirstKept) {
  // A run looping on a failed QP: thousands of error lines, the status only late.
  PerftestParser p;
  uint64_t n = 0;
  p.feedLine("RDMA_Write BW Test", ++n);
  for (int i = 0; i < 5000; ++i) p.feedLine("Completion with error at client", ++n);
  p.feedLine("Failed status 12: wr_id 0 syndrom 0x81", ++n);
  for (int i = 0; i < 5000; ++i) p.feedLine("Failed status 5: wr_id 0 syndrom 0x0", ++n);
  const auto& r = p.result();
  EXPECT_EQ(r.error_lines, 10001u);
  ASSERT_EQ(r.errors.size(), PerftestParser::kMaxKeptErrors + 1);
  EXPECT_EQ(r.errors.front().line, 2u);
  // The first line with a status is kept past the cap: the finding decodes it.
  EXPECT_EQ(r.errors.back().wc_status, 12);
  auto findings = perftestFindings(r, "f");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("status 12"), std::string::npos) << findings[0].message;
}

}  // namespace
}  // namespace railkit::logs
