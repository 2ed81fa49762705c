// The logs catalogue is the declared ids (the NCCL rules and the
// benchmark-output findings, each declared next to what raises it), not a
// list kept beside them: each declared id is explained, `railkit explain`
// knows it, and `railkit logs` emits it on an input (the real ones of the
// suite, plus one table written here).
#include "logs/catalogue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli/cli_run.h"
#include "logs/nccl/rule.h"
#include "logs/output_findings.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

namespace fs = std::filesystem;

std::set<std::string> ids(const std::vector<CatalogueEntry>& entries) {
  std::set<std::string> out;
  for (const auto& e : entries) out.insert(e.id);
  return out;
}

TEST(LogsCatalogue, IsTheDeclaredIdsSortedOnce) {
  std::set<std::string> declared = ids(outputFindingRules());
  for (const auto& rule : nccl::allNcclRules()) EXPECT_TRUE(declared.insert(rule.id).second) << rule.id;
  ASSERT_GE(declared.size(), 15u);
  const auto& catalogue = logsCatalogue();
  EXPECT_EQ(ids(catalogue), declared);
  EXPECT_EQ(catalogue.size(), declared.size()) << "an id declared twice";
  for (std::size_t i = 1; i < catalogue.size(); ++i)
    EXPECT_LT(std::string(catalogue[i - 1].id), catalogue[i].id) << "not sorted by id";
}

TEST(LogsCatalogue, EveryDeclaredIdIsExplained) {
  for (const auto& e : logsCatalogue()) {
    EXPECT_EQ(findLogsEntry(e.id), &e) << e.id;
    EXPECT_GT(std::string(e.title).size(), 10u) << e.id;
    EXPECT_GT(std::string(e.explain).size(), 100u) << e.id;
    EXPECT_EQ(std::string(e.fix).rfind("Fix", 0), 0u) << e.id << ": says why, not how to fix it";
  }
  EXPECT_EQ(findLogsEntry("no-such-id"), nullptr);
}

// Every input of the logs suites taken from public threads and repositories
// (the suite's fixtures and ../shared/data, each with its source in a README
// or INDEX.md).
std::vector<std::string> realInputs() {
  std::vector<std::string> out;
  const fs::path tests = railkit::testing::sourceDir() / "tests";
  const fs::path shared = railkit::testing::sharedDir() / "data";
  for (const fs::path& dir : {tests / "logs" / "fixtures" / "real", tests / "fixtures" / "logs",
                              shared / "nccl-logs", shared / "nccl-tests", shared / "perftest"})
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().extension() != ".md") out.push_back(entry.path().string());
  return out;
}

// The suite's real inputs each name their source: a row `| file | https://github.com/...`
// in the README beside them.
TEST(LogsCatalogue, EveryRealFixtureNamesItsSource) {
  const fs::path tests = railkit::testing::sourceDir() / "tests";
  size_t checked = 0;
  for (const fs::path& dir :
       {tests / "logs" / "fixtures" / "real", tests / "fixtures" / "logs" / "transport"}) {
    std::ifstream in(dir / "README.md");
    std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(readme.empty()) << dir;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".md") continue;
      std::string row = "| " + entry.path().filename().string() + " | https://github.com/";
      EXPECT_NE(readme.find(row), std::string::npos)
          << entry.path() << " has no source row in " << dir / "README.md";
      ++checked;
    }
  }
  EXPECT_GE(checked, 30u);
}

// No public input in the suite shows a non-zero #wrong column (a corrupted
// collective is rarely pasted whole), so this one table is written here: two
// rows of nccl-tests' own layout, the second with 3 wrong elements in place.
const char* const kWrongResultsTable =
    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
    "  busbw #wrong\n"
    "     1048576        262144     float     sum      -1    60.00   17.48   32.77      0    59.00   17.77   "
    "33.32"
    "      0\n"
    "     2097152        524288     float     sum      -1    80.00   26.21   49.15      0    79.00   26.55   "
    "49.77"
    "      3\n"
    "# Out of bounds values : 0 OK\n";

// `railkit logs` over those inputs, with a busbw bound no run reaches so that
// the grade finding shows too: every declared id is emitted by one of them,
// so an id declared without a raiser that fires fails here.
TEST(LogsCatalogue, EveryDeclaredIdIsEmittedOnAnInput) {
  RAILKIT_REQUIRE_SHARED();
  auto inputs = realInputs();
  ASSERT_GE(inputs.size(), 40u);
  inputs.push_back(railkit::testing::writeScratchFile("wrong_results.txt", kWrongResultsTable));
  std::string args = "logs --json --expect-busbw 100000";
  for (const auto& path : inputs) args += " '" + path + "'";
  auto r = railkit::testing::runRailkit(args);
  ASSERT_EQ(r.status, 1) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  std::set<std::string> emitted;
  for (const auto& f : doc.at("findings")) emitted.insert(f.at("id").get<std::string>());
  for (const auto& e : logsCatalogue())
    EXPECT_TRUE(emitted.count(e.id)) << e.id << " is declared but no input makes `railkit logs` emit it";
}

railkit::testing::ProcessResult explain(const std::string& id) {
  return railkit::testing::runRailkit("explain " + id);
}

TEST(LogsCatalogue, ExplainKnowsEveryDeclaredId) {
  for (const auto& e : logsCatalogue()) {
    auto r = explain(e.id);
    EXPECT_EQ(r.status, 0) << e.id << ": " << r.out;
    EXPECT_THAT(r.out, ::testing::HasSubstr(e.id));
    EXPECT_THAT(r.out, ::testing::HasSubstr(e.title));
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
