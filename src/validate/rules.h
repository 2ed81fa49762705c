#pragma once
// The finding ids `railkit validate` raises itself (doctor's rules keep their
// own table), with the most serious severity, a title and the explanation
// `railkit explain` prints. Plain sorted list, like doctor's and the logs
// catalogue, so `validate --list-rules` and explain read the same rows.

#include <string_view>
#include <vector>

#include "core/rule_info.h"

namespace railkit::validate {

using ValidateRule = RuleInfo;

// The node counts of phase 1 (node_check.cc): fewer GPUs, fewer active data
// rail ports than expected.
extern const ValidateRule kGpuCount;
extern const ValidateRule kRdmaNicCount;

// Every id validate raises, sorted by id.
const std::vector<ValidateRule>& allValidateRules();
const ValidateRule* findValidateRule(std::string_view id);

}  // namespace railkit::validate
