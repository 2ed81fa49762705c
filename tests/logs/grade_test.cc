#include "logs/grade.h"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/test_support.h"

namespace railkit::logs {
namespace {

// An all_reduce table from `ranks` ranks spread over `hosts` hosts whose
// largest row has the given busbw.
std::string allReduceTable(int ranks, int hosts, double busbw) {
  std::string text =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20\n";
  for (int r = 0; r < ranks; ++r)
    text += fmt::format("#  Rank {:2} Group  0 Pid  {} on node-{} device {} [0x{:02x}] NVIDIA H100\n", r,
                        100 + r, r * hosts / ranks, r % 8, r);
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n";
  double factor = 2.0 * (ranks - 1) / ranks;
  text += fmt::format(
      "     1048576        262144     float     sum      -1    100.0   {:.2f}   {:.2f}      0    100.0   "
      "{:.2f}   {:.2f}      0\n",
      busbw / 2 / factor, busbw / 2, busbw / 2 / factor, busbw / 2);
  text += fmt::format(
      "  8589934592    2147483648     float     sum      -1    100.0   {:.2f}   {:.2f}      0    100.0   "
      "{:.2f}   {:.2f}      0\n",
      busbw / factor, busbw, busbw / factor, busbw - 1);
  return text;
}

GradeRequest lineRate(double nic_gbps) {
  GradeRequest r;
  r.expect_line_rate = true;
  r.nic_gbps = nic_gbps;
  r.nic_source = "--nic-gbps";
  return r;
}

TEST(LogsGrade, TwoNodesOfEight400GNicsAllReduce) {
  auto table = parseNcclTestsTable(allReduceTable(16, 2, 350.0));
  ASSERT_EQ(table.hosts.size(), 2u);
  auto g = gradeTable(table, "t.txt", lineRate(8 * 400), {});
  // 0.8 * (3200 / 8) * (2*15/16) / (2*1/2) = 600 GB/s
  ASSERT_TRUE(g.expected_busbw_gbs.has_value()) << g.reason;
  EXPECT_NEAR(*g.expected_busbw_gbs, 600.0, 1e-9);
  EXPECT_EQ(g.status, GradeStatus::kFail);
  EXPECT_EQ(g.op, "all_reduce");
  EXPECT_EQ(g.ranks, 16);
  EXPECT_EQ(g.nodes, 2);
  EXPECT_DOUBLE_EQ(*g.measured_busbw_gbs, 350.0);
  EXPECT_DOUBLE_EQ(g.size_bytes, 8589934592.0);
  EXPECT_NEAR(*g.bus_factor_ranks, 1.875, 1e-12);
  EXPECT_NEAR(*g.bus_factor_nodes, 1.0, 1e-12);
  EXPECT_NE(g.reason.find("600"), std::string::npos) << g.reason;

  auto passing = gradeTable(parseNcclTestsTable(allReduceTable(16, 2, 610.0)), "t.txt", lineRate(3200), {});
  EXPECT_EQ(passing.status, GradeStatus::kPass);
}

TEST(LogsGrade, FractionAndNodeCountChangeTheBound) {
  auto table = parseNcclTestsTable(allReduceTable(32, 4, 100.0));
  auto request = lineRate(3200);
  request.fraction = 0.5;
  auto g = gradeTable(table, "t", request, {});
  // 0.5 * 400 * (2*31/32) / (2*3/4) = 258.33
  ASSERT_TRUE(g.expected_busbw_gbs.has_value());
  EXPECT_NEAR(*g.expected_busbw_gbs, 0.5 * 400 * (62.0 / 32) / 1.5, 1e-9);
  request.nodes = 2;  // --nodes overrides the hosts of the Rank lines
  auto forced = gradeTable(table, "t", request, {});
  EXPECT_EQ(forced.nodes_source, "--nodes");
  EXPECT_NEAR(*forced.expected_busbw_gbs, 0.5 * 400 * (62.0 / 32) / 1.0, 1e-9);
}

TEST(LogsGrade, OneNodeHasNoNicBound) {
  auto g = gradeTable(parseNcclTestsTable(allReduceTable(8, 1, 450.0)), "t", lineRate(3200), {});
  EXPECT_EQ(g.status, GradeStatus::kNoBound);
  EXPECT_FALSE(g.expected_busbw_gbs.has_value());
  EXPECT_NE(g.reason.find("one node"), std::string::npos);
  auto json = gradeToJson(g);
  EXPECT_TRUE(json["pass"].is_null());
  EXPECT_EQ(json["status"], "no-bound");
}

TEST(LogsGrade, ExpectBusbwComparesTheLargestSize) {
  GradeRequest request;
  request.expect_busbw_gbs = 300;
  auto table = parseNcclTestsTable(allReduceTable(16, 2, 350.0));
  auto g = gradeTable(table, "t", request, {});
  EXPECT_EQ(g.status, GradeStatus::kPass);
  request.expect_busbw_gbs = 351;
  EXPECT_EQ(gradeTable(table, "t", request, {}).status, GradeStatus::kFail);
  EXPECT_EQ(gradeTable(NcclTestsTable{}, "t", request, {}).status, GradeStatus::kUngradable);
}

TEST(LogsGrade, MissingFactsMakeItUngradableAndSayWhich) {
  // No Rank lines, no hints: ranks come from busbw/algbw, nodes are unknown.
  std::string text =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n"
      "  8589934592    2147483648     float     sum      -1    100.0   100.00  175.00      0    100.0   "
      "100.00  175.00      0\n";
  auto g = gradeTable(parseNcclTestsTable(text), "t", lineRate(3200), {});
  EXPECT_EQ(g.status, GradeStatus::kUngradable);
  EXPECT_EQ(g.ranks, 8);  // 2(n-1)/n = 1.75
  EXPECT_NE(g.reason.find("node count"), std::string::npos) << g.reason;
  JobHints hints;
  hints.nodes = 2;
  hints.nodes_source = "NCCL hosts";
  auto hinted = gradeTable(parseNcclTestsTable(text), "t", lineRate(3200), hints);
  ASSERT_TRUE(hinted.expected_busbw_gbs.has_value()) << hinted.reason;
  EXPECT_NEAR(*hinted.expected_busbw_gbs, 0.8 * 400 * 1.75, 1e-9);
}

TEST(LogsGrade, CollectiveFromCommandLineOrTable) {
  auto named = parseNcclTestsTable("$ mpirun -np 4 ./build/reduce_scatter_perf -b 8 -e 1G\n");
  auto op = guessCollective(named, std::nullopt);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->op, CollectiveOp::kReduceScatter);
  // count = size / 4 / ranks with no reduction: all_gather family.
  auto gather = parseNcclTestsTable(
      "        1024           128     float    none      -1    21.75    0.05    0.02      0    20.94    0.05 "
      "   0.02      0\n");
  op = guessCollective(gather, 2);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->op, CollectiveOp::kAllGather);
  // busbw == algbw with 8 ranks: sendrecv.
  auto sendrecv = parseNcclTestsTable(
      "  1073741824     268435456     float     sum      -1    76929    5.80    5.80      0    76967    5.80 "
      "   5.80    N/A\n");
  op = guessCollective(sendrecv, 8);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->op, CollectiveOp::kSendRecv);
}

