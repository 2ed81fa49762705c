// Every exposure mode x launcher renders manifests that pass strict schema
// validation and lint with no error and no warning beyond the mode's nature.
#include "k8s/render/render.h"

#include <gtest/gtest.h>

#include "k8s/lint/lint.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

class K8sRenderMatrix
    : public ::testing::TestWithParam<std::tuple<const char*, const char*, const char*, const char*>> {};

constexpr const char* kFabrics[] = {"infiniband", "roce"};
constexpr const char* kTools[] = {"nccl-tests", "railkit", "perftest", "validate"};

TEST_P(K8sRenderMatrix, LintsCleanAgainstSchemas) {
  RAILKIT_REQUIRE_SHARED();
  static auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  ASSERT_TRUE(schemas) << schemas.error().message;
  auto [mode, launcher, fabric, tool] = GetParam();
  Profile profile;
  profile.image = "registry.example.com/nccl:1";
  profile.mode = mode;
  profile.launcher = launcher;
  profile.fabric = fabric;
  profile.test.tool = tool;
  profile.hcas = {"mlx5_0", "mlx5_1"};
  profile.job_token = "fixed-job-token-for-tests-0123456789";
  profile.ssh_private_key = "-----BEGIN EC PRIVATE KEY-----\nfixed\n-----END EC PRIVATE KEY-----\n";
  profile.ssh_public_key = "ecdsa-sha2-nistp256 AAAAfixed railkit-test\n";
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
        << finding.id << " " << finding.object << " " << finding.path << ": " << finding.message << "\n"
        << yaml;
  }
  EXPECT_EQ(host_network_seen, std::string(mode) == "host-network");
  // Minimal privilege and the worker essentials.
  EXPECT_EQ(yaml.find("privileged: true"), std::string::npos);
  EXPECT_NE(yaml.find("- \"IPC_LOCK\""), std::string::npos);
  EXPECT_NE(yaml.find("medium: \"Memory\""), std::string::npos);
  EXPECT_NE(yaml.find("pod-security.kubernetes.io/enforce: \"privileged\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllModesLaunchersFabricsTools, K8sRenderMatrix,
                         ::testing::Combine(::testing::ValuesIn(modeNames()), ::testing::ValuesIn(kLaunchers),
                                            ::testing::ValuesIn(kFabrics), ::testing::ValuesIn(kTools)));

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
  for (const char* needle :
       {"btl self,tcp", "btl_tcp_if_include eth0", "pml ob1", "routed direct", "--bind-to none",
        "-x NCCL_SOCKET_IFNAME", "railkit wait-dns --hostfile /etc/mpi/hostfile", "slotsPerWorker: 8"})
    EXPECT_NE(yaml.find(needle), std::string::npos) << needle;
}

// The env-bootstrap launchers get one Secret per job with the token, and the
// workers read it through secretKeyRef; the token never appears in the pod spec.
TEST(K8sRender, JobTokenSecretForEnvBootstrapLaunchers) {
  for (const char* launcher : kLaunchers) {
    Profile profile;
    profile.image = "img";
    profile.name = "nccl-check";
    profile.launcher = launcher;
    profile.test.tool = "railkit";  // no SSH key Secret beside the token's
    profile.job_token = "fixed-job-token-for-tests-0123456789";
    auto objects = renderProfile(profile);
    ASSERT_TRUE(objects) << objects.error().message;
    int secrets = 0;
    std::size_t token_mentions = 0;
    for (const auto& object : *objects) {
      std::string yaml = toYaml(object);
      for (auto at = yaml.find(profile.job_token); at != std::string::npos;
           at = yaml.find(profile.job_token, at + 1)) {
        ++token_mentions;
      }
      if (object.object["kind"] != "Secret") continue;
      ++secrets;
      EXPECT_EQ(object.object["metadata"]["name"], "nccl-check-job-token");
      EXPECT_EQ(object.object["stringData"]["token"], profile.job_token);
    }
    std::string yaml = toYaml(*objects);
    bool env = usesEnvBootstrap(launcher);
    EXPECT_EQ(secrets, env ? 1 : 0) << launcher;
    EXPECT_EQ(token_mentions, env ? 1u : 0u) << launcher;  // only in the Secret
    EXPECT_EQ(yaml.find("RAILKIT_JOB_TOKEN") != std::string::npos, env) << launcher;
    EXPECT_EQ(yaml.find("secretKeyRef") != std::string::npos, env) << launcher;
    // Same profile and token, same text.
    EXPECT_EQ(toYaml(*renderProfile(profile)), yaml);
  }
  Profile missing;
  missing.image = "img";
  missing.launcher = "indexed-job";
  EXPECT_FALSE(renderProfile(missing));  // no token: refused, never a default secret
  missing.job_token = "short";
  EXPECT_FALSE(renderProfile(missing));
}

TEST(K8sRender, NodePrepHasMemlock) {
  auto files = renderNodePrep(Profile{});
  ASSERT_GE(files.size(), 4u);
  EXPECT_NE(files[0].second.find("RLIMIT_MEMLOCK"), std::string::npos);
}

}  // namespace
}  // namespace railkit::k8s::render
