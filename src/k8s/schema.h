#pragma once
// Schema validation of manifest objects against the Kubernetes OpenAPI v3
// documents and CRDs in a directory (the layout users get from the
// kubernetes repository's api/openapi-spec/v3 and the operators' CRD
// folders). Checking is structural and strict like `kubectl
// --validate=strict`: unknown fields, missing required fields, wrong types
// and enum values are errors. `$ref`s resolve within their document.
//
// OpenAPI documents are large (up to ~3 MB for core/v1), so a SchemaSet only
// indexes file names when loaded and parses a group/version's document the
// first time an object of that group/version is checked.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "k8s/manifest.h"

namespace railkit::k8s {

struct SchemaError {
  std::string path;
  long line = 0;
  std::string message;
};

class SchemaSet {
 public:
  // Indexes `dir` (recursively): *_openapi.json and CRD *.yaml/*.yml files.
  static Result<SchemaSet> load(const std::string& dir);
  // Several directories (upstream copies, then railkit's own schemas/): where
  // two define the same group/version or kind, the first directory wins.
  static Result<SchemaSet> load(const std::vector<std::string>& dirs);
  // Builds a set from in-memory texts (tests, fuzzing): OpenAPI document
  // for one group/version ("v1", "apps/v1"), and CRD YAML texts.
  static Result<SchemaSet> fromTexts(const std::map<std::string, std::string>& openapi_by_gv,
                                     const std::vector<std::string>& crd_texts);

  // Errors of `object`; nullopt when no schema covers its apiVersion/kind.
  // Non-const: loads documents on demand. `unevaluated_rules`, when given,
  // receives the object's CEL rules railkit cannot evaluate (cel_rules.h).
  std::optional<std::vector<SchemaError>> validate(const Object& object,
                                                   std::vector<std::string>* unevaluated_rules = nullptr);

  size_t crdCount() const { return crds_.size(); }

 private:
  struct Document {
    std::string file;  // empty when built from text
    std::shared_ptr<nlohmann::json> json;
  };
  Status addCrd(const YamlNode& crd);
  Status addDirectory(const std::string& dir);
  const nlohmann::json* openapiDocument(const std::string& group_version);

  std::map<std::string, Document> openapi_;  // group/version -> document
  // "group/version/Kind" -> openAPIV3Schema
  std::map<std::string, std::shared_ptr<nlohmann::json>> crds_;
};

// Converts a YAML node to JSON with YAML 1.2 core-schema typing of plain scalars.
nlohmann::json yamlToJson(const YamlNode& node, int depth = 0);

}  // namespace railkit::k8s
