// Every exposure mode x launcher renders manifests that pass strict schema
// validation and lint with no error and no warning beyond the mode's nature.
#include <gtest/gtest.h>

#include "k8s/lint/lint.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

class K8sRenderMatrix : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(K8sRenderMatrix, LintsCleanAgainstSchemas) {
  RAILKIT_REQUIRE_SHARED();
  static auto schemas = SchemaSet::load((railkit::testing::sharedDir() / "schemas").string());
  ASSERT_TRUE(schemas) << schemas.error().message;
  auto [mode, launcher] = GetParam();
  Profile profile;
  profile.image = "registry.example.com/nccl:1";
  profile.mode = mode;
  profile.launcher = launcher;
  profile.fabric = std::string(mode) == "sriov" ? "roce" : "infiniband";
  profile.hcas = {"mlx5_0", "mlx5_1"};
  auto objects = renderProfile(profile);
  ASSERT_TRUE(objects) << objects.error().message;
  std::string yaml = toYaml(*objects);
  LintInput input;
  auto manifest = loadManifest(yaml, "rendered.yaml");
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_EQ((*manifest)->objects.size(), objects->size());
  input.manifests.push_back(std::move(*manifest));
  input.schemas = &*schemas;
  prepareLintInput(input);
  bool host_network_seen = false;
  for (const Finding& finding : runLint(input)) {
    if (finding.id == "host-network" && std::string(mode) == "host-network") {
      host_network_seen = true;
      continue;
    }
    EXPECT_EQ(finding.severity, Severity::kInfo)
        << finding.id << " " << finding.object << " " << finding.path << ": " << finding.message << "\n" << yaml;
  }
  EXPECT_EQ(host_network_seen, std::string(mode) == "host-network");
  // Minimal privilege and the worker essentials.
  EXPECT_EQ(yaml.find("privileged: true"), std::string::npos);
  EXPECT_NE(yaml.find("- \"IPC_LOCK\""), std::string::npos);
  EXPECT_NE(yaml.find("medium: \"Memory\""), std::string::npos);
  EXPECT_NE(yaml.find("pod-security.kubernetes.io/enforce: \"privileged\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllModesAndLaunchers, K8sRenderMatrix,
                         ::testing::Combine(::testing::ValuesIn(kModes), ::testing::ValuesIn(kLaunchers)));

TEST(K8sRender, ProfileErrors) {
  EXPECT_FALSE(parseProfile("image: x\nnodez: 2\n", "p.yaml"));
  auto bad_nodes = parseProfile("image: x\nnodes: -1\n", "p.yaml");
  ASSERT_FALSE(bad_nodes);
  EXPECT_NE(bad_nodes.error().message.find("p.yaml:2"), std::string::npos);
  Profile no_image;
  EXPECT_FALSE(renderProfile(no_image));
}

TEST(K8sRender, MpiLauncherSeparatesControlPlane) {
  Profile profile;
  profile.image = "img";
  auto objects = renderProfile(profile);
  ASSERT_TRUE(objects);
  std::string yaml = toYaml(*objects);
  for (const char* needle : {"btl self,tcp", "btl_tcp_if_include eth0", "pml ob1", "routed direct", "--bind-to none",
                             "-x NCCL_SOCKET_IFNAME", "getent hosts", "slotsPerWorker: 8"})
    EXPECT_NE(yaml.find(needle), std::string::npos) << needle;
}

TEST(K8sRender, NodePrepHasMemlock) {
  auto files = renderNodePrep(Profile{});
  ASSERT_GE(files.size(), 4u);
  EXPECT_NE(files[0].second.find("RLIMIT_MEMLOCK"), std::string::npos);
}

}  // namespace
}  // namespace railkit::k8s::render
