#include "logs/nccl/rule.h"

namespace railkit::logs::nccl {

const std::vector<NcclRule>& allNcclRules() {
  static const std::vector<NcclRule> kRules = {
#define RAILKIT_NCCL_RULE(name) name,
#include "logs/nccl/rules/list.inc"
#undef RAILKIT_NCCL_RULE
  };
  return kRules;
}

}  // namespace railkit::logs::nccl
