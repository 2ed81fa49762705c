// roce-ecn-disabled: RoCE congestion control (DCQCN) needs ECN on both ends:
// the receiver (notification point) turns CE marks into CNPs and the sender
// (reaction point) slows down. With either off on NCCL's priority, congestion
// becomes PFC storms or drops.
#include "doctor/rules/roce_helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  auto tc = ncclTrafficClass(inv.process.env);
  if (!tc) return {};
  std::vector<std::string> seen;
  std::vector<Finding> out;
  for (const auto& [dev, port] : ncclPorts(inv).ports) {
    if (port->link_layer != "Ethernet" || port->netdev.empty()) continue;
    if (std::find(seen.begin(), seen.end(), port->netdev) != seen.end()) continue;
    seen.push_back(port->netdev);
    const auto* n = findInterface(inv, port->netdev);
    if (!n) continue;
    std::vector<std::string> off;
    std::vector<Evidence> evidence;
    std::string prio = std::to_string(tc->priority);
    for (auto [mask, side] : {std::pair{n->ecn_np, "roce_np"}, std::pair{n->ecn_rp, "roce_rp"}}) {
      if (!mask || (*mask & (1u << tc->priority))) continue;  // unknown or enabled
      off.push_back(side);
      evidence.push_back(
          {netPath(n->name, std::string("ecn/") + side + "/enable/" + prio), std::nullopt, "0"});
    }
    if (off.empty()) continue;
    evidence.push_back(envEvidence(inv.process.env, "NCCL_IB_TC"));
    out.push_back(makeFinding(kRoceEcnDisabled, n->name,
                              "ECN is disabled (" + joinNames(off) + ") on priority " + prio + " of " +
                                  n->name + " (" + dev->name + ":" + std::to_string(port->port) +
                                  "), the priority NCCL's traffic uses: no DCQCN congestion control",
                              std::move(evidence),
                              "for s in roce_np roce_rp; do echo 1 > /sys/class/net/" + n->name +
                                  "/ecn/$s/enable/" + prio + "; done (and ECN marking on the switches)"));
  }
  return out;
}

}  // namespace

extern const Rule kRoceEcnDisabled = {
    {"roce-ecn-disabled", Severity::kWarning, "ECN (DCQCN) disabled on a RoCE NIC for NCCL's priority",
     R"(RoCE's congestion control (DCQCN) works only when ECN is on at both ends: the receiving NIC (the
notification point, roce_np) answers switch CE marks with CNPs and the sending NIC (the reaction
point, roce_rp) lowers its rate. mlx5 exposes one switch per priority in
/sys/class/net/<netdev>/ecn/roce_np/enable/<prio> and .../roce_rp/enable/<prio>. railkit checks the
priority NCCL's traffic uses: NCCL_IB_TC >> 5 (DSCP >> 3 under the default DSCP trust mapping;
priority 0 when NCCL_IB_TC is unset). NICs without these files (not mlx5, or a VF) are not judged.)",
     R"(Fix:
  echo 1 > /sys/class/net/<netdev>/ecn/roce_np/enable/<prio>
  echo 1 > /sys/class/net/<netdev>/ecn/roce_rp/enable/<prio>
and ECN marking (WRED/ECN thresholds) for that queue on every switch.)"},
    check};

}  // namespace railkit::doctor
