// The custom resources a render emits are checked against their CRDs (the
// upstream copies in ../shared/schemas and railkit's own schemas/), so a
// broken pool is a schema error, not an object lint waves through.
#include <gtest/gtest.h>

#include "k8s/lint/lint.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "lint_helpers.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

Profile profileFor(const std::string& mode) {
  Profile profile;
  profile.image = "registry.example.com/nccl:1";
  profile.name = "job";
  profile.mode = mode;
  profile.fabric = "roce";
  profile.job_token = "fixed-job-token-for-tests-0123456789";
  profile.data_interfaces = {"ens1f0", "ens2f0"};
  return profile;
}

std::vector<std::string> schemaErrors(const std::vector<RenderedObject>& objects) {
  static auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  EXPECT_TRUE(schemas) << schemas.error().message;
  std::vector<std::string> out;
  if (!schemas) return out;
  for (const Finding& finding : testing::lintText(toYaml(objects), &*schemas))
    if (finding.id == "schema" && finding.severity == Severity::kError)
      out.push_back(finding.object + " " + finding.path + ": " + finding.message);
  return out;
}

// The pools a render emits are checked against their CRDs: an IPPool
// without its subnet or block size, or an RDMA mode the SR-IOV operator
// does not know, is a schema error, not an object lint waves through.
TEST(K8sRenderModes, RenderedPoolsAreSchemaChecked) {
  RAILKIT_REQUIRE_SHARED();
  Profile shared = profileFor("rdma-shared");
  auto pools = renderProfile(shared);
  ASSERT_TRUE(pools) << pools.error().message;
  ASSERT_TRUE(schemaErrors(*pools).empty()) << schemaErrors(*pools).front();
  for (const char* field : {"subnet", "perNodeBlockSize"}) {
    auto broken = *pools;
    int dropped = 0;
    for (auto& object : broken)
      if (object.object["kind"] == "IPPool") dropped += object.object["spec"].erase(field);
    ASSERT_EQ(dropped, 2) << field;
    auto errors = schemaErrors(broken);
    ASSERT_EQ(errors.size(), 2u) << field;
    for (const std::string& error : errors) {
      EXPECT_NE(error.find("IPPool/"), std::string::npos) << error;
      EXPECT_NE(error.find(field), std::string::npos) << error;
    }
  }
  Profile sriov = profileFor("sriov");
  auto rendered = renderProfile(sriov);
  ASSERT_TRUE(rendered) << rendered.error().message;
  ASSERT_TRUE(schemaErrors(*rendered).empty()) << schemaErrors(*rendered).front();
  for (const char* mode : {"exclusiv", "Exclusive", "netns"}) {
    auto broken = *rendered;
    for (auto& object : broken)
      if (object.object["kind"] == "SriovNetworkPoolConfig") object.object["spec"]["rdmaMode"] = mode;
    auto errors = schemaErrors(broken);
    ASSERT_EQ(errors.size(), 1u) << mode;
    EXPECT_NE(errors[0].find("SriovNetworkPoolConfig/"), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("spec.rdmaMode"), std::string::npos) << errors[0];
  }
}

// The Volcano Job of every mode is checked against Volcano's Job CRD
// (batch.volcano.sh_jobs.yaml): a policy event Volcano does not know, or a
// minAvailable that is not a number, is a schema error.
TEST(K8sRenderModes, VolcanoJobIsSchemaChecked) {
  RAILKIT_REQUIRE_SHARED();
  for (const char* mode : modeNames()) {
    Profile profile = profileFor(mode);
    profile.launcher = "volcano-job";
    profile.ssh_private_key = "(private key)\n";  // nccl-tests: sshd in every pod
    profile.ssh_public_key = "(public key)\n";
    auto rendered = renderProfile(profile);
    ASSERT_TRUE(rendered) << rendered.error().message;
    auto errors = schemaErrors(*rendered);
    EXPECT_TRUE(errors.empty()) << mode << ": " << errors.front();
  }
  Profile profile = profileFor("sriov");
  profile.launcher = "volcano-job";
  profile.test.tool = "railkit";
  auto rendered = renderProfile(profile);
  ASSERT_TRUE(rendered) << rendered.error().message;
  for (auto& object : *rendered)
    if (object.object["kind"] == "Job") {
      object.object["spec"]["policies"][0]["event"] = "PodFail";
      object.object["spec"]["minAvailable"] = "two";
    }
  auto errors = schemaErrors(*rendered);
  ASSERT_EQ(errors.size(), 2u);
  std::string all = errors[0] + "\n" + errors[1];
  EXPECT_NE(all.find("Job/job spec.policies[0].event"), std::string::npos) << all;
  EXPECT_NE(all.find("Job/job spec.minAvailable"), std::string::npos) << all;
}

}  // namespace
}  // namespace railkit::k8s::render
