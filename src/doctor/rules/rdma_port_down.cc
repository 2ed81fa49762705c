// rdma-port-down: a port that is not LinkUp/ACTIVE carries no traffic; when
// no port at all is usable the job cannot use RDMA.
#include "doctor/rules/helpers.h"
#include "sys/parsers.h"

namespace railkit::doctor {
namespace {
// The physical state as the file says it: the text, and the code too when
// the text is not the one the kernel prints for that code (a port with
// "3: LinkUp" is Disabled, whatever the word says: model::physLinkUp).
std::string physText(const model::RdmaPort& p) {
  if (p.phys_state.empty()) return "?";
  if (!p.phys_state_code) return p.phys_state;
  auto meant = sys::physStateNameOfCode(*p.phys_state_code);
  if (meant == p.phys_state) return p.phys_state;
  std::string code = std::to_string(*p.phys_state_code);
  return "phys_state \"" + code + ": " + p.phys_state + "\" (code " + code + " is " +
         (meant.empty() ? std::string("no known state") : std::string(meant)) +
         (*p.phys_state_code == 5 ? "" : ", not LinkUp") + "; the text disagrees with the code)";
}

// The file's text as read; with its code when the two disagree.
std::string physEvidence(const model::RdmaPort& p) {
  if (!p.phys_state_code || sys::physStateNameOfCode(*p.phys_state_code) == p.phys_state) return p.phys_state;
  return std::to_string(*p.phys_state_code) + ": " + p.phys_state;
}

std::vector<Finding> check(const DoctorInput& in) {
  std::vector<Finding> out;
  bool any_usable = false;
  for (const auto& d : in.inventory.rdma_devices)
    for (const auto& p : d.ports) any_usable = any_usable || portUsable(p);
  for (const auto& d : in.inventory.rdma_devices) {
    for (const auto& p : d.ports) {
      bool phys_bad = !p.phys_state.empty() && !model::physLinkUp(p);
      bool state_down = p.state == "DOWN";
      if (!phys_bad && !state_down) continue;
      std::string subject = d.name + ":" + std::to_string(p.port);
      out.push_back(makeFinding(
          kRdmaPortDown, any_usable ? Severity::kWarning : Severity::kError, subject,
          "port " + subject + " is " + (p.state.empty() ? "?" : p.state) + " / " + physText(p) +
              (any_usable ? "" : "; no port on this node is usable"),
          {{portPath(d.name, p.port, "state"), std::nullopt, p.state},
           {portPath(d.name, p.port, "phys_state"), std::nullopt, physEvidence(p)}},
          "check the cable and switch port (ibstat " + d.name + "; ip link set <netdev> up for RoCE)"));
    }
  }
  return out;
}
}  // namespace

extern const Rule kRdmaPortDown = {
    {"rdma-port-down", Severity::kError, "An RDMA port is down or not physically linked",
     R"(A port whose physical state is not LinkUp, or whose logical state is DOWN, carries no traffic. NCCL skips it or,
when it is named in NCCL_IB_HCA, fails. It is a warning while other ports work and an error when none does.)",
     R"(Fix: `ibstat` / `cat /sys/class/infiniband/<dev>/ports/<n>/phys_state`; reseat or replace the cable, check the
switch port, `ip link set <netdev> up` for RoCE, and `mlxlink -d <dev>` for link training errors.)"},
    check};
}  // namespace railkit::doctor
