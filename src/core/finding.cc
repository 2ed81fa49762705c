#include "core/finding.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/rule_info.h"

namespace railkit {

const char* severityName(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "info";
}

nlohmann::json findingToJson(const Finding& f) {
  nlohmann::json evidence = nlohmann::json::array();
  for (const auto& e : f.evidence) {
    nlohmann::json item{{"source", e.source}, {"text", e.text}};
    if (e.line) item["line"] = *e.line;
    evidence.push_back(std::move(item));
  }
  nlohmann::json out{{"id", f.id},           {"severity", severityName(f.severity)},
                     {"subject", f.subject}, {"message", f.message},
                     {"evidence", evidence}, {"fix", f.fix}};
  if (!f.file.empty()) out["file"] = f.file;
  if (f.line) out["line"] = *f.line;
  if (!f.object.empty()) out["object"] = f.object;
  if (!f.path.empty()) out["path"] = f.path;
  return out;
}

nlohmann::json findingsToJson(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) out.push_back(findingToJson(f));
  return out;
}

bool hasErrors(const std::vector<Finding>& findings) {
  for (const auto& f : findings) {
    if (f.severity == Severity::kError) return true;
  }
  return false;
}

Finding findingOf(const RuleInfo& rule) {
  Finding f;
  f.id = rule.id;
  f.severity = rule.severity;
  return f;
}

Finding findingOf(const RuleInfo& rule, Severity lowered) {
  Finding f = findingOf(rule);
  // Severity orders error < warning < info: the larger is the less serious.
  f.severity = std::max(lowered, rule.severity);
  return f;
}

}  // namespace railkit
