// The node-prep base-spec script against the real `ctr oci spec` (Debian's
// containerd package): the spec it writes is containerd's whole default with
// RLIMIT_MEMLOCK unlimited as its only rlimit. Skips where ctr is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "k8s/render/render.h"
#include "support/process.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

TEST(K8sNodePrepCtr, WholeDefaultSpecWithMemlock) {
  if (railkit::testing::runShell("command -v ctr").status != 0)
    GTEST_SKIP() << "ctr (Debian containerd) not installed";
  auto dir = railkit::testing::freshTestDir("railkit-node-prep-ctr");
  std::string script;
  for (auto& [name, text] : renderNodePrep(Profile{}))
    if (name == "containerd-base-spec.sh") script = text;
  std::ofstream(dir / "script.sh") << script;
  auto run = railkit::testing::runProcess(
      railkit::testing::ProcessSpec({"sh", (dir / "script.sh").string(), (dir / "spec.json").string()}));
  ASSERT_EQ(run.status, 0) << run.err;
  std::ifstream in(dir / "spec.json");
  auto spec = nlohmann::json::parse(in, nullptr, false);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(spec.is_discarded());
  EXPECT_FALSE(spec["mounts"].empty());
  EXPECT_FALSE(spec["linux"]["maskedPaths"].empty());
  EXPECT_FALSE(spec["linux"]["namespaces"].empty());
  EXPECT_FALSE(spec["process"]["capabilities"]["bounding"].empty());
  ASSERT_EQ(spec["process"]["rlimits"].size(), 1u);
  EXPECT_EQ(spec["process"]["rlimits"][0]["type"], "RLIMIT_MEMLOCK");
  EXPECT_EQ(spec["process"]["rlimits"][0]["hard"].get<uint64_t>(), UINT64_MAX);
}

}  // namespace
}  // namespace railkit::k8s::render
