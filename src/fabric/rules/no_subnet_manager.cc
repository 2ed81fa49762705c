// ib-no-subnet-manager, as sminfo shows it: no master answered.
#include "core/shared_rules.h"
#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

Finding noMaster(const SmCapture& c) {
  std::vector<Evidence> evidence;
  std::string message;
  if (c.records.empty()) {
    message = c.failure_line ? fmt::format("sminfo found no subnet manager ('{}')", c.failure_text)
                             : "sminfo printed no subnet manager";
    if (c.failure_line) evidence.push_back({c.source, c.failure_line, c.failure_text});
  } else {
    const SmRecord& r = c.records.front();
    message = fmt::format("the subnet manager sminfo reached (guid {}, lid {}) is {}, and no master answered",
                          r.guid, r.lid, r.state_name);
    for (const auto& rec : c.records) evidence.push_back({c.source, rec.line, rec.text});
  }
  message += ": ports stay INIT without LIDs or routes, and no queue pair reaches another node";
  return makeFabricFinding(shared_rules::kIbNoSubnetManager, c.source, std::move(message),
                           std::move(evidence),
                           "Start a subnet manager: the SM of a managed switch, UFM, or OpenSM on one host "
                           "(systemctl enable --now opensm); then `sminfo` shows SMINFO_MASTER.");
}

std::vector<Finding> check(const FabricInput& in) {
  std::vector<Finding> out;
  for (const auto& c : in.sm) {
    bool master = false;
    for (const auto& r : c.records) master |= r.state == kSmMaster;
    if (!master) out.push_back(noMaster(c));
  }
  return out;
}

}  // namespace

extern const FabricCheck kNoSubnetManager = {shared_rules::kIbNoSubnetManager, check};

}  // namespace railkit::fabric
