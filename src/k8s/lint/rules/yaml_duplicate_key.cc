// yaml-duplicate-key: a mapping key given twice. Node-based parsers keep one
// value silently (053 loses a cpu request this way); the API server's strict
// decoding rejects the object.
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkYamlDuplicateKey(const LintInput& input, std::vector<Finding>& out) {
  for (const auto& manifest : input.manifests) {
    for (const DuplicateKey& dup : manifest->stream.duplicates) {
      // Attribute to the object whose document holds the line.
      Object where;
      where.file = manifest->file;
      where.kind = "?";
      for (const Object& object : manifest->objects)
        if (object.line <= dup.line) where = object;
      std::string path = dup.path.empty() ? dup.key : dup.path + "." + dup.key;
      out.push_back(lintFinding(kYamlDuplicateKey, where, dup.line, path,
                                "key '" + dup.key + "' appears twice (lines " +
                                    std::to_string(dup.first_line) + " and " + std::to_string(dup.line) +
                                    "); one value is silently dropped or the object is rejected",
                                "merge the two '" + dup.key + "' blocks into one"));
    }
  }
}

extern const Rule kYamlDuplicateKey = {
    {"yaml-duplicate-key", Severity::kError, "mapping key given twice",
     R"(A mapping key is given twice; YAML readers keep one of the values (kubectl the last), so
part of what is written is silently ignored.)",
     R"(Fix: keep one key and merge the values.)"},
    checkYamlDuplicateKey};

}  // namespace railkit::k8s::rules
