// `railkit validate` from the command line, ranks forked with --local over
// lo: usage errors are one line and exit 2 before any rank starts; the
// verdict is rank 0's exit status (a healthy tree passes, a node short of
// its expected NICs fails naming them).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/node_builder.h"
#include "support/process.h"

namespace {

using railkit::testing::runRailkitArgv;

const std::vector<std::string> kSmall = {"--local",
                                         "2",
                                         "-b",
                                         "4K",
                                         "-e",
                                         "4K",
                                         "-n",
                                         "1",
                                         "-w",
                                         "0",
                                         "--pairs-bytes",
                                         "4K",
                                         "--pairs-iters",
                                         "1",
                                         "--slow-fraction",
                                         "0.01"};

std::vector<std::string> args(std::vector<std::string> extra) {
  std::vector<std::string> out{"validate"};
  out.insert(out.end(), kSmall.begin(), kSmall.end());
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

TEST(ValidateCli, UsageErrorsAreOneLineAndExitTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {"--ops", "all_reduce,bogus"},
      {"--pairs-bytes", "0"},
      {"--slow-fraction", "1.5"},
      {"--expect-nics", "-1"},
      {"--root", "/nonexistent/railkit-tree"},
      {"--nproc-per-node", "2"},
      {"--slow-fraction", "0"},
      {"--slow-fraction", "nan"},
      {"-n", "0"},
      {"-w", "-1"},
      {"-b", "3Q"},
      {"-e", "1X"},
      {"--collectives-budget", "0"},
      {"--collectives-budget", "inf"},
  };
  for (const auto& extra : bad) {
    auto r = runRailkitArgv(args(extra));
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
    EXPECT_EQ(r.errLines(), 1) << extra[0] << ": " << r.err;
  }
}

// A budget no link can meet: phase 4 runs the smallest size alone, once,
// without warm-up, and says so in the progress, the notes and the JSON.
TEST(ValidateCli, CollectivesBudgetCutsTheSweep) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("railkit-validate-budget-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  railkit::testing::NodeBuilder::healthyDgxH100().write(dir / "healthy");
  std::vector<std::string> argv{"validate", "--root", (dir / "healthy").string(), "--json-out",
                                (dir / "out.json").string()};
  std::istringstream flags(
      "--local 2 -b 4K -e 64K -n 5 -w 2 --pairs-bytes 4K --pairs-iters 1 --slow-fraction 0.01 "
      "--collectives-budget 1e-9");
  for (std::string word; flags >> word;) argv.push_back(word);
  auto cut = runRailkitArgv(argv);
  ASSERT_EQ(cut.exit_code, 0) << cut.err << cut.out.substr(0, 2000);
  EXPECT_NE(
      cut.out.find("# phase 4/4 collectives: sizes capped at 4K (asked 4K-64K), 1 iteration(s) and 0 "
                   "warm-up (asked 5 and 2) to fit 1e-09 s (--collectives-budget): the slowest link r0-r1"),
      std::string::npos)
      << cut.out;
  EXPECT_NE(cut.out.find("note: phase 4 sizes capped at 4K"), std::string::npos) << cut.out;
  std::ifstream in(dir / "out.json");
  auto doc = nlohmann::json::parse(in);
  fs::remove_all(dir);
  const auto& sizing = doc["phases"]["collectives"]["sizing"];
  EXPECT_TRUE(sizing["capped"].get<bool>()) << sizing;
  EXPECT_EQ(sizing["sizes"], nlohmann::json::array({4096})) << sizing;
  EXPECT_EQ(sizing["iters"], 1) << sizing;
  EXPECT_EQ(sizing["warmup"], 0) << sizing;
  EXPECT_GT(sizing["slowest_link"]["gbps"].get<double>(), 0) << sizing;
  ASSERT_EQ(doc["collectives"].size(), 1u);
  EXPECT_EQ(doc["collectives"][0]["rows"].size(), 1u);
}

TEST(ValidateCli, VerdictIsTheExitStatus) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("railkit-validate-cli-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  railkit::testing::NodeBuilder::healthyDgxH100().write(dir / "healthy");
  auto healthy = runRailkitArgv(
      args({"--root", (dir / "healthy").string(), "--expect-nics", "8", "--expect-gpus", "8", "--json"}));
  ASSERT_EQ(healthy.exit_code, 0) << healthy.err << healthy.out.substr(0, 2000);
  auto doc = nlohmann::json::parse(healthy.out);
  EXPECT_EQ(doc["verdict"], "pass");
  EXPECT_EQ(doc["nodes"].size(), 2u);
  EXPECT_EQ(doc["collectives"][0]["wrong"], 0);
  // Loopback's slowest link leaves phase 4's sweep as asked, and says which link it was.
  const auto& sizing = doc["phases"]["collectives"]["sizing"];
  EXPECT_FALSE(sizing["capped"].get<bool>()) << sizing;
  EXPECT_EQ(sizing["slowest_link"]["a"], 0) << sizing;
  EXPECT_EQ(sizing["slowest_link"]["b"], 1) << sizing;
  // Expecting more NICs than the node has fails every node, naming the count.
  auto short_of = runRailkitArgv(args({"--root", (dir / "healthy").string(), "--expect-nics", "9"}));
  EXPECT_EQ(short_of.exit_code, 1) << short_of.err;
  EXPECT_NE(short_of.out.find("VERDICT: FAIL (2 of 2 node(s) fail)"), std::string::npos) << short_of.out;
  EXPECT_NE(short_of.out.find("[rdma-nic-count] node: 8 of 9 expected"), std::string::npos) << short_of.out;
  // --fail-fast: the same failure stops the run after phases 1-2.
  auto fast = runRailkitArgv(
      args({"--root", (dir / "healthy").string(), "--expect-nics", "9", "--fail-fast", "--json"}));
  EXPECT_EQ(fast.exit_code, 1) << fast.err;
  auto fast_doc = nlohmann::json::parse(fast.out);
  EXPECT_EQ(fast_doc["verdict"], "fail");
  EXPECT_TRUE(fast_doc["pairs"].is_null());
  EXPECT_TRUE(fast_doc["collectives"].empty());
  EXPECT_FALSE(fast_doc["phases"]["links"]["ran"].get<bool>());
  // Among them the one for LLDP where this machine runs no lldpd.
  const auto& notes = fast_doc["notes"];
  EXPECT_EQ(std::count_if(notes.begin(), notes.end(),
                          [](const auto& n) {
                            return n.template get<std::string>().find("--fail-fast") != std::string::npos;
                          }),
            1)
      << notes;
  // A passing run with --fail-fast goes on to the links and collectives.
  auto on = runRailkitArgv(
      args({"--root", (dir / "healthy").string(), "--expect-nics", "8", "--fail-fast", "--json"}));
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_TRUE(nlohmann::json::parse(on.out)["pairs"].is_object());
  fs::remove_all(dir);
}

}  // namespace
