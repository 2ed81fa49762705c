// roce-multirail-no-policy-routing: several RoCE netdevs in one IPv4 subnet
// share one main-table route, so traffic from every rail's address leaves
// through the first rail; per-source rules and tables keep each rail's
// packets (and its ARP/neighbour resolution for RoCE v2) on its own port.
#include "doctor/rules/roce_helpers.h"

namespace railkit::doctor {
namespace {

bool ordinaryTable(const std::string& t) {
  return t.empty() || t == "local" || t == "main" || t == "default";
}

std::string ruleText(const model::RoutingRule& r) {
  return std::to_string(r.priority) + ": from " + (r.from.empty() ? "all" : r.from) +
         (r.to.empty() ? "" : " to " + r.to) + (r.iif.empty() ? "" : " iif " + r.iif) +
         (r.oif.empty() ? "" : " oif " + r.oif) + (r.table.empty() ? "" : " lookup " + r.table);
}

// The priority of the main-table lookup: a source rule after it is never
// reached for destinations in the shared subnet.
uint32_t mainPriority(const std::vector<model::RoutingRule>& rules) {
  for (const auto& r : rules)
    if (r.table == "main" && r.from.empty() && r.to.empty() && r.iif.empty() && r.oif.empty() && !r.fwmark)
      return r.priority;
  return 32766;
}

// A rule that sends traffic from `rail` (and from no other rail of its
// subnet) to a table with a route out of the rail's netdev.
const model::RoutingRule* policyRule(const model::Inventory& inv, const RailAddress& rail,
                                     const std::vector<RailAddress>& group) {
  const auto& rules = *inv.routing.rules;
  uint32_t main = mainPriority(rules);
  for (const auto& r : rules) {
    if (ordinaryTable(r.table) || r.from.empty() || r.priority >= main || r.fwmark || !r.iif.empty())
      continue;
    if (!r.oif.empty() && r.oif != rail.netdev) continue;
    auto from = parseAddressOrNet(r.from);
    if (!from || !from->contains(rail.net.address)) continue;
    bool others = std::any_of(group.begin(), group.end(), [&](const RailAddress& o) {
      return o.netdev != rail.netdev && from->contains(o.net.address);
    });
    if (others) continue;
    for (const auto& route : *inv.routing.routes)
      if (route.table == r.table && route.dev == rail.netdev &&
          (route.type.empty() || route.type == "unicast"))
        return &r;
  }
  return nullptr;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  if (!inv.routing.rules || !inv.routing.routes) return {};  // unknown
  std::vector<Finding> out;
  int table = 100;
  for (const auto& group : sharedSubnets(inv)) {
    std::string subnet = group.front().subnet();
    std::string main_dev;
    for (const auto& route : *inv.routing.routes)
      if (route.table == "main" && route.dst == subnet && (route.type.empty() || route.type == "unicast")) {
        main_dev = route.dev;
        break;
      }
    for (const auto& rail : group) {
      ++table;
      if (policyRule(inv, rail, group)) continue;
      std::vector<std::string> others;
      for (const auto& r : group)
        if (r.netdev != rail.netdev) others.push_back(r.netdev);
      std::string ip = ipv4Text(rail.net.address);
      std::vector<Evidence> evidence;
      for (const auto& r : group)
        evidence.push_back({std::string(sys::paths::kClassNet) + "/" + r.netdev, std::nullopt,
                            r.netdev + " (" + r.port + ") " + r.address});
      std::string rules;
      for (const auto& r : *inv.routing.rules) rules += (rules.empty() ? "" : "; ") + ruleText(r);
      evidence.push_back({"ip -4 rule", std::nullopt, rules.empty() ? "no rules" : rules});
      if (!main_dev.empty())
        evidence.push_back({"ip -4 route show table main", std::nullopt, subnet + " dev " + main_dev});
      out.push_back(makeFinding(
          kRoceMultirailNoPolicyRouting, rail.netdev,
          rail.netdev + " (" + rail.port + ", " + rail.address + ") shares " + subnet + " with " +
              joinNames(others, 8) + " and no policy rule routes traffic from " + ip + " out of " +
              rail.netdev +
              (main_dev.empty() || main_dev == rail.netdev ? ""
                                                           : "; it leaves through " + main_dev + " instead"),
          std::move(evidence),
          "ip route add " + subnet + " dev " + rail.netdev + " src " + ip + " table " +
              std::to_string(table) + "; ip rule add from " + ip + "/32 table " + std::to_string(table) +
              " priority " + std::to_string(table)));
    }
  }
  return out;
}

}  // namespace

extern const Rule kRoceMultirailNoPolicyRouting = {
    {"roce-multirail-no-policy-routing", Severity::kError,
     "Several RoCE netdevs share an IPv4 subnet without policy routing",
     R"(When two or more RoCE interfaces of one node have addresses in one subnet (e.g. all eight rails in
one /16, or RoCE VFs of several NICs in a pod from one IP pool), the main table holds one route
for that subnet and every packet to it, whatever its source address, leaves through the first
interface. RoCE v2 resolves the peer's MAC through that route: connections from the other rails
fail ('failed to modify QP to RTR', rdma_cm address errors) or run over the wrong port, and ARP
answers arrive on the wrong NIC. Each rail needs its own table selected by its source address.
railkit reads `ip rule` and `ip route show table all` of the pod's network namespace (netlink), or
railkit/live.json in a snapshot; without them it says nothing.)",
     R"(Fix, per rail (here rail 2, 10.0.0.2 on eth2):
  ip route add 10.0.0.0/24 dev eth2 src 10.0.0.2 table 102
  ip rule add from 10.0.0.2/32 table 102 priority 102
(and a default route in table 102 when peers sit in other subnets). With NetworkManager use
routing-rules/route-table on the connection; in Kubernetes the CNI (e.g. Spiderpool's
coordinator, or setNicAddr-style node scripts) must install them for every RDMA interface.)"},
    check};

}  // namespace railkit::doctor
