// roce-multirail-arp: with the default ARP sysctls every rail answers ARP for
// every local address and announces any of them, so peers learn the wrong
// MAC for a rail's address ("ARP flux") and RoCE v2 sends to the wrong port.
#include "doctor/rules/roce_helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  std::vector<Finding> out;
  for (const auto& group : sharedSubnets(inv)) {
    for (const auto& rail : group) {
      auto ignore = effectiveSysctl(inv, rail.netdev, &model::Ipv4Sysctls::arp_ignore);
      auto announce = effectiveSysctl(inv, rail.netdev, &model::Ipv4Sysctls::arp_announce);
      std::vector<std::string> wrong;
      if (ignore && *ignore == 0) wrong.push_back("arp_ignore=0 (expected 1)");
      if (announce && *announce < 2)
        wrong.push_back("arp_announce=" + std::to_string(*announce) + " (expected 2)");
      if (wrong.empty()) continue;
      auto evidence = sysctlEvidence(inv, rail.netdev, &model::Ipv4Sysctls::arp_ignore, "arp_ignore");
      for (auto& e : sysctlEvidence(inv, rail.netdev, &model::Ipv4Sysctls::arp_announce, "arp_announce"))
        evidence.push_back(std::move(e));
      out.push_back(makeFinding(kRoceMultirailArp, rail.netdev,
                                rail.netdev + " (" + rail.port + ") shares " + rail.subnet() +
                                    " with other RoCE netdevs and has " + joinNames(wrong) +
                                    ": it answers ARP for the other rails' addresses",
                                std::move(evidence),
                                "sysctl -w " + sysctlSetting(rail.netdev, "arp_ignore", 1) + " " +
                                    sysctlSetting(rail.netdev, "arp_announce", 2)));
    }
  }
  return out;
}

}  // namespace

extern const Rule kRoceMultirailArp = {
    {"roce-multirail-arp", Severity::kWarning,
     "ARP sysctls let RoCE netdevs that share a subnet answer for each other",
     R"(Linux answers ARP for any local address on any interface (arp_ignore=0) and may use any local
address as the source of its ARP requests (arp_announce=0). With several RoCE rails in one subnet
a peer then learns rail 1's MAC for rail 2's address, and RoCE v2 traffic for rail 2 lands on
rail 1's port (or is dropped by the switch). arp_ignore=1 answers only for addresses of the
receiving interface; arp_announce=2 always uses the best local address of the outgoing one. The
kernel applies the larger of net.ipv4.conf.all.* and the interface's value.)",
     R"(Fix, for every RoCE netdev:
  sysctl -w net.ipv4.conf.<netdev>.arp_ignore=1 net.ipv4.conf.<netdev>.arp_announce=2
and persist it in /etc/sysctl.d/ (or the CNI tuning plugin for pod interfaces).)"},
    check};

}  // namespace railkit::doctor
