// snapshot round trips: inspect --root <snapshot> == inspect --root <tree>
// (directory and .tar.gz), and on this machine live == snapshot of live.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/node_builder.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::testing::NodeBuilder;

namespace {

fs::path tempPath(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("railkit-snapshot-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

int runTo(const std::string& args, std::string& out) {
  std::string cmd = railkit::testing::railkitBinary() + " " + args;
  out.clear();
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return WEXITSTATUS(pclose(p));
}

nlohmann::json inspectJson(const std::string& root_args) {
  std::string out;
  EXPECT_EQ(runTo("inspect --json " + root_args, out), 0) << root_args;
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << out;
  if (!j.is_discarded()) j.erase("root");
  return j;
}

void roundTrip(const std::string& source_args, const std::string& label) {
  fs::path dir = tempPath(label + "-dir");
  fs::path tgz = tempPath(label + "-tgz") += ".tar.gz";
  std::string out;
  ASSERT_EQ(runTo("snapshot -o " + dir.string() + " " + source_args, out), 0) << out;
  ASSERT_EQ(runTo("snapshot -o " + tgz.string() + " " + source_args, out), 0) << out;
  EXPECT_TRUE(fs::exists(dir / "railkit" / "live.json"));
  auto want = inspectJson(source_args);
  EXPECT_EQ(inspectJson("--root " + dir.string()), want) << label << " directory snapshot differs";
  EXPECT_EQ(inspectJson("--root " + tgz.string()), want) << label << " .tar.gz snapshot differs";
  fs::remove_all(dir);
  fs::remove(tgz);
}

}  // namespace

TEST(SnapshotRoundTrip, HealthyDgxTree) {
  fs::path tree = tempPath("tree");
  railkit::testing::buildHealthyDgxH100(tree);
  roundTrip("--root " + tree.string(), "dgx");
  fs::remove_all(tree);
}

TEST(SnapshotRoundTrip, BrokenRoceTreeWithVfs) {
  fs::path tree = tempPath("tree-roce");
  auto node = NodeBuilder::healthyRoce();
  node.addVfs("mlx5_0", 2).setAcsAboveNic("mlx5_1", 5).setShmKib(std::nullopt);
  node.write(tree);
  roundTrip("--root " + tree.string(), "roce");
  fs::remove_all(tree);
}

TEST(SnapshotRoundTrip, LiveMachine) { roundTrip("", "live"); }

TEST(SnapshotCli, BadArguments) {
  std::string out;
  EXPECT_EQ(runTo("snapshot -o /tmp/x-never --root /nonexistent/railkit-root 2>&1", out), 2) << out;
  EXPECT_NE(out.find("/nonexistent/railkit-root"), std::string::npos) << out;
  fs::path dir = tempPath("full");
  fs::create_directories(dir);
  std::ofstream(dir / "f") << "x";
  EXPECT_EQ(runTo("snapshot -o " + dir.string() + " 2>&1", out), 2) << out;
  fs::remove_all(dir);
}

// A captured environ or netdev name is whatever bytes the machine had; the
// JSON stays parseable (non-UTF-8 bytes become U+FFFD) instead of aborting.
TEST(InspectJson, NonUtf8BytesInTheTreeGiveValidJson) {
  fs::path tree = tempPath("latin1");
  auto node = NodeBuilder::healthyDgxH100();
  node.setEnv("NCCL_SOCKET_IFNAME", std::string("eth\xff\xfe", 5)).setEnv("UCX_TLS", std::string("rc\xc3", 3));
  node.write(tree);
  std::string out;
  ASSERT_EQ(runTo("inspect --json --root " + tree.string(), out), 0) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_NE(out.find("eth\xef\xbf\xbd"), std::string::npos) << out.substr(0, 2000);
  fs::remove_all(tree);
}
