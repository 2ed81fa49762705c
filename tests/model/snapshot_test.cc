// snapshot round trips: inspect --root <snapshot> == inspect --root <tree>
// (directory and .tar.gz), and on this machine live == snapshot of live.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "support/node_builder.h"
#include "support/roce_live.h"
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
  auto r = railkit::testing::runRailkit(args);
  out = r.out;
  return r.status;
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
  ASSERT_EQ(runTo("snapshot --output " + dir.string() + " " + source_args, out), 0) << out;
  ASSERT_EQ(runTo("snapshot --output " + tgz.string() + " " + source_args, out), 0) << out;
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
  // Routing, sysctls and DCB of the namespace (live.json) and mlx5 ECN files travel too.
  node.setLiveJson(railkit::testing::roceLiveJson({.policy_routing = false, .rp_filter = 1}))
      .setEcn("ens2f0np0", 0xff, 0x7f);
  node.write(tree);
  roundTrip("--root " + tree.string(), "roce");
  fs::remove_all(tree);
}

// The port counters travel too, so `exporter --root SNAPSHOT` serves them.
TEST(SnapshotRoundTrip, PortCountersAreCopied) {
  fs::path tree = tempPath("tree-counters");
  auto node = NodeBuilder::healthyDgxH100();
  auto& port = node.port("mlx5_0", 1);
  port.counters = {{"port_xmit_data", "1000\n"}, {"symbol_error", "3\n"}};
  port.hw_counters = {{"np_cnp_sent", "5\n"}, {"rp_cnp_handled", "6\n"}};
  node.write(tree);
  fs::path snap = tempPath("snap-counters");
  std::string out;
  ASSERT_EQ(runTo("snapshot --output " + snap.string() + " --root " + tree.string() + " 2>&1", out), 0)
      << out;
  const fs::path ports = snap / "sys/class/infiniband/mlx5_0/ports/1";
  for (const char* file : {"counters/port_xmit_data", "counters/symbol_error", "hw_counters/np_cnp_sent",
                           "hw_counters/rp_cnp_handled"}) {
    std::ifstream in(ports / file);
    std::string value;
    EXPECT_TRUE(std::getline(in, value)) << file;
  }
  std::ifstream in(ports / "counters/port_xmit_data");
  std::string value;
  std::getline(in, value);
  EXPECT_EQ(value, "1000");
  fs::remove_all(tree);
  fs::remove_all(snap);
}

TEST(SnapshotRoundTrip, LiveMachine) {
  roundTrip("", "live");
}

TEST(SnapshotCli, BadArguments) {
  std::string out;
  EXPECT_EQ(runTo("snapshot --output /tmp/x-never --root /nonexistent/railkit-root 2>&1", out), 2) << out;
  EXPECT_NE(out.find("/nonexistent/railkit-root"), std::string::npos) << out;
  fs::path dir = tempPath("full");
  fs::create_directories(dir);
  std::ofstream(dir / "f") << "x";
  EXPECT_EQ(runTo("snapshot --output " + dir.string() + " 2>&1", out), 2) << out;
  fs::remove_all(dir);
}

// A captured environ or netdev name is whatever bytes the machine had; the
// JSON stays parseable (non-UTF-8 bytes become U+FFFD) instead of aborting.
TEST(InspectJson, NonUtf8BytesInTheTreeGiveValidJson) {
  fs::path tree = tempPath("latin1");
  auto node = NodeBuilder::healthyDgxH100();
  node.setEnv("NCCL_SOCKET_IFNAME", std::string("eth\xff\xfe", 5))
      .setEnv("UCX_TLS", std::string("rc\xc3", 3));
  node.write(tree);
  std::string out;
  ASSERT_EQ(runTo("inspect --json --root " + tree.string(), out), 0) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_NE(out.find("eth\xef\xbf\xbd"), std::string::npos) << out.substr(0, 2000);
  fs::remove_all(tree);
}

