#pragma once
// A doctor rule: one problem that keeps RDMA, NCCL or MPI from working on a
// node or pod. Each rule is one file in rules/ (its Rule: the RuleInfo and the
// check) and one line in rules/list.inc; its findings take the id and
// severity from the Rule (makeFinding in rules/helpers.h).
// A rule reads only the DoctorInput (the inventory plus optional extras such
// as a resolved hostfile) and returns findings; it never touches the machine,
// so every rule is testable from hand-built inventories.

#include <string>
#include <vector>

#include "core/finding.h"
#include "core/rule_info.h"
#include "model/inventory.h"

namespace railkit::doctor {

// One host of an MPI hostfile and what name resolution said about it.
struct HostfileHost {
  std::string name;
  int line = 0;  // 1-based line in the hostfile
  bool resolved = false;
  std::string detail;  // the address it resolved to, or why it did not
};

// A hostfile given with --hostfile, already resolved by the caller.
struct HostfileCheck {
  std::string path;
  std::vector<HostfileHost> hosts;
};

struct DoctorInput {
  const model::Inventory& inventory;
  const HostfileCheck* hostfile = nullptr;  // null without --hostfile
};

// A rule file defines {{id, severity, title, explain, fix}, check}, or
// {shared_rules::kX, check} for an id other commands raise too.
struct Rule : RuleInfo {
  std::vector<Finding> (*check)(const DoctorInput& input);
};

// Every rule, by name, for its own check and for rules that name another.
#define RAILKIT_DOCTOR_RULE(name) extern const Rule name;
#include "doctor/rules/list.inc"
#undef RAILKIT_DOCTOR_RULE

// Every rule, sorted by id.
const std::vector<Rule>& allRules();
const Rule* findRule(const std::string& id);

// Runs every rule; findings ordered by severity, then rule order.
std::vector<Finding> runRules(const DoctorInput& input);

}  // namespace railkit::doctor
