// roce-multirail-rp-filter: strict reverse-path filtering drops packets that
// arrive on a rail other than the one the kernel would route the reply out
// of, which is the normal case when several rails share a subnet.
#include "doctor/rules/roce_helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  std::vector<Finding> out;
  for (const auto& group : sharedSubnets(inv)) {
    for (const auto& rail : group) {
      auto value = effectiveSysctl(inv, rail.netdev, &model::Ipv4Sysctls::rp_filter);
      if (value != 1) continue;  // 0 off, 2 loose, unknown: silent
      out.push_back(
          makeFinding(kRoceMultirailRpFilter, rail.netdev,
                      "rp_filter is strict (1) on " + rail.netdev + " (" + rail.port +
                          "), one of several RoCE netdevs in " + rail.subnet() +
                          ": packets that arrive on it but whose reply would route out of another rail "
                          "are dropped",
                      sysctlEvidence(inv, rail.netdev, &model::Ipv4Sysctls::rp_filter, "rp_filter"),
                      "sysctl -w " + sysctlSetting(rail.netdev, "rp_filter", 2) +
                          " (loose; the kernel applies the larger of conf/all and the interface's value, "
                          "so this is enough even with all=1)"));
    }
  }
  return out;
}

}  // namespace

extern const Rule kRoceMultirailRpFilter = {
    {"roce-multirail-rp-filter", Severity::kWarning, "Strict rp_filter on RoCE netdevs that share a subnet",
     R"(With rp_filter=1 (strict, the default of many distributions) the kernel drops a packet when the
route back to its source does not leave through the interface it arrived on. When several RoCE
rails share a subnet, that route is the same for all of them, so ARP requests and IP traffic
(rdma_cm, RoCE v2 address resolution, NCCL's bootstrap on a rail) arriving on the other rails are
dropped. The kernel uses the larger of net.ipv4.conf.all.rp_filter and the interface's value.)",
     R"(Fix:
  sysctl -w net.ipv4.conf.<netdev>.rp_filter=2   # loose; max(all, <netdev>) = 2 even with all=1
and persist it in /etc/sysctl.d/ (or the pod's securityContext.sysctls / CNI tuning plugin).)"},
    check};

}  // namespace railkit::doctor
