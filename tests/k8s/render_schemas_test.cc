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

}  // namespace
}  // namespace railkit::k8s::render
