// The lint rule table, built from rules/list.inc (one line per rule).
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s {

const std::vector<Rule>& allRules() {
  static const std::vector<Rule> kRules = {
#define RAILKIT_LINT_RULE(name) rules::name,
#include "k8s/lint/rules/list.inc"
#undef RAILKIT_LINT_RULE
  };
  return kRules;
}

}  // namespace railkit::k8s
