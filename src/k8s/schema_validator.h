#pragma once
// Walks a YAML node against one OpenAPI v3 schema, keeping the YAML lines
// so every error points at the field. Supports what Kubernetes schemas use:
// $ref (within `document`), allOf/oneOf/anyOf, properties, required,
// additionalProperties, items, type, enum, x-kubernetes-int-or-string and
// x-kubernetes-preserve-unknown-fields.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "k8s/schema.h"
#include "k8s/yaml.h"

namespace railkit::k8s {

class SchemaValidator {
 public:
  explicit SchemaValidator(const nlohmann::json& root_schema, const nlohmann::json* document = nullptr)
      : root_(root_schema), document_(document) {}

  std::vector<SchemaError> validateObject(const YamlNode& object, bool skip_metadata);

 private:
  const nlohmann::json& resolve(const nlohmann::json& schema, int depth) const;
  void check(const YamlNode& node, const nlohmann::json& schema, const std::string& path, int depth);
  // check()'s parts: a null value (an unset field), and a map's fields.
  void checkNull(const YamlNode& node, const nlohmann::json& raw, const nlohmann::json& schema,
                 const std::string& path);
  void checkFields(const YamlNode& node, const nlohmann::json& schema, const std::string& path, int depth);
  bool typeMatches(const YamlNode& node, const std::string& type) const;
  void error(const YamlNode& node, const std::string& path, std::string message);

  const nlohmann::json& root_;
  const nlohmann::json* document_;
  bool skip_metadata_ = false;
  std::vector<SchemaError> errors_;
};

}  // namespace railkit::k8s
