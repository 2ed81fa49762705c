// `test: validate` renders railkit validate the way railkit bench is
// rendered (docs/render.md "test: validate"): one rank per node, the env
// bootstrap or mpirun, the profile's counts as phase 1's expectations.
#include <gtest/gtest.h>

#include "k8s/lint/lint.h"
#include "k8s/render/profile.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "render_test_profiles.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

using testing::validateTestProfile;

std::string yamlOf(const Profile& profile) {
  auto objects = renderProfile(profile);
  EXPECT_TRUE(objects) << objects.error().message;
  return objects ? toYaml(*objects) : std::string();
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(RenderValidate, IndexedPodsExecValidateWithTheProfilesCounts) {
  for (const char* launcher : {"indexed-job", "jobset", "trainjob"}) {
    std::string yaml = yamlOf(validateTestProfile("sriov", launcher));
    // exec: the pod's exit status is validate's (rank 0's is the verdict).
    EXPECT_TRUE(has(yaml,
                    "exec railkit validate --backend nccl --data-if =net1,net2,net3 --ctrl-if =eth0"
                    " --expect-nics 3 --expect-gpus 4\n"))
        << launcher << "\n"
        << yaml;
    EXPECT_FALSE(has(yaml, "--nproc-per-node")) << launcher;  // validate refuses it: one rank per node
    EXPECT_FALSE(has(yaml, "--check")) << launcher;  // phase 1 names a missing device, in rank 0's verdict
    EXPECT_TRUE(has(yaml, "RAILKIT_JOB_TOKEN")) << launcher;
    EXPECT_TRUE(has(yaml, "fabric-check-job-token")) << launcher;
    EXPECT_FALSE(has(yaml.substr(yaml.find("RAILKIT_JOB_TOKEN")), "ens1f0"))
        << launcher;                              // the job, not the networks
    EXPECT_FALSE(has(yaml, "sshd")) << launcher;  // the env bootstrap needs no ssh
  }
}

TEST(RenderValidate, MpiJobRunsOneRankPerNode) {
  std::string yaml = yamlOf(validateTestProfile("rdma-shared", "mpijob"));
  EXPECT_TRUE(has(yaml, "-np 2 --map-by ppr:1:node")) << yaml;
  EXPECT_TRUE(has(yaml, "slotsPerWorker: 4")) << yaml;  // = GPUs (lint); ppr:1:node runs one rank each
  EXPECT_TRUE(has(yaml,
                  "exec railkit validate --backend nccl --data-if =net1,net2,net3 --ctrl-if =eth0"
                  " --expect-nics 3 --expect-gpus 4'"))
      << yaml;
  EXPECT_FALSE(has(yaml, "--nproc-per-node"));
}

TEST(RenderValidate, SizesAndOpsOnlyWhenTheProfileGivesThem) {
  Profile profile = validateTestProfile("sriov", "indexed-job");
  profile.test.op = "all_reduce,all_gather";
  profile.test.min_bytes = "1M";
  profile.test.max_bytes = "16M";
  profile.test.backend = "tcp";
  std::string yaml = yamlOf(profile);
  EXPECT_TRUE(has(yaml, "--backend tcp")) << yaml;
  EXPECT_TRUE(has(yaml, "--expect-gpus 4 --ops all_reduce,all_gather -b 1M -e 16M\n")) << yaml;
  profile.test.op = "all_reduce, pairs";
  EXPECT_FALSE(renderProfile(profile));
  profile.test.op = "p2p";  // bench's, not a phase-4 collective
  EXPECT_FALSE(renderProfile(profile));
}

TEST(RenderValidate, NoGpuNodeRequestsNoGpu) {
  Profile profile = validateTestProfile("rdma-shared", "jobset");
  profile.gpus_per_node = 0;
  std::string yaml = yamlOf(profile);
  EXPECT_TRUE(has(yaml, "--expect-gpus 0")) << yaml;
  EXPECT_FALSE(has(yaml, "nvidia.com/gpu")) << yaml;
  // Every other test runs one rank per GPU: 0 GPUs is refused there.
  profile.test.tool = "railkit";
  EXPECT_FALSE(renderProfile(profile));
}

// The matrix in render_test.cc lints every mode x launcher with 8 GPUs; a
// node without GPUs (no nvidia.com/gpu, one MPI slot) must lint clean too.
TEST(RenderValidate, NoGpuRendersLintClean) {
  RAILKIT_REQUIRE_SHARED();
  static auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  ASSERT_TRUE(schemas) << schemas.error().message;
  for (const char* mode : modeNames())
    for (const char* launcher : kLaunchers) {
      Profile profile = validateTestProfile(mode, launcher);
      profile.gpus_per_node = 0;
      std::string yaml = yamlOf(profile);
      LintInput input;
      auto manifest = loadManifest(yaml, "rendered.yaml");
      ASSERT_TRUE(manifest) << manifest.error().message;
      input.manifests.push_back(std::move(*manifest));
      input.schemas = &*schemas;
      prepareLintInput(input);
      for (const Finding& finding : runLint(input)) {
        if (finding.id == "host-network" && std::string(mode) == "host-network") continue;  // by design
        EXPECT_EQ(finding.severity, Severity::kInfo) << mode << " " << launcher << ": " << finding.id << " "
                                                     << finding.path << ": " << finding.message;
      }
    }
}

TEST(RenderValidate, GkeTcpxoExpectsNoRdmaPort) {
  std::string yaml = yamlOf(validateTestProfile("gke-tcpxo", "jobset"));
  EXPECT_TRUE(has(yaml, "exec railkit validate --backend nccl")) << yaml;
  EXPECT_FALSE(has(yaml, "--expect-nics")) << yaml;
  EXPECT_TRUE(has(yaml, "--expect-gpus 4")) << yaml;
}

TEST(RenderValidate, ProfileSpellings) {
  auto bare = parseProfile("image: x\ngpusPerNode: 0\ntest: validate\n", "p.yaml");
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare->test.tool, "validate");
  EXPECT_EQ(bare->gpus_per_node, 0);
  EXPECT_TRUE(renderProfile(*bare)) << "gpusPerNode 0 with validate";
  auto mapped = parseProfile("image: x\ntest:\n  tool: validate\n  op: all_gather\n", "p.yaml");
  ASSERT_TRUE(mapped) << mapped.error().message;
  EXPECT_EQ(mapped->test.tool, "validate");
  // The benchmarks keep their sizes when the profile says none.
  Profile bench = validateTestProfile("sriov", "indexed-job");
  bench.test.tool = "railkit";
  EXPECT_TRUE(has(yamlOf(bench), "-b 8 -e 8G"));
  EXPECT_FALSE(parseProfile("image: x\ngpusPerNode: -1\n", "p.yaml"));
}

TEST(RenderValidate, SlowFractionReachesThePairsPhase) {
  Profile profile = validateTestProfile("sriov", "jobset");
  EXPECT_FALSE(has(yamlOf(profile), "--slow-fraction"));  // validate's own default
  profile.test.slow_fraction = "0.25";
  EXPECT_TRUE(has(yamlOf(profile), " --slow-fraction 0.25")) << yamlOf(profile);
  for (const char* bad : {"0", "1", "-0.5", "x", "0.2; reboot"}) {
    profile.test.slow_fraction = bad;
    auto objects = renderProfile(profile);
    ASSERT_FALSE(objects) << bad;
    EXPECT_NE(objects.error().message.find("slowFraction"), std::string::npos) << objects.error().message;
  }
  profile.test.slow_fraction = "0.5";
  profile.test.tool = "railkit";
  auto bench = renderProfile(profile);
  ASSERT_FALSE(bench);
  EXPECT_NE(bench.error().message.find("goes with test.tool validate"), std::string::npos)
      << bench.error().message;
}

}  // namespace
}  // namespace railkit::k8s::render
