// The 64 real manifests of ../shared/data/manifests: every file reads without
// a crash, and the mistakes INDEX.md lists are found.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "k8s/lint/lint.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::k8s {
namespace {

namespace fs = std::filesystem;

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(K8sManifestsCorpus, AllFilesReadAndIndexMistakesFound) {
  RAILKIT_REQUIRE_SHARED();
  fs::path dir = railkit::testing::sharedDir() / "data" / "manifests";
  auto schemas = SchemaSet::load((railkit::testing::sharedDir() / "schemas").string());
  ASSERT_TRUE(schemas) << schemas.error().message;
  LintInput input;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  ASSERT_EQ(files.size(), 64u);
  for (const fs::path& file : files) {
    auto manifest = loadManifest(readAll(file), file.filename().string());
    ASSERT_TRUE(manifest) << manifest.error().message;
    EXPECT_FALSE((*manifest)->objects.empty()) << file;
    input.manifests.push_back(std::move(*manifest));
  }
  input.schemas = &*schemas;
  prepareLintInput(input);
  auto findings = runLint(input);

  std::map<std::string, std::multiset<std::string>> errors_by_file;
  for (const Finding& finding : findings) {
    EXPECT_FALSE(finding.id.empty());
    if (finding.severity != Severity::kInfo) {
      EXPECT_FALSE(finding.object.empty()) << finding.message;
      EXPECT_TRUE(finding.line.has_value());
    }
    if (finding.severity == Severity::kError) errors_by_file[finding.file.substr(0, 3)].insert(finding.id);
  }
  // The MISTAKE notes of INDEX.md, by file number and the rule that names them.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"013", "schema"},                  // spec.nodeSelector required
      {"014", "cni-config-invalid-json"}, // trailing comma in ipam
      {"025", "schema"},                  // nicSelector.pfName
      {"026", "schema"},                  // metaPluginsConfig
      {"028", "unexpanded-placeholder"},  // ${VF_NUM}, ${LINK_TYPE}
      {"028", "schema"},                  // string where integer / enum
      {"029", "schema"},                  // sriov.enableRdma
      {"030", "schema"},                  // sriov.matchMasterSubnet
      {"053", "yaml-duplicate-key"},      // resources twice
      {"054", "unexpanded-placeholder"},  // __NUM_NODES__
      {"054", "yaml-duplicate-key"},      // restartPolicy twice
      {"057", "yaml-duplicate-key"},      // resources twice
      {"063", "schema"},                  // mlPolicy.torch.numProcPerNode
  };
  for (const auto& [file, id] : expected)
    EXPECT_GE(errors_by_file[file].count(id), 1u) << file << " should have " << id;
  // No error elsewhere: the other files are correct platform examples (the
  // EKS EFA, GKE and CoreWeave jobs without IPC_LOCK rely on the platform's
  // unlimited memlock; ipc-lock-missing is info there).
  std::set<std::string> mistaken;
  for (const auto& [file, id] : expected) mistaken.insert(file);
  for (const auto& [file, ids] : errors_by_file)
    if (!mistaken.count(file))
      for (const std::string& id : ids) ADD_FAILURE() << file << " has an unexpected error: " << id;
  // Files the index calls schema-clean stay free of schema errors (no false positives).
  for (const char* clean : {"001", "005", "009", "033", "037", "047", "064"})
    EXPECT_EQ(errors_by_file[clean].count("schema"), 0u) << clean;
}

}  // namespace
}  // namespace railkit::k8s
