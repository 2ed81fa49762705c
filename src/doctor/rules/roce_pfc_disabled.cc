// roce-pfc-disabled: a RoCE NIC with PFC on no priority runs lossy; unless the
// fabric is built for lossy RoCE, every drop costs a go-back-N retransmission.
#include "doctor/rules/roce_helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  std::vector<std::string> seen;
  std::vector<Finding> out;
  for (const auto& d : inv.rdma_devices)
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet" || p.netdev.empty() || !portUsable(p)) continue;
      if (std::find(seen.begin(), seen.end(), p.netdev) != seen.end()) continue;
      seen.push_back(p.netdev);
      auto it = inv.pfc_enabled.find(p.netdev);
      if (it == inv.pfc_enabled.end() || it->second != 0) continue;  // unknown or enabled somewhere
      out.push_back(makeFinding(
          kRocePfcDisabled, p.netdev,
          "PFC is enabled on no priority of " + p.netdev + " (" + d.name + ":" + std::to_string(p.port) +
              "): RoCE traffic is lossy, and a dropped packet stalls its queue pair until retransmission",
          {{dcbSource(p.netdev), std::nullopt, pfcText(it->second)}},
          "dcb pfc set dev " + p.netdev + " prio-pfc 3:on (or mlnx_qos -i " + p.netdev +
              " --pfc 0,0,0,1,0,0,0,0), the same priority on the switches, and NCCL_IB_TC=106"));
    }
  return out;
}

}  // namespace

extern const Rule kRocePfcDisabled = {
    {"roce-pfc-disabled", Severity::kWarning, "PFC enabled on no priority of a RoCE NIC",
     R"(RoCE assumes a lossless Ethernet: Priority Flow Control pauses one priority instead of dropping its
packets. With PFC off everywhere a congested switch drops RDMA packets and the sender goes back to
the lost one after a timeout, which shows up as collectives at a fraction of line rate and
'NET/IB : Got completion ... error 12' (retry exceeded) under load. Fabrics built for lossy RoCE
(ECN only, NIC-side selective repeat) are the exception: then ignore this warning.
railkit reads the IEEE DCB PFC state over netlink (what `dcb pfc show dev <netdev>` prints); when
the driver does not answer (no DCB support, a VF, no permission) the state is unknown and nothing
is reported. `railkit inspect --json` shows it under "dcb" (null = unknown).)",
     R"(Fix: enable PFC on one priority on the hosts and every switch port, and send RDMA there:
  dcb pfc set dev <netdev> prio-pfc 3:on      # or: mlnx_qos -i <netdev> --pfc 0,0,0,1,0,0,0,0
  NCCL_IB_TC=106                             # DSCP 26 -> priority 3)"},
    check};

}  // namespace railkit::doctor
