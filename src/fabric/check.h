#pragma once
// A fabric check: one problem of the cabling or the links that no single
// node can see. Each check is one file in rules/ (its FabricCheck: the
// RuleInfo and the check) and one line in rules/list.inc, sorted by id;
// `railkit fabric --list-rules` and `railkit explain` read the same table.
// A check reads only the parsed fabric and its rail view, never the machine.

#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/rule_info.h"
#include "fabric/iblinkinfo.h"
#include "fabric/perfquery.h"
#include "fabric/rails.h"
#include "fabric/sminfo.h"
#include "fabric/topology.h"

namespace railkit::fabric {

struct FabricInput {
  const Fabric& fabric;
  const RailView& rails;
  const std::vector<SmCapture>& sm;  // sminfo captures (--sminfo); empty: not checked
  // perfquery captures (--perfquery): none, one read, or an earlier and a later read.
  const std::vector<CounterCapture>& counters;
  const LinkInfoCapture* links = nullptr;  // iblinkinfo (--iblinkinfo); null: not checked
};

struct FabricCheck : RuleInfo {
  std::vector<Finding> (*check)(const FabricInput& input);
};

#define RAILKIT_FABRIC_CHECK(name) extern const FabricCheck name;
#include "fabric/rules/list.inc"
#undef RAILKIT_FABRIC_CHECK

// Every check, sorted by id.
const std::vector<FabricCheck>& allFabricChecks();
const FabricCheck* findFabricCheck(std::string_view id);

// Runs every check; findings ordered by severity, then check order.
std::vector<Finding> runFabricChecks(const FabricInput& input);

}  // namespace railkit::fabric
