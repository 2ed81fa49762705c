#pragma once
// What the lint rules share. Each rule is one file in this directory that
// defines its Rule ({{id, severity, title, explain, fix}, check}) and one line in
// list.inc; its findings take the id and severity from the Rule (lintFinding).
#include <vector>

#include "k8s/lint/lint.h"

namespace railkit::k8s::rules {

// Every rule, by name, for its own check and for rules that name another.
#define RAILKIT_LINT_RULE(name) extern const Rule name;
#include "k8s/lint/rules/list.inc"
#undef RAILKIT_LINT_RULE

}  // namespace railkit::k8s::rules
