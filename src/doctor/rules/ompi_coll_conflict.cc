// ompi-coll-conflict: HCOLL and UCC collective components hang or crash in
// containers without the matching fabric setup; they must be off explicitly.
#include "core/shared_rules.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& env = in.inventory.process.env;
  if (!ompiInUse(env)) return {};
  std::vector<Finding> out;
  for (const char* key : {"OMPI_MCA_coll_hcoll_enable", "OMPI_MCA_coll_ucc_enable"}) {
    auto it = env.find(key);
    if (it != env.end() && it->second == "0") continue;
    out.push_back(
        makeFinding(kOmpiCollConflict, key,
                    std::string(key) + (it == env.end() ? " is unset" : " is " + it->second) +
                        ": the collective component may load and conflict with NCCL/UCX",
                    {{sys::paths::kSelfEnviron, std::nullopt,
                      it == env.end() ? std::string(key) + " unset" : std::string(key) + "=" + it->second}},
                    std::string("export ") + key + "=0"));
  }
  return out;
}
}  // namespace

extern const Rule kOmpiCollConflict = {shared_rules::kOmpiCollConflict, check};
}  // namespace railkit::doctor
