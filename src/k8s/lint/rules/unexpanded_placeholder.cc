// unexpanded-placeholder: `${VAR}` or `__VAR__` left from a template or a
// shell heredoc. In command/args `${VAR}` is shell and fine; elsewhere
// (names, numbers, images, labels, resources) the value reaches the API as is.
#include <regex>

#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

bool isScriptKey(const std::string& key) {
  return key == "command" || key == "args" || key == "script" || key == "data";
}

void walk(const YamlNode& node, const std::string& path, const Object& object, std::vector<Finding>& out,
          int depth) {
  static const std::regex kPattern(R"(\$\{[A-Za-z_][A-Za-z0-9_]*\}|__[A-Z][A-Z0-9_]*__)");
  if (depth > 64) return;
  if (node.isScalar()) {
    if (node.value.find('\n') != std::string::npos) return;  // block scripts
    std::smatch match;
    if (std::regex_search(node.value, match, kPattern))
      out.push_back(lintFinding("unexpanded-placeholder", Severity::kError, object, node.line, path,
                                "value '" + node.value + "' still holds the placeholder " + match.str(0),
                                "substitute the value (envsubst, sed or your templating tool) before applying"));
    return;
  }
  if (node.isMap()) {
    for (size_t i = 0; i < node.entries.size(); ++i) {
      const auto& [key, value] = node.entries[i];
      if (isScriptKey(key)) continue;
      walk(value, path.empty() ? key : path + "." + key, object, out, depth + 1);
    }
  } else if (node.isSeq()) {
    for (size_t i = 0; i < node.items.size(); ++i)
      walk(node.items[i], path + "[" + std::to_string(i) + "]", object, out, depth + 1);
  }
}

}  // namespace

void checkUnexpandedPlaceholder(const LintInput& input, std::vector<Finding>& out) {
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects) walk(*object.root, "", object, out, 0);
}

}  // namespace railkit::k8s::rules