TEST(LogsGrade, SharedSamplesGuessTheirCollective) {
  RAILKIT_REQUIRE_SHARED();
  auto read = [](const char* name) {
    std::ifstream in(testing::sharedDir() / "data/nccl-tests" / name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return parseNcclTestsTable(ss.str());
  };
  auto t002 = read("002.txt");
  EXPECT_EQ(t002.ranks.size(), 16u);
  auto op = guessCollective(t002, 16);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->op, CollectiveOp::kAllReduce);
  op = guessCollective(read("013.txt"), 2);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->op, CollectiveOp::kAllGather);
  auto t006 = read("006.txt");
  op = guessCollective(t006, static_cast<int>(t006.ranks.size()));
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->op, CollectiveOp::kSendRecv);
  // 004: 2 ranks on 2 hosts, one 400 Gb/s NIC each: bound 0.8 * 50 = 40 GB/s, measured ~15.
  auto g = gradeTable(read("004.txt"), "004.txt", lineRate(400), {});
  EXPECT_EQ(g.nodes, 2);
  EXPECT_EQ(g.status, GradeStatus::kFail);
  ASSERT_TRUE(g.expected_busbw_gbs.has_value());
  EXPECT_NEAR(*g.expected_busbw_gbs, 40.0, 1e-9);
}

TEST(LogsGrade, NicSumSkipsDownPortsAndVfsOfListedPfs) {
  model::Inventory inv;
  auto device = [](std::string name, std::string address, std::string physfn, std::string state,
                   double rate) {
    model::RdmaDevice d;
    d.name = std::move(name);
    d.pci = model::PciFunction{};
    d.pci->address = std::move(address);
    d.sriov.physfn = std::move(physfn);
    model::RdmaPort p;
    p.port = 1;
    p.state = std::move(state);
    p.rate_gbps = rate;
    d.ports.push_back(p);
    return d;
  };
  inv.rdma_devices.push_back(device("mlx5_0", "0000:01:00.0", "", "ACTIVE", 400));
  inv.rdma_devices.push_back(device("mlx5_1", "0000:02:00.0", "", "ACTIVE", 400));
  inv.rdma_devices.push_back(device("mlx5_2", "0000:03:00.0", "", "DOWN", 400));
  inv.rdma_devices.push_back(device("mlx5_3", "0000:01:00.1", "0000:01:00.0", "ACTIVE", 400));
  auto sum = sumNicRates(inv, {});
  ASSERT_TRUE(sum.has_value());
  EXPECT_DOUBLE_EQ(sum->gbps, 800);
  EXPECT_EQ(sum->parts.size(), 2u);
  auto only = sumNicRates(inv, {"mlx5_1"});
  ASSERT_TRUE(only.has_value());
  EXPECT_DOUBLE_EQ(only->gbps, 400);
  EXPECT_FALSE(sumNicRates(model::Inventory{}, {}).has_value());
}

}  // namespace
}  // namespace railkit::logs
