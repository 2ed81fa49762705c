#pragma once
// A doctor rule: one problem that keeps RDMA, NCCL or MPI from working on a
// node or pod. Each rule is one file in rules/ and one line in all_rules.cc.
// A rule reads only the DoctorInput (the inventory plus optional extras such
// as a resolved hostfile) and returns findings; it never touches the machine,
// so every rule is testable from hand-built inventories.

#include <string>
#include <vector>

#include "core/finding.h"
#include "model/inventory.h"

namespace railkit::doctor {

struct DoctorInput {
  const model::Inventory& inventory;
};

struct Rule {
  const char* id;
  Severity severity;  // the default (most serious) severity
  const char* title;
  const char* explain;  // why it matters and how to fix it
  std::vector<Finding> (*check)(const DoctorInput& input);
};

// Every rule, sorted by id.
const std::vector<Rule>& allRules();
const Rule* findRule(const std::string& id);

// Runs every rule; findings ordered by severity, then rule order.
std::vector<Finding> runRules(const DoctorInput& input);

}  // namespace railkit::doctor
