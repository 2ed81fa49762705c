// The input analyser asks the nccl-tests and perftest recognisers inline
// whether they would skip a line (logs/input.cc): the tables and results it
// reports are those of the parsers fed every line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "logs/input.h"
#include "logs/nccl_tests_table.h"
#include "logs/perftest.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

void expectSameTables(const std::string& name, const std::string& text) {
  SCOPED_TRACE(name);
  InputReport report = analyzeText(name, text);
  NcclTestsTable table = parseNcclTestsTable(text);
  PerftestResult perftest = parsePerftest(text);
  if (report.table) {
    EXPECT_EQ(report.table->rows.size(), table.rows.size());
    for (size_t i = 0; i < std::min(report.table->rows.size(), table.rows.size()); ++i)
      EXPECT_EQ(report.table->rows[i].line, table.rows[i].line);
    EXPECT_EQ(report.table->op, table.op);
    EXPECT_EQ(report.table->op_line, table.op_line);
    EXPECT_EQ(report.table->header_seen, table.header_seen);
    EXPECT_EQ(report.table->nthread, table.nthread);
    EXPECT_EQ(report.table->ranks, table.ranks);
    EXPECT_EQ(report.table->hosts, table.hosts);
    EXPECT_EQ(report.table->avg_busbw_gbs, table.avg_busbw_gbs);
    EXPECT_EQ(report.table->out_of_bounds, table.out_of_bounds);
    EXPECT_EQ(report.table->wrong_total, table.wrong_total);
  } else {
    EXPECT_TRUE(table.rows.empty());
  }
  if (report.perftest) {
    EXPECT_EQ(report.perftest->tool, perftest.tool);
    EXPECT_EQ(report.perftest->test, perftest.test);
    EXPECT_EQ(report.perftest->rows.size(), perftest.rows.size());
    EXPECT_EQ(report.perftest->error_lines, perftest.error_lines);
  }
}

TEST(LogsInputTables, InlineSkipSeesWhatTheParsersSee) {
  // Past the first 2000 lines (where command lines are looked for), lines
  // that start with the letters the recognisers do read, among NCCL lines.
  std::string text;
  for (int i = 0; i < 2100; ++i)
    text +=
        "node-" + std::to_string(i % 9) + ":11:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n";
  text +=
      "nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n";
  text +=
      "         8             2     float     sum      -1    10.00    0.00    0.00      0     9.00    0.00   "
      " 0.00      0\n";
  text += "ncclHost:1:2 [0] NCCL INFO Using network IB\n";
  text += "Out of bounds values : 0 OK\n";
  text += "Avg bus bandwidth    : 0.5\n";
  text += "RDMA_Write BW Test\n";
  text += "Simulated line that starts with S\n";
  expectSameTables("made-up", text);

  RAILKIT_REQUIRE_SHARED();
  size_t files = 0;
  for (const char* dir : {"nccl-logs", "nccl-tests", "perftest"}) {
    std::filesystem::path path = railkit::testing::sharedDir() / "data" / dir;
    if (!std::filesystem::is_directory(path)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      expectSameTables(entry.path().string(), testutil::readFile(entry.path().string()));
      ++files;
    }
  }
  EXPECT_GT(files, 30u);
}

}  // namespace
}  // namespace railkit::logs