// An existing output is never replaced silently; --force replaces a file or
// a railkit snapshot directory, never another directory. No temporary file
// is left beside the output.
TEST(SnapshotOutput, ExistingOutputNeedsForce) {
  fs::path tree = tempPath("force-tree");
  railkit::testing::buildHealthyDgxH100(tree);
  fs::path dir = tempPath("force-out");
  fs::create_directories(dir);
  std::string tgz = (dir / "node.tar.gz").string();
  std::string out;
  ASSERT_EQ(runTo("snapshot --output " + tgz + " --root " + tree.string() + " 2>&1", out), 0) << out;
  auto first = fs::last_write_time(tgz);
  auto size = fs::file_size(tgz);
  EXPECT_EQ(runTo("snapshot --output " + tgz + " --root " + tree.string() + " 2>&1", out), 2) << out;
  EXPECT_NE(out.find("already exists (remove it or pass --force)"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(fs::last_write_time(tgz), first);
  EXPECT_EQ(fs::file_size(tgz), size);
  ASSERT_EQ(runTo("snapshot --force --output " + tgz + " --root " + tree.string() + " 2>&1", out), 0) << out;

  // A directory snapshot: refused without --force, replaced with it.
  fs::path snapdir = dir / "node";
  ASSERT_EQ(runTo("snapshot --output " + snapdir.string() + " --root " + tgz + " 2>&1", out), 0) << out;
  std::ofstream(snapdir / "stale") << "old\n";
  EXPECT_EQ(runTo("snapshot --output " + snapdir.string() + " --root " + tgz + " 2>&1", out), 2) << out;
  EXPECT_NE(out.find("--force"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(snapdir / "stale"));
  ASSERT_EQ(runTo("snapshot --force --output " + snapdir.string() + " --root " + tgz + " 2>&1", out), 0)
      << out;
  EXPECT_FALSE(fs::exists(snapdir / "stale"));
  EXPECT_TRUE(fs::exists(snapdir / "railkit" / "live.json"));

  // --force never replaces a directory that is not a snapshot.
  fs::path other = dir / "precious";
  fs::create_directories(other);
  std::ofstream(other / "keep") << "data\n";
  EXPECT_EQ(runTo("snapshot --force --output " + other.string() + " --root " + tree.string() + " 2>&1", out),
            2)
      << out;
  EXPECT_NE(out.find("not a railkit snapshot"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(other / "keep"));
  // --output x.tar.gz naming a directory is refused even with --force.
  EXPECT_EQ(
      runTo("snapshot --force --output " + dir.string() + "/d.tar.gz --root " + tree.string() + " 2>&1", out),
      0)
      << out;
  fs::create_directories(dir / "isdir.tar.gz");
  EXPECT_EQ(runTo("snapshot --force --output " + (dir / "isdir.tar.gz").string() + " --root " +
                      tree.string() + " 2>&1",
                  out),
            2)
      << out;

  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    EXPECT_NE(name.front(), '.') << "temporary left beside the output: " << name;
  }
  fs::remove_all(dir);
  fs::remove_all(tree);
}

// The source of a snapshot may itself be a hostile tree: the copy never
// writes outside its output, whatever links the source holds.
TEST(SnapshotOutput, HostileSourceTreeStaysInside) {
  fs::path tree = tempPath("hostile-src");
  railkit::testing::buildHealthyDgxH100(tree);
  fs::path canary = tempPath("hostile-canary");
  fs::create_directories(canary);
  // Links out of the tree in places the readers list and follow.
  fs::create_symlink(canary, tree / "dev" / "infiniband" / "esc");
  fs::create_symlink(canary.string() + "/x", tree / "sys" / "class" / "net" / "esc0");
  // railkit/live.json is read from the source and written to the copy: a
  // link there made the copy write live.json into the link's target.
  fs::create_symlink(canary, tree / "railkit");
  fs::path out_dir = tempPath("hostile-out");
  std::string out;
  ASSERT_EQ(runTo("snapshot --output " + out_dir.string() + " --root " + tree.string() + " 2>&1", out), 0)
      << out;
  EXPECT_TRUE(fs::is_empty(canary)) << "snapshot wrote outside its output";
  EXPECT_TRUE(fs::is_symlink(out_dir / "dev" / "infiniband" / "esc"));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out_dir / "railkit" / "live.json")));
  fs::remove_all(out_dir);
  fs::remove_all(canary);
  fs::remove_all(tree);
}

// "-o DIR/" is the directory DIR, built beside it and renamed into place.
TEST(SnapshotOutput, TrailingSlash) {
  fs::path tree = tempPath("slash-tree");
  railkit::testing::buildHealthyDgxH100(tree);
  fs::path dir = tempPath("slash-out");
  std::string out;
  ASSERT_EQ(runTo("snapshot --output " + dir.string() + "/ --root " + tree.string() + " 2>&1", out), 0)
      << out;
  EXPECT_TRUE(fs::exists(dir / "railkit" / "live.json"));
  for (const auto& e : fs::directory_iterator(dir.parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".railkit-snapshot-slash-out.railkit-snap-"),
              std::string::npos);
  fs::remove_all(dir);
  fs::remove_all(tree);
}
