// nccl-ib-tc-not-lossless: PFC protects some priority, but the traffic class
// NCCL sends with maps to another one, so NCCL's traffic is the lossy kind.
#include "doctor/rules/roce_helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  auto tc = ncclTrafficClass(inv.process.env);
  if (!tc) return {};
  std::vector<std::string> netdevs, seen;
  std::vector<Evidence> evidence{envEvidence(inv.process.env, "NCCL_IB_TC")};
  uint8_t lossless = 0;
  for (const auto& [dev, port] : ncclPorts(inv).ports) {
    if (port->link_layer != "Ethernet" || port->netdev.empty()) continue;
    if (std::find(seen.begin(), seen.end(), port->netdev) != seen.end()) continue;
    seen.push_back(port->netdev);
    auto it = inv.pfc_enabled.find(port->netdev);
    // Unknown, PFC off everywhere (roce-pfc-disabled), or NCCL's priority protected.
    if (it == inv.pfc_enabled.end() || it->second == 0 || (it->second & (1u << tc->priority))) continue;
    netdevs.push_back(port->netdev);
    lossless |= it->second;
    evidence.push_back({dcbSource(port->netdev), std::nullopt, pfcText(it->second)});
  }
  if (netdevs.empty()) return {};
  int target = 0;
  while (!(lossless & (1u << target))) ++target;
  std::string why = tc->set ? "NCCL_IB_TC=" + std::to_string(tc->tc)
                            : std::string("NCCL_IB_TC is unset, so NCCL sends with traffic class 0");
  return {makeFinding(kNcclIbTcNotLossless, "NCCL_IB_TC",
                      why + " (priority " + std::to_string(tc->priority) +
                          ") but PFC protects only priority " + priorityList(lossless) + " on " +
                          joinNames(netdevs, 4) + ": NCCL's traffic is not lossless",
                      std::move(evidence),
                      "NCCL_IB_TC=" + std::to_string(target * 32 + 10) + " (DSCP " +
                          std::to_string(target * 8 + 2) + ", priority " + std::to_string(target) +
                          "), or enable PFC on priority " + std::to_string(tc->priority))};
}

}  // namespace

extern const Rule kNcclIbTcNotLossless = {
    {"nccl-ib-tc-not-lossless", Severity::kWarning, "NCCL_IB_TC maps to a priority without PFC",
     R"(NCCL_IB_TC is the IP traffic class (DSCP << 2 | ECN bits) of NCCL's RoCE packets; it defaults to 0.
The NIC puts each packet in a priority by its DSCP, and only priorities with PFC are lossless. When
PFC is on for, say, priority 3 but NCCL sends with class 0, NCCL's traffic is the lossy kind: drops
under congestion, retransmission timeouts, low and erratic bandwidth.
railkit assumes the usual setup, the NIC trusting DSCP with the default mapping priority = DSCP >> 3,
so priority = NCCL_IB_TC >> 5 (106 -> DSCP 26 -> priority 3; 0 -> priority 0). With PCP trust or a
custom dscp2prio map (mlnx_qos --trust, --dscp2prio) compare against that mapping by hand.)",
     R"(Fix: point NCCL at the lossless priority, e.g. for priority 3:
  env:
  - name: NCCL_IB_TC
    value: "106"
(and NCCL_IB_FIFO_TC for the control messages of NCCL 2.22+), or enable PFC on NCCL's priority on
the hosts and switches.)"},
    check};

}  // namespace railkit::doctor
