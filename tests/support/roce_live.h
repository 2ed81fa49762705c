#pragma once
// railkit/live.json for NodeBuilder::healthyRoce(): the eight rails
// ens<i>f0np0 have 10.10.<i>.1/16, all in one subnet (the multi-rail case
// the routing rules judge), with each part switchable between healthy,
// broken and absent (unknown).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace railkit::testing {

struct RoceLive {
  bool routing = true;               // write routing.rules / routing.routes at all
  bool policy_routing = true;        // per-rail "from 10.10.i.1 lookup 10i" + table routes
  std::optional<int> rp_filter = 2;  // conf/all and every rail; nullopt = no sysctls
  int arp_ignore = 1, arp_announce = 2;
  std::optional<int> pfc_mask = 0x08;  // PFC on priority 3; nullopt = no dcb
};

inline std::string roceRail(int i) {
  return "ens" + std::to_string(i) + "f0np0";
}
inline std::string roceRailIp(int i) {
  return "10.10." + std::to_string(i) + ".1";
}

inline std::string roceLiveJson(const RoceLive& o) {
  using nlohmann::json;
  json live = {{"addresses", {{"eth0", {"10.244.1.7/24"}}, {"lo", {"127.0.0.1/8"}}}}};
  json rules = json::array(), routes = json::array(), sysctls = json::object(), dcb = json::object();
  rules.push_back({{"priority", 0}, {"from", ""}, {"table", "local"}});
  routes.push_back({{"table", "main"},
                    {"type", "unicast"},
                    {"dst", "default"},
                    {"dev", "eth0"},
                    {"gateway", "10.244.1.1"}});
  routes.push_back({{"table", "main"},
                    {"type", "unicast"},
                    {"dst", "10.10.0.0/16"},
                    {"dev", roceRail(0)},
                    {"src", roceRailIp(0)}});
  auto sysctl = [&](const std::string& name) {
    sysctls[name] = {
        {"rp_filter", *o.rp_filter}, {"arp_ignore", o.arp_ignore}, {"arp_announce", o.arp_announce}};
  };
  if (o.rp_filter) sysctl("all");
  for (int i = 0; i < 8; ++i) {
    std::string dev = roceRail(i), table = std::to_string(100 + i);
    live["addresses"][dev] = {roceRailIp(i) + "/16"};
    if (o.policy_routing) {
      rules.push_back({{"priority", 100 + i}, {"from", roceRailIp(i) + "/32"}, {"table", table}});
      routes.push_back({{"table", table},
                        {"type", "unicast"},
                        {"dst", "10.10.0.0/16"},
                        {"dev", dev},
                        {"src", roceRailIp(i)}});
    }
    if (o.rp_filter) sysctl(dev);
    if (o.pfc_mask) {
      json prios = json::array();
      for (int p = 0; p < 8; ++p)
        if (*o.pfc_mask >> p & 1) prios.push_back(p);
      dcb[dev] = {{"pfc_enabled", prios}};
    }
  }
  rules.push_back({{"priority", 32766}, {"from", ""}, {"table", "main"}});
  rules.push_back({{"priority", 32767}, {"from", ""}, {"table", "default"}});
  json routing = json::object();
  if (o.routing) routing = {{"rules", rules}, {"routes", routes}};
  if (o.rp_filter) routing["sysctls"] = sysctls;
  if (!routing.empty()) live["routing"] = routing;
  if (o.pfc_mask) live["dcb"] = dcb;
  return live.dump(2) + "\n";
}

}  // namespace railkit::testing
