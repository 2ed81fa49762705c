#include "k8s/schema_validator.h"

#include <regex>
#include <set>

#include "k8s/cel_rules.h"

namespace railkit::k8s {
namespace {

const nlohmann::json kEmptySchema = nlohmann::json::object();
constexpr int kMaxSchemaDepth = 120;
constexpr size_t kMaxErrors = 50;
// libstdc++'s regex matcher recurses per character: a longer string is not
// matched against a pattern (Kubernetes' patterns guard names and labels,
// far shorter, and most carry a maxLength that is checked first).
constexpr size_t kMaxPatternInput = 1024;
// resource.Quantity as CRD generators write it (controller-gen): the one
// pattern Kubernetes schemas put on int-or-string fields.
constexpr const char* kQuantityPattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

bool isQuantitySchema(const nlohmann::json& schema) {
  if (!schema.value("x-kubernetes-int-or-string", false)) return false;
  auto pattern = schema.find("pattern");
  return pattern != schema.end() && pattern->is_string() &&
         pattern->get_ref<const std::string&>() == kQuantityPattern;
}

// A $ref (bare or wrapped in a one-element allOf) to the built-in Quantity
// of the Kubernetes OpenAPI documents.
bool refersToQuantity(const nlohmann::json& schema) {
  if (!schema.is_object()) return false;
  auto ref = schema.find("$ref");
  if (ref != schema.end() && ref->is_string()) {
    const std::string& target = ref->get_ref<const std::string&>();
    const std::string suffix = ".api.resource.Quantity";
    return target.size() >= suffix.size() &&
           target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  auto all_of = schema.find("allOf");
  return all_of != schema.end() && all_of->is_array() && all_of->size() == 1 &&
         refersToQuantity((*all_of)[0]);
}

bool isQuantityText(const std::string& text) {
  static const std::regex kQuantity(kQuantityPattern);
  return std::regex_match(text, kQuantity);
}

std::string typeName(const YamlNode& node) {
  switch (node.type) {
    case YamlNode::Type::kMap: return "object";
    case YamlNode::Type::kSeq: return "array";
    case YamlNode::Type::kNull: return "null";
    case YamlNode::Type::kScalar: break;
  }
  auto json = yamlToJson(node);
  if (json.is_boolean()) return "boolean";
  if (json.is_number_integer()) return "integer";
  if (json.is_number()) return "number";
  return "string";
}

}  // namespace

std::vector<SchemaError> SchemaValidator::validateObject(const YamlNode& object, bool skip_metadata) {
  skip_metadata_ = skip_metadata;
  errors_.clear();
  unevaluated_.clear();
  check(object, root_, "", 0);
  return errors_;
}

const nlohmann::json& SchemaValidator::resolve(const nlohmann::json& schema, int depth) const {
  if (!schema.is_object() || depth > 32) return schema.is_object() ? schema : kEmptySchema;
  auto ref = schema.find("$ref");
  if (ref != schema.end() && ref->is_string()) {
    const std::string& target = ref->get_ref<const std::string&>();
    const std::string prefix = "#/components/schemas/";
    if (document_ != nullptr && target.rfind(prefix, 0) == 0) {
      auto components = document_->find("components");
      if (components != document_->end()) {
        auto schemas = components->find("schemas");
        if (schemas != components->end()) {
          auto found = schemas->find(target.substr(prefix.size()));
          if (found != schemas->end()) return resolve(*found, depth + 1);
        }
      }
    }
    return kEmptySchema;
  }
  // Kubernetes wraps a $ref with siblings (default, description) in allOf.
  auto all_of = schema.find("allOf");
  if (all_of != schema.end() && all_of->is_array() && all_of->size() == 1 && !schema.contains("properties") &&
      !schema.contains("type"))
    return resolve((*all_of)[0], depth + 1);
  return schema;
}

bool SchemaValidator::typeMatches(const YamlNode& node, const std::string& type) const {
  std::string actual = typeName(node);
  if (type == actual) return true;
  if (type == "number" && actual == "integer") return true;
  return false;
}

void SchemaValidator::error(const YamlNode& node, const std::string& path, std::string message) {
  if (errors_.size() < kMaxErrors) errors_.push_back(SchemaError{path, node.line, std::move(message)});
}

void SchemaValidator::checkNull(const YamlNode& node, const nlohmann::json& raw, const nlohmann::json& schema,
                                const std::string& path) {
  // Null means "unset": the API server prunes it from a custom resource.
  // For a quantity (`nvidia.com/gpu:` with nothing after it) that silently
  // drops the request: the job starts without the device.
  if (isQuantitySchema(schema) && !schema.value("nullable", false))
    error(node, path,
          "quantity has no value (null): the API server drops the field, so nothing is requested");
  else if (refersToQuantity(raw))  // built-in kinds decode a null Quantity as 0
    error(node, path, "quantity has no value (null): the API server reads it as 0, so nothing is requested");
}

void SchemaValidator::checkFields(const YamlNode& node, const nlohmann::json& schema, const std::string& path,
                                  int depth) {
  auto type = schema.find("type");
  auto properties = schema.find("properties");
  auto additional = schema.find("additionalProperties");
  bool preserve = schema.value("x-kubernetes-preserve-unknown-fields", false);
  if (auto required = schema.find("required"); required != schema.end() && required->is_array())
    for (const auto& name : *required)
      if (name.is_string() && node.get(name.get<std::string>()) == nullptr)
        error(node, path, "missing required field '" + name.get<std::string>() + "'");
  for (size_t i = 0; i < node.entries.size(); ++i) {
    const auto& [key, value] = node.entries[i];
    std::string child = path.empty() ? key : path + "." + key;
    if (depth == 0 && key == "metadata" && skip_metadata_) continue;
    if (properties != schema.end() && properties->is_object() && properties->contains(key)) {
      check(value, (*properties)[key], child, depth + 1);
    } else if (additional != schema.end() && additional->is_object()) {
      check(value, *additional, child, depth + 1);
    } else if (additional != schema.end() && additional->is_boolean() && additional->get<bool>()) {
      continue;
    } else if (!preserve && (properties != schema.end() || type == schema.end() || *type == "object")) {
      if (properties == schema.end() && additional == schema.end()) continue;  // free-form object
      SchemaError err{child, node.key_lines[i], "unknown field '" + key + "'"};
      if (errors_.size() < kMaxErrors) errors_.push_back(std::move(err));
    }
  }
}

void SchemaValidator::check(const YamlNode& node, const nlohmann::json& raw, const std::string& path,
                            int depth) {
  if (depth > kMaxSchemaDepth) return;
  const nlohmann::json& schema = resolve(raw, 0);
  if (!schema.is_object() || schema.empty()) return;
  if (node.type == YamlNode::Type::kNull) {
    checkNull(node, raw, schema, path);
    return;
  }
  if (schema.value("x-kubernetes-int-or-string", false)) {
    std::string actual = typeName(node);
    if (actual != "integer" && actual != "string")
      error(node, path, "expected an integer or a string, found " + actual);
    else if (actual == "string" && isQuantitySchema(schema) && !isQuantityText(node.value))
      error(node, path,
            "'" + node.value + "' is not a quantity (a number with an optional suffix: 8, 500m, 64Gi)");
    return;
  }
  for (const char* combinator : {"oneOf", "anyOf"}) {
    auto options = schema.find(combinator);
    if (options == schema.end() || !options->is_array() || schema.contains("properties")) continue;
    // Accept when any branch's type fits (Quantity: string or number).
    bool any = false;
    for (const auto& option : *options) {
      const auto& resolved = resolve(option, 0);
      auto type = resolved.find("type");
      if (type == resolved.end() || !type->is_string() || typeMatches(node, type->get<std::string>()))
        any = true;
    }
    if (!any) error(node, path, "value of type " + typeName(node) + " matches none of the allowed types");
    return;
  }
  auto type = schema.find("type");
  if (type != schema.end() && type->is_string()) {
    std::string expected = type->get<std::string>();
    if (!typeMatches(node, expected)) {
      std::string shown = node.isScalar() ? " '" + node.value + "'" : "";
      error(node, path, "expected " + expected + ", found " + typeName(node) + shown);
      return;
    }
  }
  auto enums = schema.find("enum");
  if (enums != schema.end() && enums->is_array() && node.isScalar()) {
    auto value = yamlToJson(node);
    bool found = false;
    for (const auto& allowed : *enums) found = found || allowed == value;
    if (!found) error(node, path, "value '" + node.value + "' is not one of " + enums->dump());
  }
  checkValue(node, schema, path);
  checkRules(node, schema, path);
  if (node.isMap()) {
    checkFields(node, schema, path, depth);
  } else if (node.isSeq()) {
    auto items = schema.find("items");
    if (items != schema.end())
      for (size_t i = 0; i < node.items.size(); ++i)
        check(node.items[i], *items, path + "[" + std::to_string(i) + "]", depth + 1);
  }
}

const std::regex* SchemaValidator::compiledPattern(const std::string& pattern) {
  auto it = patterns_.find(pattern);
  if (it != patterns_.end()) return it->second.get();
  std::unique_ptr<std::regex> compiled;
  try {
    compiled = std::make_unique<std::regex>(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
  }
  return patterns_.emplace(pattern, std::move(compiled)).first->second.get();
}

void SchemaValidator::checkValue(const YamlNode& node, const nlohmann::json& schema,
                                 const std::string& path) {
  auto number = [&](const char* key) -> const nlohmann::json* {
    auto it = schema.find(key);
    return it != schema.end() && it->is_number() ? &*it : nullptr;
  };
  if (node.isSeq()) {
    if (auto* min = number("minItems"); min && node.items.size() < min->get<double>())
      error(node, path,
            "has " + std::to_string(node.items.size()) + " items; at least " + min->dump() + " expected");
    if (auto* max = number("maxItems"); max && node.items.size() > max->get<double>())
      error(node, path,
            "has " + std::to_string(node.items.size()) + " items; at most " + max->dump() + " allowed");
    return;
  }
  if (!node.isScalar()) return;
  std::string type = typeName(node);
  if (type == "string") {
    // Lengths count characters (UTF-8 code points), as the API server does.
    size_t length = 0;
    for (unsigned char c : node.value) length += (c & 0xC0) != 0x80;
    if (auto* min = number("minLength"); min && length < min->get<double>())
      error(node, path, "'" + node.value + "' is shorter than " + min->dump() + " characters");
    if (auto* max = number("maxLength"); max && length > max->get<double>())
      error(node, path,
            "is " + std::to_string(length) + " characters long; at most " + max->dump() + " allowed");
    auto pattern = schema.find("pattern");
    if (pattern != schema.end() && pattern->is_string() && node.value.size() <= kMaxPatternInput &&
        !isQuantitySchema(schema)) {
      const std::regex* re = compiledPattern(pattern->get<std::string>());
      if (re != nullptr && !std::regex_search(node.value, *re))
        error(node, path, "'" + node.value + "' does not match the pattern " + pattern->get<std::string>());
    }
  } else if (type == "integer" || type == "number") {
    double value = yamlToJson(node).get<double>();
    if (auto* min = number("minimum"); min && value < min->get<double>())
      error(node, path, node.value + " is below the minimum " + min->dump());
    if (auto* max = number("maximum"); max && value > max->get<double>())
      error(node, path, node.value + " is above the maximum " + max->dump());
  }
}

void SchemaValidator::checkRules(const YamlNode& node, const nlohmann::json& schema,
                                 const std::string& path) {
  auto rules = schema.find("x-kubernetes-validations");
  if (rules == schema.end() || !rules->is_array()) return;
  for (const auto& entry : *rules) {
    if (!entry.is_object() || !entry.contains("rule") || !entry["rule"].is_string()) continue;
    const std::string& rule = entry["rule"].get_ref<const std::string&>();
    switch (evaluateCelRule(rule, node)) {
      case CelOutcome::kPassed:
      case CelOutcome::kTransitionRule: break;
      case CelOutcome::kUnknownRule:
        unevaluated_.push_back((path.empty() ? "." : path) + ": " + normalizeCelRule(rule));
        break;
      case CelOutcome::kFailed:
        error(node, path,
              entry.value("message", std::string("failed")) +
                  " (x-kubernetes-validations: " + normalizeCelRule(rule) + ")");
        break;
    }
  }
}

}  // namespace railkit::k8s
