// The one table of doctor rules, sorted by id. Adding a rule: one file in
// rules/, one declaration below, one row in the table.
#include <algorithm>

#include "doctor/rule.h"

namespace railkit::doctor {

// Defined in rules/<id>.cc.
extern const Rule kGpuNicFar;
extern const Rule kGpudirectModuleMissing;
extern const Rule kIbIpoibMissing;
extern const Rule kIbNoSubnetManager;
extern const Rule kIpcLockMissing;
extern const Rule kMemlockLimit;
extern const Rule kMpiHostfileUnresolvable;
extern const Rule kNcclGidIndexInvalid;
extern const Rule kNcclIbDisabled;
extern const Rule kNcclIbHcaInvalid;
extern const Rule kNcclIbTcNotLossless;
extern const Rule kNcclSocketIfnameInvalid;
extern const Rule kOmpiBtlIfUnset;
extern const Rule kOmpiCollConflict;
extern const Rule kPcieAcsEnabled;
extern const Rule kPcieAcsUnknown;
extern const Rule kPcieLinkDegraded;
extern const Rule kRdmaCmMissing;
extern const Rule kRdmaNetnsShared;
extern const Rule kRdmaNoDevices;
extern const Rule kRdmaPortDown;
extern const Rule kRoceEcnDisabled;
extern const Rule kRoceGidNetns;
extern const Rule kRoceMtuSmall;
extern const Rule kRoceMultirailArp;
extern const Rule kRoceMultirailNoPolicyRouting;
extern const Rule kRoceMultirailRpFilter;
extern const Rule kRocePfcDisabled;
extern const Rule kShmTooSmall;
extern const Rule kUcxNetDevicesInvalid;
extern const Rule kUverbsMissing;

const std::vector<Rule>& allRules() {
  static const std::vector<Rule> kRules = {
      kGpuNicFar,
      kGpudirectModuleMissing,
      kIbIpoibMissing,
      kIbNoSubnetManager,
      kIpcLockMissing,
      kMemlockLimit,
      kMpiHostfileUnresolvable,
      kNcclGidIndexInvalid,
      kNcclIbDisabled,
      kNcclIbHcaInvalid,
      kNcclIbTcNotLossless,
      kNcclSocketIfnameInvalid,
      kOmpiBtlIfUnset,
      kOmpiCollConflict,
      kPcieAcsEnabled,
      kPcieAcsUnknown,
      kPcieLinkDegraded,
      kRdmaCmMissing,
      kRdmaNetnsShared,
      kRdmaNoDevices,
      kRdmaPortDown,
      kRoceEcnDisabled,
      kRoceGidNetns,
      kRoceMtuSmall,
      kRoceMultirailArp,
      kRoceMultirailNoPolicyRouting,
      kRoceMultirailRpFilter,
      kRocePfcDisabled,
      kShmTooSmall,
      kUcxNetDevicesInvalid,
      kUverbsMissing,
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
