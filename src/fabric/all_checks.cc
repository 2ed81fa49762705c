// The one table of fabric checks, built from rules/list.inc.
#include <algorithm>

#include "fabric/check.h"

namespace railkit::fabric {

const std::vector<FabricCheck>& allFabricChecks() {
  static const std::vector<FabricCheck> kChecks = {
#define RAILKIT_FABRIC_CHECK(name) name,
#include "fabric/rules/list.inc"
#undef RAILKIT_FABRIC_CHECK
  };
  return kChecks;
}

const FabricCheck* findFabricCheck(std::string_view id) {
  for (const auto& check : allFabricChecks())
    if (id == check.id) return &check;
  return nullptr;
}

std::vector<Finding> runFabricChecks(const FabricInput& input) {
  std::vector<Finding> out;
  for (const auto& check : allFabricChecks()) {
    auto found = check.check(input);
    out.insert(out.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return out;
}

}  // namespace railkit::fabric
