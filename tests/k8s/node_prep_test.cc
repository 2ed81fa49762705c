// railkit render node-prep: a complete base runtime spec generated on the
// node from containerd's own default, wired to every runtime handler in both
// config versions, and RDMA exclusive mode through the module option. The
// script runs here against a stand-in `ctr` (node_prep_ctr_test runs it
// against the real one).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "k8s/render/render.h"
#include "support/process.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

std::map<std::string, std::string> nodePrepFiles(const std::string& mode) {
  Profile profile;
  profile.mode = mode;
  std::map<std::string, std::string> files;
  for (auto& [name, text] : renderNodePrep(profile)) files[name] = text;
  return files;
}

bool hasLineStartingWith(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(K8sNodePrep, ContainerdConfigV2AndV3WireRuncAndNvidia) {
  auto files = nodePrepFiles("rdma-shared");
  const std::string& v2 = files["containerd-config-v2.toml"];
  const std::string& v3 = files["containerd-config-v3.toml"];
  EXPECT_TRUE(hasLineStartingWith(v2, "version = 2"));
  EXPECT_TRUE(hasLineStartingWith(v3, "version = 3"));
  for (const char* handler : {"runc", "nvidia"}) {
    EXPECT_NE(v2.find(std::string("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.") + handler +
                      "]\n  base_runtime_spec = \"/etc/containerd/cri-base.json\""),
              std::string::npos)
        << handler << "\n"
        << v2;
    EXPECT_NE(v3.find(std::string("[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.") + handler +
                      "]\n  base_runtime_spec = '/etc/containerd/cri-base.json'"),
              std::string::npos)
        << handler << "\n"
        << v3;
  }
  EXPECT_EQ(v3.find("io.containerd.grpc.v1.cri"), std::string::npos);
}

TEST(K8sNodePrep, RdmaExclusiveThroughTheModuleOptionNeverRdmaSystemSet) {
  for (const char* mode : modeNames()) {
    auto files = nodePrepFiles(mode);
    const std::string m = mode;
    // Only the modes that give a pod its own device; the shared device plugin exits in exclusive
    // mode (Mellanox/k8s-rdma-shared-dev-plugin#87).
    if (m == "rdma-shared" || m == "host-network" || m == "gke-tcpxo") {
      EXPECT_EQ(files.count("ib_core-netns-exclusive.conf"), 0u) << mode;
      continue;
    }
    ASSERT_EQ(files.count("ib_core-netns-exclusive.conf"), 1u) << mode;
    EXPECT_TRUE(hasLineStartingWith(files["ib_core-netns-exclusive.conf"], "options ib_core netns_mode=0"));
    for (const auto& [name, text] : files) EXPECT_FALSE(hasLineStartingWith(text, "rdma ")) << name;
    if (std::string(mode) == "sriov") {
      EXPECT_NE(files["ib_core-netns-exclusive.conf"].find("SriovNetworkPoolConfig"), std::string::npos);
    }
  }
}

class K8sNodePrepScript : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = railkit::testing::freshTestDir("railkit-node-prep"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes a stand-in ctr printing `spec` and runs the rendered script with it.
  int runWithCtr(const std::string& spec) {
    std::ofstream(dir_ / "spec.in") << spec;
    std::ofstream(dir_ / "ctr") << "#!/bin/sh\n[ \"$1 $2\" = 'oci spec' ] || exit 9\ncat '"
                                << (dir_ / "spec.in").string() << "'\n";
    std::filesystem::permissions(dir_ / "ctr", std::filesystem::perms::owner_all);
    std::ofstream(dir_ / "script.sh") << nodePrepFiles("rdma-shared")["containerd-base-spec.sh"];
    return railkit::testing::runProcess(railkit::testing::ProcessSpec({"sh", (dir_ / "script.sh").string(),
                                                                       (dir_ / "out.json").string()})
                                            .withEnv("PATH", dir_.string() + ":/usr/bin:/bin"))
        .status;
  }

  nlohmann::json output() {
    std::ifstream in(dir_ / "out.json");
    return nlohmann::json::parse(in, nullptr, false);
  }

  std::filesystem::path dir_;
};

// The shape `ctr oci spec` prints: indented, rlimits inside process.
TEST_F(K8sNodePrepScript, ReplacesTheDefaultRlimitsKeepingTheWholeSpec) {
  nlohmann::json spec = {{"ociVersion", "1.0.2-dev"},
                         {"process",
                          {{"cwd", "/"},
                           {"capabilities", {{"bounding", {"CAP_CHOWN"}}}},
                           {"rlimits", {{{"type", "RLIMIT_NOFILE"}, {"hard", 1024}, {"soft", 1024}}}},
                           {"noNewPrivileges", true}}},
                         {"mounts", {{{"destination", "/proc"}, {"type", "proc"}, {"source", "proc"}}}},
                         {"linux", {{"maskedPaths", {"/proc/kcore"}}}}};
  ASSERT_EQ(runWithCtr(spec.dump(4)), 0);
  nlohmann::json out = output();
  ASSERT_FALSE(out.is_discarded());
  ASSERT_EQ(out["process"]["rlimits"].size(), 1u);
  EXPECT_EQ(out["process"]["rlimits"][0]["type"], "RLIMIT_MEMLOCK");
  EXPECT_EQ(out["process"]["rlimits"][0]["hard"].get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(out["process"]["rlimits"][0]["soft"].get<uint64_t>(), UINT64_MAX);
  spec["process"].erase("rlimits");
  out["process"].erase("rlimits");
  EXPECT_EQ(out, spec);  // everything else as containerd made it
}

TEST_F(K8sNodePrepScript, OneLineAndMissingRlimits) {
  ASSERT_EQ(runWithCtr(R"({"process": {"rlimits": [], "cwd": "/"}, "mounts": [{"destination": "/dev"}]})"),
            0);
  EXPECT_EQ(output()["process"]["rlimits"][0]["type"], "RLIMIT_MEMLOCK");
  ASSERT_EQ(runWithCtr("{\n    \"process\": {\n        \"cwd\": \"/\"\n    },\n    \"mounts\": []\n}\n"), 0);
  EXPECT_EQ(output()["process"]["rlimits"][0]["type"], "RLIMIT_MEMLOCK");
}

TEST_F(K8sNodePrepScript, RefusesOutputItCannotEdit) {
  std::filesystem::remove(dir_ / "out.json");
  EXPECT_NE(runWithCtr("not a spec\n"), 0);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.json"));
}

}  // namespace
}  // namespace railkit::k8s::render
