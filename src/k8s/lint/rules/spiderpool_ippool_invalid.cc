// spiderpool-ippool-invalid: a SpiderIPPool whose addresses contradict its
// subnet. The CRD types them as plain strings, so the API server takes a
// subnet with host bits set, an ips entry past the broadcast address or a
// gateway outside the subnet; the pod then gets an address its rail cannot
// use, or none.
#include "k8s/lint/rules/rules.h"
#include "k8s/lint/rules/spiderpool.h"

namespace railkit::k8s::rules {
namespace {

void report(const SpiderPool& pool, const YamlNode* node, const std::string& path, const std::string& message,
            const std::string& fix, std::vector<Finding>& out) {
  out.push_back(lintFinding(kSpiderpoolIppoolInvalid, *pool.object, node != nullptr ? node->line : 0, path,
                            message, fix));
}

// ips: every entry an address or a range, inside the subnet, clear of its
// network and broadcast addresses.
void checkIps(const SpiderPool& pool, const Ipv4Net* subnet, std::vector<Finding>& out) {
  const YamlNode* ips = pool.object->root->at({"spec", "ips"});
  if (ips == nullptr || !ips->isSeq()) return;
  size_t next = 0;
  for (size_t i = 0; i < ips->items.size(); ++i) {
    std::string path = "spec.ips[" + std::to_string(i) + "]";
    const std::string& text = ips->items[i].text();
    if (next < pool.ranges.size() && pool.ranges[next].index == i) {
      const IpRange& range = pool.ranges[next++];
      if (subnet == nullptr) continue;
      bool inside = subnet->contains(range.first) && subnet->contains(range.last);
      bool edges = subnet->prefix < 31 && (range.first == subnet->network() || range.last == subnet->last());
      if (!inside || edges)
        report(
            pool, &ips->items[i], path,
            "ips entry " + text + (inside ? " takes the network or broadcast address of " : " is outside ") +
                "subnet " + ipv4NetText(*subnet) + " (usable " + ipv4Text(subnet->network() + 1) + "-" +
                ipv4Text(subnet->last() - 1) + ")",
            "keep every address of ips inside the subnet, between its network and broadcast addresses", out);
      continue;
    }
    report(pool, &ips->items[i], path,
           "ips entry '" + text.substr(0, 40) + "' is not an IPv4 address or FIRST-LAST range",
           "write each entry as 172.17.0.2 or 172.17.0.2-172.17.0.30 (four octets of 0-255)", out);
  }
}

void checkPool(const SpiderPool& pool, std::vector<Finding>& out) {
  const Ipv4Net* subnet = pool.subnet ? &*pool.subnet : nullptr;
  if (pool.subnet_node != nullptr && !pool.subnet)
    report(pool, pool.subnet_node, "spec.subnet",
           "subnet '" + pool.subnet_node->text().substr(0, 40) + "' is not an IPv4 CIDR",
           "write the subnet as NETWORK/PREFIX, e.g. 172.17.0.0/24", out);
  if (subnet != nullptr && subnet->hostBits())
    report(
        pool, pool.subnet_node, "spec.subnet",
        "subnet " + pool.subnet_node->text() + " has host bits set: its network is " + ipv4NetText(*subnet),
        "write the network address with the prefix the rail really has (" + ipv4NetText(*subnet) +
            ", or a longer prefix for a smaller subnet)",
        out);
  checkIps(pool, subnet, out);
  if (subnet == nullptr) return;
  const YamlNode* gateway = pool.object->root->at({"spec", "gateway"});
  if (gateway != nullptr && gateway->isScalar() && !gateway->text().empty()) {
    auto address = parseIpv4Address(gateway->text());
    if (!address || !subnet->contains(*address))
      report(pool, gateway, "spec.gateway",
             "gateway " + gateway->text() + " is not an address of subnet " + ipv4NetText(*subnet),
             "name the leaf's (the router's) address inside the subnet", out);
    else
      for (const IpRange& range : pool.ranges)
        if (*address >= range.first && *address <= range.last)
          report(pool, gateway, "spec.gateway",
                 "gateway " + gateway->text() + " is also in ips entry " + range.node->text() +
                     ": a pod would be given the router's address",
                 "leave the gateway out of ips", out);
  }
  const YamlNode* routes = pool.object->root->at({"spec", "routes"});
  if (routes == nullptr || !routes->isSeq()) return;
  for (size_t i = 0; i < routes->items.size(); ++i) {
    const YamlNode* gw = routes->items[i].get("gw");
    if (gw == nullptr) continue;  // the schema rule reports the missing field
    auto address = parseIpv4Address(gw->text());
    if (!address || !subnet->contains(*address))
      report(pool, gw, "spec.routes[" + std::to_string(i) + "].gw",
             "route via " + gw->text() + ", which subnet " + ipv4NetText(*subnet) + " cannot reach directly",
             "route through an address inside the pool's subnet (its gateway)", out);
  }
}

}  // namespace

void checkSpiderpoolIppoolInvalid(const LintInput& input, std::vector<Finding>& out) {
  for (const SpiderPool& pool : spiderPools(input)) checkPool(pool, out);
}

extern const Rule kSpiderpoolIppoolInvalid = {
    {"spiderpool-ippool-invalid", Severity::kError, "SpiderIPPool addresses contradict its subnet",
     R"(A SpiderIPPool's subnet, ips, gateway and routes are plain strings to the API server. A subnet
with host bits set (172.16.11.0/16) says another network than the rail has; an ips entry outside
the subnet, or on its network or broadcast address, hands pods addresses the rail cannot use; a
gateway or route next hop outside the subnet is unreachable, so traffic to the other nodes'
blocks (the exclusive subnet plan) never leaves the pod.)",
     R"(Fix: write the subnet as its network address, keep ips between its network and broadcast
addresses, and route through the pool's own gateway.)"},
    checkSpiderpoolIppoolInvalid};

}  // namespace railkit::k8s::rules
