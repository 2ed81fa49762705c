// unexpanded-placeholder: `${VAR}`, `__VAR__` or a bare `$VAR` left from a
// template (envsubst) or a shell heredoc. In command/args they are shell and
// fine; elsewhere (names, numbers, images, labels, resources) the value
// reaches the API as is: Kubernetes expands only `$(VAR)`, and only in
// command, args and env. A bare `$VAR` counts where it is the whole value
// (`replicas: $NUM_NODES`, `nvidia.com/gpu: $GPU_PER_NODE`) or inside a name
// or image; `$PATH:/opt/bin` in an env value is left alone. A `<PLACEHOLDER>`
// left for the reader to replace (`<YOUR-CONTAINER>:<VERSION>`,
// `<account>.dkr.ecr.<region>.amazonaws.com/<image>:<tag>`) counts in names
// and images, where `<` is never valid; elsewhere it may be prose.
#include <regex>

#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

bool isScriptKey(const std::string& key) {
  return key == "command" || key == "args" || key == "script" || key == "data";
}

bool isNameKey(const std::string& key) {
  return key == "name" || key == "namespace" || key == "generateName" || key == "image" ||
         key == "claimName" || key == "serviceAccountName" || key == "resourceClaimTemplateName" ||
         key == "schedulerName" || key == "priorityClassName";
}

void walk(const YamlNode& node, const std::string& key, const std::string& path, const Object& object,
          std::vector<Finding>& out, int depth) {
  static const std::regex kPattern(R"(\$\{[A-Za-z_][A-Za-z0-9_]*\}|__[A-Z][A-Z0-9_]*__)");
  static const std::regex kBareWhole(R"(\s*\$[A-Za-z_][A-Za-z0-9_]*\s*)");
  static const std::regex kBare(R"(\$[A-Za-z_][A-Za-z0-9_]*)");
  static const std::regex kAngle(R"(<[A-Za-z][A-Za-z0-9_. -]*>)");
  if (depth > 64) return;
  if (node.isScalar()) {
    if (node.value.find('\n') != std::string::npos) return;  // block scripts
    std::smatch match;
    bool found = std::regex_search(node.value, match, kPattern);
    if (!found && std::regex_match(node.value, kBareWhole))
      found = std::regex_search(node.value, match, kBare);
    if (!found && isNameKey(key))
      found = std::regex_search(node.value, match, kBare) || std::regex_search(node.value, match, kAngle);
    if (found)
      out.push_back(
          lintFinding(kUnexpandedPlaceholder, object, node.line, path,
                      "value '" + node.value + "' still holds the placeholder " + match.str(0),
                      "substitute the value (envsubst, sed or your templating tool) before applying"));
    return;
  }
  if (node.isMap()) {
    for (size_t i = 0; i < node.entries.size(); ++i) {
      const auto& [key, value] = node.entries[i];
      if (isScriptKey(key)) continue;
      walk(value, key, path.empty() ? key : path + "." + key, object, out, depth + 1);
    }
  } else if (node.isSeq()) {
    for (size_t i = 0; i < node.items.size(); ++i)
      walk(node.items[i], key, path + "[" + std::to_string(i) + "]", object, out, depth + 1);
  }
}

}  // namespace

void checkUnexpandedPlaceholder(const LintInput& input, std::vector<Finding>& out) {
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects) walk(*object.root, "", "", object, out, 0);
}

extern const Rule kUnexpandedPlaceholder = {
    {"unexpanded-placeholder", Severity::kError, "template placeholder left in a value",
     R"(A template placeholder (${VAR}, $VAR, __VAR__, or <PLACEHOLDER> in a name or image such as
<YOUR-CONTAINER>:<VERSION>) was left in a value: the manifest was applied without being
rendered or edited, and the field holds the literal text (an invalid name, image reference
or quantity, or a wrong setting).)",
     R"(Fix: render the template (envsubst, helm template) with every variable set, or replace the
<PLACEHOLDER> with the real value.)"},
    checkUnexpandedPlaceholder};

}  // namespace railkit::k8s::rules
