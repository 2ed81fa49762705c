// roce-mtu-small: RoCE's RDMA MTU is limited by the netdev MTU; below 4200 the
// 4096-byte RDMA MTU is unavailable.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
constexpr int kMinMtu = 4200;

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  std::vector<Finding> out;
  for (const auto& d : inv.rdma_devices) {
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet" || p.netdev.empty()) continue;
      for (const auto& n : inv.interfaces) {
        if (n.name != p.netdev || !n.mtu || *n.mtu >= kMinMtu) continue;
        out.push_back(makeFinding(kRoceMtuSmall, n.name,
                                  "RoCE netdev " + n.name + " (" + d.name + ") has MTU " +
                                      std::to_string(*n.mtu) + ", below " + std::to_string(kMinMtu),
                                  {{std::string(sys::paths::kClassNet) + "/" + n.name + "/mtu", std::nullopt,
                                    std::to_string(*n.mtu)}},
                                  "ip link set " + n.name + " mtu 9000 (and the same on switch ports)"));
      }
    }
  }
  return out;
}
}  // namespace

extern const Rule kRoceMtuSmall = {
    {"roce-mtu-small", Severity::kWarning, "RoCE interface MTU below 4200",
     R"(RoCE carries RDMA packets in Ethernet frames; the active RDMA MTU is the largest of 256..4096 that fits the
netdev MTU. At 1500 it is 1024, which costs bandwidth and CPU per message.)",
     R"(Fix: `ip link set <netdev> mtu 9000` on hosts and jumbo frames on every switch port; with SR-IOV set `mtu: 9000`
in the SriovNetworkNodePolicy; check with `ibv_devinfo -v | grep active_mtu`.)"},
    check};
}  // namespace railkit::doctor
