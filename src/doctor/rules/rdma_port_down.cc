// rdma-port-down: a port that is not LinkUp/ACTIVE carries no traffic; when
// no port at all is usable the job cannot use RDMA.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
bool usable(const model::RdmaPort& p) {
  return p.phys_state == "LinkUp" && p.state == "ACTIVE";
}

std::vector<Finding> check(const DoctorInput& in) {
  std::vector<Finding> out;
  bool any_usable = false;
  for (const auto& d : in.inventory.rdma_devices)
    for (const auto& p : d.ports) any_usable = any_usable || usable(p);
  for (const auto& d : in.inventory.rdma_devices) {
    for (const auto& p : d.ports) {
      bool phys_bad = !p.phys_state.empty() && p.phys_state != "LinkUp";
      bool state_down = p.state == "DOWN";
      if (!phys_bad && !state_down) continue;
      std::string subject = d.name + ":" + std::to_string(p.port);
      out.push_back(makeFinding(
          "rdma-port-down", any_usable ? Severity::kWarning : Severity::kError, subject,
          "port " + subject + " is " + (p.state.empty() ? "?" : p.state) + " / " +
              (p.phys_state.empty() ? "?" : p.phys_state) +
              (any_usable ? "" : "; no port on this node is usable"),
          {{portPath(d.name, p.port, "state"), std::nullopt, p.state},
           {portPath(d.name, p.port, "phys_state"), std::nullopt, p.phys_state}},
          "check the cable and switch port (ibstat " + d.name + "; ip link set <netdev> up for RoCE)"));
    }
  }
  return out;
}
}  // namespace

extern const Rule kRdmaPortDown = {
    {"rdma-port-down", Severity::kError, "An RDMA port is down or not physically linked",
     R"(A port whose physical state is not LinkUp, or whose logical state is DOWN, carries no traffic. NCCL skips it or,
when it is named in NCCL_IB_HCA, fails. It is a warning while other ports work and an error when none does.
Fix: `ibstat` / `cat /sys/class/infiniband/<dev>/ports/<n>/phys_state`; reseat or replace the cable, check the
switch port, `ip link set <netdev> up` for RoCE, and `mlxlink -d <dev>` for link training errors.)"},
    check};
}  // namespace railkit::doctor
