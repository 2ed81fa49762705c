// spiderpool-ippool-overlap: SpiderIPPools that hand out the same addresses,
// or rails whose pools share a subnet. Two pools with a common address give
// it to two pods; two rails in one subnet leave the kernel one route for
// both, so one rail's traffic goes out through the other's NIC (what
// railkit doctor's roce-multirail rules find on a node).
#include <map>

#include "k8s/lint/rules/rules.h"
#include "k8s/lint/rules/spiderpool.h"

namespace railkit::k8s::rules {
namespace {

// The SpiderMultusConfigs (rails) naming each pool, by pool name.
std::map<std::string, std::vector<const Object*>> railsOfPools(const std::vector<SpiderPool>& pools,
                                                               const std::vector<SpiderNetwork>& networks) {
  std::map<std::string, std::vector<const Object*>> out;
  for (const SpiderPool& pool : pools)
    for (const SpiderNetwork& network : networks)
      for (const std::string& reference : network.pools)
        if (poolNameMatches(reference, pool.object->name)) {
          out[pool.object->name].push_back(network.object);
          break;
        }
  return out;
}

bool shareRail(const std::vector<const Object*>& a, const std::vector<const Object*>& b) {
  for (const Object* x : a)
    for (const Object* y : b)
      if (x == y) return true;
  return false;
}

// Reports the first common address of `a` and `b`, on b; true if any.
bool sharedAddresses(const SpiderPool& a, const SpiderPool& b, std::vector<Finding>& out) {
  for (const IpRange& x : a.ranges)
    for (const IpRange& y : b.ranges) {
      if (x.last < y.first || y.last < x.first) continue;
      out.push_back(lintFinding(
          kSpiderpoolIppoolOverlap, *b.object, y.node->line, "spec.ips[" + std::to_string(y.index) + "]",
          "ips entry " + y.node->text() + " overlaps " + a.object->ref() + "'s " + x.node->text() + " (" +
              ipv4Text(std::max(x.first, y.first)) + " can be given to two pods)",
          "give every pool addresses no other pool has"));
      return true;
    }
  return false;
}

}  // namespace

void checkSpiderpoolIppoolOverlap(const LintInput& input, std::vector<Finding>& out) {
  std::vector<SpiderPool> pools = spiderPools(input);
  auto rails = railsOfPools(pools, spiderNetworks(input));
  for (size_t j = 0; j < pools.size(); ++j)
    for (size_t i = 0; i < j; ++i) {
      const SpiderPool& a = pools[i];
      const SpiderPool& b = pools[j];
      if (sharedAddresses(a, b, out)) continue;
      if (!a.subnet || !b.subnet || !a.subnet->overlaps(*b.subnet)) continue;
      const auto& rails_a = rails[a.object->name];
      const auto& rails_b = rails[b.object->name];
      // Pools of one rail may split its subnet; pools no rail names say nothing about rails.
      if (rails_a.empty() || rails_b.empty() || shareRail(rails_a, rails_b)) continue;
      out.push_back(lintFinding(
          kSpiderpoolIppoolOverlap, *b.object, b.subnet_node->line, "spec.subnet",
          "subnet " + b.subnet_node->text() + " (rail " + rails_b.front()->ref() + ") overlaps " +
              a.object->ref() + "'s " + a.subnet_node->text() + " (rail " + rails_a.front()->ref() +
              "): two rails in one subnet share one route, so one rail's traffic leaves through the other",
          "give every rail a subnet of its own (one range per rail, or per node and rail)"));
    }
}

extern const Rule kSpiderpoolIppoolOverlap = {
    {"spiderpool-ippool-overlap", Severity::kError, "SpiderIPPools overlap (addresses, or rails' subnets)",
     R"(Two SpiderIPPools whose ips share an address can give it to two pods. Two pools named by
different SpiderMultusConfigs (different rails) whose subnets overlap put two rails in one subnet:
the pod (and the node) has one route for both, so traffic meant for one rail leaves through the
other's NIC and RoCE pairs the wrong ports.)",
     R"(Fix: one subnet per rail (the shared plan), or one block of each rail's range per node (the
exclusive plan), with no address in two pools.)"},
    checkSpiderpoolIppoolOverlap};

}  // namespace railkit::k8s::rules
