// ib-no-subnet-manager: an IB port stays INIT/ARMED (or ACTIVE with SM LID 0)
// until a subnet manager assigns it a LID.
#include "core/shared_rules.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
std::vector<Finding> check(const DoctorInput& in) {
  std::vector<Finding> out;
  for (const auto& d : in.inventory.rdma_devices) {
    for (const auto& p : d.ports) {
      if (p.link_layer != "InfiniBand" || !model::physLinkUp(p)) continue;
      bool waiting = p.state == "INIT" || p.state == "ARMED";
      bool no_sm = p.state == "ACTIVE" && p.sm_lid && *p.sm_lid == 0;
      if (!waiting && !no_sm) continue;
      std::string subject = d.name + ":" + std::to_string(p.port);
      out.push_back(makeFinding(
          kIbNoSubnetManager, subject,
          "InfiniBand port " + subject + " is LinkUp but " + p.state + (no_sm ? " with SM LID 0" : "") +
              ": no subnet manager has configured it",
          {{portPath(d.name, p.port, "state"), std::nullopt, p.state},
           {portPath(d.name, p.port, "sm_lid"), std::nullopt, p.sm_lid ? std::to_string(*p.sm_lid) : ""}},
          "run a subnet manager on the fabric (managed switch SM, UFM, or `systemctl enable --now opensm` on "
          "one host)"));
    }
  }
  return out;
}
}  // namespace

extern const Rule kIbNoSubnetManager = {shared_rules::kIbNoSubnetManager, check};
}  // namespace railkit::doctor
