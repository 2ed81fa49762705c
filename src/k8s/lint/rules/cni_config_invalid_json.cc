// cni-config-invalid-json: network CRs and NetworkAttachmentDefinitions carry
// CNI configuration as JSON inside a string; the API accepts any string and
// the failure only shows when a pod's sandbox is created.
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

// Keeps the parser's message instead of letting it throw: errors are values.
class ErrorOnlySax : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string error;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    error = ex.what();
    return false;
  }
};

// Empty when `text` is JSON, else the parser's message.
std::string jsonError(const std::string& text) {
  ErrorOnlySax sax;
  bool ok = nlohmann::json::sax_parse(text, &sax);
  if (!ok && sax.error.empty()) return "not valid JSON";
  return sax.error;
}

}  // namespace

void checkCniConfigInvalidJson(const LintInput& input, std::vector<Finding>& out) {
  for (const auto& manifest : input.manifests) {
    for (const Object& object : manifest->objects) {
      const YamlNode* spec = object.root->get("spec");
      if (spec == nullptr || !spec->isMap()) continue;
      for (const char* key : {"ipam", "config", "metaPlugins"}) {
        const YamlNode* value = spec->get(key);
        if (value == nullptr || !value->isScalar()) continue;
        std::string text(trim(value->value));
        if (text.empty()) continue;
        // metaPlugins is a comma-separated run of objects.
        std::string candidate = std::string(key) == "metaPlugins" ? "[" + text + "]" : text;
        if (text.front() != '{' && text.front() != '[') continue;
        std::string error = jsonError(candidate);
        if (error.empty()) continue;
        out.push_back(lintFinding(kCniConfigInvalidJson, object, value->line, std::string("spec.") + key,
                                  std::string("CNI ") + key + " is not valid JSON: " + error,
                                  "fix the JSON (trailing commas and unquoted keys are common) and check it "
                                  "with a JSON parser"));
      }
    }
  }
}

extern const Rule kCniConfigInvalidJson = {
    {"cni-config-invalid-json", Severity::kError, "CNI ipam/config string is not valid JSON",
     R"(A NetworkAttachmentDefinition's spec.config (or an IPAM config string) is JSON inside a YAML
string. When it does not parse, Multus cannot attach the network and the pod stays in
ContainerCreating with a CNI error; nothing in the API server checks it.)",
     R"(Fix: make the string valid JSON (the finding quotes the parser's message and position).)"},
    checkCniConfigInvalidJson};

}  // namespace railkit::k8s::rules
