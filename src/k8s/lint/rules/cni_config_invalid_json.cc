// cni-config-invalid-json: network CRs and NetworkAttachmentDefinitions carry
// CNI configuration as JSON inside a string; the API accepts any string and
// the failure only shows when a pod's sandbox is created.
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

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
        try {
          auto parsed = nlohmann::json::parse(candidate);
          (void)parsed;
        } catch (const nlohmann::json::parse_error& error) {
          out.push_back(lintFinding("cni-config-invalid-json", Severity::kError, object, value->line,
                                    std::string("spec.") + key,
                                    std::string("CNI ") + key + " is not valid JSON: " + error.what(),
                                    "fix the JSON (trailing commas and unquoted keys are common) and check it "
                                    "with a JSON parser"));
        }
      }
    }
  }
}

}  // namespace railkit::k8s::rules
