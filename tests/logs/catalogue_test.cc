// Every id `railkit logs` can emit has a catalogue entry, and `railkit
// explain` knows each of them.
#include "logs/catalogue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cli/cli_run.h"
#include "logs/nccl/rule.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

// Ids raised outside the NCCL rules table: combineJob (nccl_job.cc) and the
// table, perftest and grade findings (output_findings.cc).
const std::set<std::string> kFixedIds = {"nccl-version-mismatch",    "nccl-net-socket",
                                         "nccl-tests-wrong-results", "nccl-tests-out-of-bounds",
                                         "nccl-tests-busbw-low",     "perftest-failed"};

std::set<std::string> emittedIds() {
  std::set<std::string> ids = kFixedIds;
  for (const auto& rule : nccl::allNcclRules()) ids.insert(rule.id);
  return ids;
}

TEST(LogsCatalogue, EveryEmittedIdHasAnEntry) {
  auto ids = emittedIds();
  EXPECT_EQ(ids.size(), logsCatalogue().size());
  for (const auto& id : ids) {
    const CatalogueEntry* e = findLogsEntry(id);
    ASSERT_NE(e, nullptr) << id;
    EXPECT_GT(std::string(e->title).size(), 10u) << id;
    EXPECT_GT(std::string(e->explain).size(), 100u) << id;
    EXPECT_NE(std::string(e->explain).find("Fix"), std::string::npos)
        << id << ": says why, not how to fix it";
  }
}

TEST(LogsCatalogue, NoEntryForAnIdNothingEmits) {
  auto ids = emittedIds();
  std::set<std::string> seen;
  for (const auto& e : logsCatalogue()) {
    EXPECT_TRUE(ids.count(e.id)) << e.id << " is catalogued but nothing emits it";
    EXPECT_TRUE(seen.insert(e.id).second) << e.id << " twice";
  }
}

railkit::testing::ProcessResult explain(const std::string& id) {
  return railkit::testing::runRailkit("explain " + id);
}

TEST(LogsCatalogue, ExplainKnowsEveryLogsId) {
  for (const auto& id : emittedIds()) {
    auto r = explain(id);
    EXPECT_EQ(r.status, 0) << id << ": " << r.out;
    EXPECT_THAT(r.out, ::testing::HasSubstr(id));
    EXPECT_THAT(r.out, ::testing::HasSubstr(findLogsEntry(id)->title));
  }
}

TEST(LogsCatalogue, ExplainNamesLogsAsTheReporter) {
  auto r = explain("nccl-timeout");
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, ::testing::HasSubstr("railkit logs"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("watchdog"));
  EXPECT_EQ(explain("no-such-id-anywhere").status, 2);
}

}  // namespace
}  // namespace railkit::logs
