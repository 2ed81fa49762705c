// `railkit validate` from the command line, ranks forked with --local over
// lo: usage errors are one line and exit 2 before any rank starts; the
// verdict is rank 0's exit status (a healthy tree passes, a node short of
// its expected NICs fails naming them).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/node_builder.h"
#include "support/run_railkit.h"

namespace {

using railkit::testing::runRailkit;

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
  };
  for (const auto& extra : bad) {
    auto r = runRailkit(args(extra));
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
    EXPECT_EQ(r.errLines(), 1) << extra[0] << ": " << r.err;
  }
}

TEST(ValidateCli, VerdictIsTheExitStatus) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("railkit-validate-cli-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  railkit::testing::NodeBuilder::healthyDgxH100().write(dir / "healthy");
  auto healthy = runRailkit(
      args({"--root", (dir / "healthy").string(), "--expect-nics", "8", "--expect-gpus", "8", "--json"}));
  ASSERT_EQ(healthy.exit_code, 0) << healthy.err << healthy.out.substr(0, 2000);
  auto doc = nlohmann::json::parse(healthy.out);
  EXPECT_EQ(doc["verdict"], "pass");
  EXPECT_EQ(doc["nodes"].size(), 2u);
  EXPECT_EQ(doc["collectives"][0]["wrong"], 0);
  // Expecting more NICs than the node has fails every node, naming the count.
  auto short_of = runRailkit(args({"--root", (dir / "healthy").string(), "--expect-nics", "9"}));
  EXPECT_EQ(short_of.exit_code, 1) << short_of.err;
  EXPECT_NE(short_of.out.find("VERDICT: FAIL (2 of 2 node(s) fail)"), std::string::npos) << short_of.out;
  EXPECT_NE(short_of.out.find("[rdma-nic-count] node: 8 of 9 expected"), std::string::npos) << short_of.out;
  // --fail-fast: the same failure stops the run after phases 1-2.
  auto fast =
      runRailkit(args({"--root", (dir / "healthy").string(), "--expect-nics", "9", "--fail-fast", "--json"}));
  EXPECT_EQ(fast.exit_code, 1) << fast.err;
  auto fast_doc = nlohmann::json::parse(fast.out);
  EXPECT_EQ(fast_doc["verdict"], "fail");
  EXPECT_TRUE(fast_doc["pairs"].is_null());
  EXPECT_TRUE(fast_doc["collectives"].empty());
  EXPECT_FALSE(fast_doc["phases"]["links"]["ran"].get<bool>());
  ASSERT_EQ(fast_doc["notes"].size(), 1u);
  EXPECT_NE(fast_doc["notes"][0].get<std::string>().find("--fail-fast"), std::string::npos)
      << fast_doc["notes"];
  // A passing run with --fail-fast goes on to the links and collectives.
  auto on =
      runRailkit(args({"--root", (dir / "healthy").string(), "--expect-nics", "8", "--fail-fast", "--json"}));
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_TRUE(nlohmann::json::parse(on.out)["pairs"].is_object());
  fs::remove_all(dir);
}

}  // namespace
