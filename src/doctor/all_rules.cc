// The one table of doctor rules, built from rules/list.inc (one line per
// rule, sorted by id).
#include <algorithm>

#include "doctor/rule.h"

namespace railkit::doctor {

const std::vector<Rule>& allRules() {
  static const std::vector<Rule> kRules = {
#define RAILKIT_DOCTOR_RULE(name) name,
#include "doctor/rules/list.inc"
#undef RAILKIT_DOCTOR_RULE
  };
  return kRules;
}

const Rule* findRule(const std::string& id) {
  for (const auto& rule : allRules())
    if (id == rule.id) return &rule;
  return nullptr;
}

std::vector<Finding> runRules(const DoctorInput& input) {
  std::vector<Finding> out;
  for (const auto& rule : allRules()) {
    auto found = rule.check(input);
    out.insert(out.end(), found.begin(), found.end());
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return out;
}

}  // namespace railkit::doctor
