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
  ProcessResult env(const std::string& flags) {
    return runRailkit("env --root " + root_.string() + " " + flags);
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
  auto absent = runRailkit("env --root " + (dir_ / "nonexistent").string());
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
  auto run = runShell(script);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "=" + hostile + "|=mlx5_3:1|mlx5_3:1") << run.err;
}

// The example's mlx5_5 port is DOWN / Disabled: env leaves it out (NCCL and
// UCX would skip it) and says so, on stdout and stderr.
TEST_F(EnvCliTest, ExampleNodeExportsOnlyActivePorts) {
  auto run = runRailkit("env --root " + (sourceDir() / "examples" / "dgx-h100-8gpu").string());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(
      run.out.find("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_6:1,mlx5_7:1'\n"),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(
                "export UCX_NET_DEVICES='mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_6:1,mlx5_7:1'\n"),
            std::string::npos)
      << run.out;
  const std::string note = "note: skipped mlx5_5:1 (ib5), which is DOWN / Disabled (not ACTIVE / LinkUp)";
  EXPECT_NE(run.out.find("# " + note), std::string::npos) << run.out;
  EXPECT_NE(run.err.find(note), std::string::npos) << run.err;
  // Named explicitly, the DOWN port is missing: --check fails on it.
  auto named = runRailkit("env --root " + (sourceDir() / "examples" / "dgx-h100-8gpu").string() +
                          " --data-if ib4,ib5 --check");
  EXPECT_EQ(named.status, 1) << named.err;
  EXPECT_NE(named.err.find("missing: data interface ib5: port mlx5_5:1 is DOWN / Disabled"),
            std::string::npos)
      << named.err;
}

// env and doctor follow one rule: doctor, run in a pod whose environment is
// exactly what env printed, finds nothing wrong with NCCL_IB_HCA or
// UCX_NET_DEVICES. (Before, env listed the DOWN mlx5_5:1 and doctor warned
// nccl-ib-hca-invalid about it.)
TEST_F(EnvCliTest, DoctorFindsNothingInTheListsEnvWrote) {
  namespace fs = std::filesystem;
  fs::copy(sourceDir() / "examples" / "dgx-h100-8gpu", root_,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  // The pod's environment: the example's, with env's exports in place of its own.
  std::string script = "set -e; cd " + root_.string() + "; out=$(" + railkitBinary() +
                       " env --root .); eval \"$out\"; { tr '\\0' '\\n' < proc/self/environ | "
                       "grep -v -e '^NCCL_IB_HCA=' -e '^UCX_NET_DEVICES=' -e '^NCCL_SOCKET_IFNAME='; "
                       "printf 'NCCL_IB_HCA=%s\\nUCX_NET_DEVICES=%s\\nNCCL_SOCKET_IFNAME=%s\\n' "
                       "\"$NCCL_IB_HCA\" \"$UCX_NET_DEVICES\" \"$NCCL_SOCKET_IFNAME\"; } | tr '\\n' '\\0' > "
                       "environ.new; mv environ.new proc/self/environ; tr '\\0' '\\n' < proc/self/environ";
  auto exported = runShell(script);
  ASSERT_EQ(exported.status, 0) << exported.err;
  ASSERT_NE(
      exported.out.find("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_6:1,mlx5_7:1\n"),
      std::string::npos)
      << exported.out;
  ASSERT_NE(exported.out.find("UCX_NET_DEVICES=mlx5_0:1,"), std::string::npos) << exported.out;

  auto doctor = runRailkit("doctor --json --root " + root_.string());
  ASSERT_TRUE(doctor.status == 0 || doctor.status == 1) << doctor.err;
  auto j = nlohmann::json::parse(doctor.out);
  bool port_down = false;
  for (const auto& f : j["findings"]) {
    std::string id = f["id"];
    EXPECT_NE(id, "nccl-ib-hca-invalid") << f.dump();
    EXPECT_NE(id, "ucx-net-devices-invalid") << f.dump();
    EXPECT_NE(id, "nccl-socket-ifname-invalid") << f.dump();
    port_down = port_down || (id == "rdma-port-down" && f["subject"] == "mlx5_5:1");
  }
  // The port itself is still reported: env's choice hides nothing from doctor.
  EXPECT_TRUE(port_down) << doctor.out;
}

}  // namespace
}  // namespace railkit::testing
