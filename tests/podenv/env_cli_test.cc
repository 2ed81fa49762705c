// `railkit env` end to end: the exit status the rendered pods rely on
// (`railkit_env=$(railkit env ... --check) || exit 1`), the JSON, and that a
// shell's eval of the output sets exactly the computed values, even for an
// interface name chosen to break out of quoting.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "podenv/pod_fixtures.h"

namespace railkit::testing {
namespace {

class EnvCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshTestDir("railkit-env-cli");
    root_ = dir_ / "root";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  CliRun env(const std::string& flags) {
    return runRailkit("env --root " + root_.string() + " " + flags, dir_);
  }

  std::filesystem::path dir_, root_;
};

TEST_F(EnvCliTest, CheckFailsNamingEachMissingThingAndExportsNothing) {
  NodeBuilder::healthyDgxH100().write(root_);
  auto run = env("--data-if ib0,net9 --hca mlx5_0,mlx5_42 --check");
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_NE(run.err.find("missing: data interface net9"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("missing: RDMA device mlx5_42"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("export"), std::string::npos) << run.out;
  // Without --check the same is a note and the settings for what exists print.
  auto lenient = env("--data-if ib0,net9");
  EXPECT_EQ(lenient.status, 0) << lenient.err;
  EXPECT_NE(lenient.out.find("export NCCL_IB_HCA='=mlx5_0:1'\n"), std::string::npos) << lenient.out;
  EXPECT_NE(lenient.err.find("missing: data interface net9"), std::string::npos);
}

TEST_F(EnvCliTest, CheckPassesOnAHealthyPod) {
  NodeBuilder::healthyDgxH100().write(root_);
  auto run = env("--ctrl-if eth0 --data-if ib0,ib1 --check");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("export NCCL_SOCKET_IFNAME='=eth0'\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("export UCX_NET_DEVICES='mlx5_0:1,mlx5_1:1'\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("NCCL_IB_GID_INDEX"), std::string::npos) << run.out;
}

TEST_F(EnvCliTest, JsonShape) {
  sriovVfPod().write(root_);
  writeAddresses(root_, R"({"net1": ["10.10.5.7/24"]})");
  auto run = env("--data-if net1 --check --json");
  ASSERT_EQ(run.status, 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  for (const char* key :
       {"root", "control_interface", "control_source", "exports", "ports", "notes", "missing", "ok"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["exports"]["NCCL_IB_HCA"], "=mlx5_5:1");
  EXPECT_EQ(j["exports"]["NCCL_IB_GID_INDEX"], "3");
  EXPECT_EQ(j["ports"][0]["netdev"], "net1");
  EXPECT_EQ(j["ports"][0]["link_layer"], "Ethernet");
  EXPECT_EQ(j["ports"][0]["gid_index"], 3);
  EXPECT_EQ(j["ok"], true);
  auto failed = env("--data-if net1,net2 --check --json");
  EXPECT_EQ(failed.status, 1);
  auto f = nlohmann::json::parse(failed.out);
  EXPECT_EQ(f["ok"], false);
  EXPECT_EQ(f["missing"][0]["name"], "net2");
}

TEST_F(EnvCliTest, BadInputIsOneLineAndExit2) {
  NodeBuilder::healthyDgxH100().write(root_);
  for (const char* flags : {"--data-if ''", "--data-if 'net1,a/b'", "--ctrl-if 'a b'", "--hca mlx5_0:x",
                            "--hca 'mlx5_0;id'", "--bogus"}) {
    auto run = env(flags);
    EXPECT_EQ(run.status, 2) << flags << ": " << run.err;
    EXPECT_TRUE(run.oneErrorLine()) << flags << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << flags;
  }
  auto absent = runRailkit("env --root " + (dir_ / "nonexistent").string(), dir_);
  EXPECT_EQ(absent.status, 2);
  EXPECT_TRUE(absent.oneErrorLine()) << absent.err;
}

TEST_F(EnvCliTest, EvalSetsExactlyTheValuesEvenForAHostileInterfaceName) {
  // A name the kernel accepts (no '/', ':' or white space) that a careless
  // script would run: it must reach NCCL as text, never run.
  const std::string hostile = "e'$(id>x)";
  auto node = NodeBuilder::healthyDgxH100();
  node.spec().netdevs[1].name = hostile;  // the control interface, was eth0
  node.write(root_);
  writeDefaultRoute(root_, hostile);
  std::string script = "cd " + dir_.string() + " && out=$(" + railkitBinary() + " env --root " +
                       root_.string() +
                       " --data-if ib3) || exit 9; eval \"$out\"; printf '%s|%s|%s' \"$NCCL_SOCKET_IFNAME\" "
                       "\"$NCCL_IB_HCA\" \"$UCX_NET_DEVICES\"; [ ! -e x ] || echo ' RAN'";
  auto run = runShell(script, dir_);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "=" + hostile + "|=mlx5_3:1|mlx5_3:1") << run.err;
}

TEST_F(EnvCliTest, ExampleNodePrintsEveryRail) {
  auto run = runRailkit("env --root " + (sourceDir() / "examples" / "dgx-h100-8gpu").string(), dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(
      run.out.find("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,"
                   "mlx5_7:1'\n"),
      std::string::npos)
      << run.out;
  // mlx5_5's port is DOWN in the example: said, on stdout and stderr.
  EXPECT_NE(run.out.find("# note: mlx5_5:1 (ib5) is DOWN"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("note: mlx5_5:1 (ib5) is DOWN"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace railkit::testing
