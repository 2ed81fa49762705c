#pragma once
// Walks a YAML node against one OpenAPI v3 schema, keeping the YAML lines
// so every error points at the field. Supports what Kubernetes schemas use:
// $ref (within `document`), allOf/oneOf/anyOf, properties, required,
// additionalProperties, items, type, enum, pattern, minLength/maxLength,
// minItems/maxItems, minimum/maximum, x-kubernetes-int-or-string,
// x-kubernetes-preserve-unknown-fields, and the x-kubernetes-validations
// rules cel_rules.h knows (the others are listed in unevaluatedRules()).

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
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
  // The CEL rules of the last validateObject that railkit cannot evaluate:
  // "PATH: RULE" each (transition rules, which apply only to updates, are not listed).
  const std::vector<std::string>& unevaluatedRules() const { return unevaluated_; }

 private:
  const nlohmann::json& resolve(const nlohmann::json& schema, int depth) const;
  void check(const YamlNode& node, const nlohmann::json& schema, const std::string& path, int depth);
  // check()'s parts: a null value (an unset field), and a map's fields.
  void checkNull(const YamlNode& node, const nlohmann::json& raw, const nlohmann::json& schema,
                 const std::string& path);
  void checkFields(const YamlNode& node, const nlohmann::json& schema, const std::string& path, int depth);
  // pattern, lengths, item counts, bounds; then the CEL rules.
  void checkValue(const YamlNode& node, const nlohmann::json& schema, const std::string& path);
  void checkRules(const YamlNode& node, const nlohmann::json& schema, const std::string& path);
  // The compiled `pattern`, or null when std::regex cannot read it (a Go
  // regexp construct ECMAScript lacks): such a pattern is not checked.
  const std::regex* compiledPattern(const std::string& pattern);
  bool typeMatches(const YamlNode& node, const std::string& type) const;
  void error(const YamlNode& node, const std::string& path, std::string message);

  const nlohmann::json& root_;
  const nlohmann::json* document_;
  bool skip_metadata_ = false;
  std::vector<SchemaError> errors_;
  std::vector<std::string> unevaluated_;
  std::map<std::string, std::unique_ptr<std::regex>> patterns_;
};

}  // namespace railkit::k8s
