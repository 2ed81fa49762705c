#pragma once
// Runs lint over inline manifests for rule tests.
#include <set>
#include <string>
#include <vector>

#include "k8s/lint/lint.h"

namespace railkit::k8s::testing {

inline std::vector<Finding> lintText(const std::string& text, const SchemaSet* schemas = nullptr) {
  LintInput input;
  auto manifest = loadManifest(text, "t.yaml");
  if (!manifest) {
    ADD_FAILURE() << manifest.error().message;
    return {};
  }
  input.manifests.push_back(std::move(*manifest));
  input.schemas = schemas;
  prepareLintInput(input);
  return runLint(input);
}

// Ids of findings at warning or error severity.
inline std::multiset<std::string> problemIds(const std::vector<Finding>& findings) {
  std::multiset<std::string> ids;
  for (const Finding& finding : findings)
    if (finding.severity != Severity::kInfo) ids.insert(finding.id);
  return ids;
}

}  // namespace railkit::k8s::testing
