// The network namespace's routing state and DCB in the inventory: read live
// (rtnetlink, DCB netlink, /proc/sys) or from live.json, and written back as
// the same JSON, so `snapshot` captures exactly what `doctor --root` reads.
#include "sys/net_state.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_util.h"
#include "core/strings.h"
#include "model/collect_parts.h"
#include "sys/ethtool.h"
#include "sys/paths.h"

namespace railkit::sys {
// A route's JSON is its fields under the same names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Route, table, type, dst, dev, src, gateway)
}  // namespace railkit::sys

namespace railkit::model {
namespace {
using nlohmann::json;

std::optional<int> readSysctl(const FileRoot& live, const std::string& iface, const char* name) {
  auto line = live.readLine(std::string(sys::paths::kProcSysIpv4Conf) + "/" + iface + "/" + name);
  if (!line) return std::nullopt;
  auto v = parseUint(trim(*line));
  if (!v || *v > 1000) return std::nullopt;
  return static_cast<int>(*v);
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<int> smallInt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  auto v = it->get<int64_t>();
  if (v < 0 || v > 1000) return std::nullopt;
  return static_cast<int>(v);
}

// The RoCE netdevs: the only ones whose PFC matters here.
std::vector<std::string> roceNetdevs(const Inventory& inv) {
  std::vector<std::string> out;
  for (const auto& d : inv.rdma_devices)
    for (const auto& p : d.ports)
      if (p.link_layer == "Ethernet" && !p.netdev.empty() &&
          std::find(out.begin(), out.end(), p.netdev) == out.end())
        out.push_back(p.netdev);
  return out;
}

}  // namespace

void addLiveNetworkState(const FileRoot& live, Inventory& inv) {
  if (auto rules = sys::liveRoutingRules()) inv.routing.rules = std::move(*rules);
  if (auto routes = sys::liveRoutes()) inv.routing.routes = std::move(*routes);
  std::vector<std::string> names{"all"};
  for (const auto& n : inv.interfaces) names.push_back(n.name);
  for (const auto& name : names) {
    Ipv4Sysctls s{readSysctl(live, name, "rp_filter"), readSysctl(live, name, "arp_ignore"),
                  readSysctl(live, name, "arp_announce")};
    if (s.rp_filter || s.arp_ignore || s.arp_announce) inv.routing.sysctls[name] = s;
  }
  for (const auto& netdev : roceNetdevs(inv)) {
    if (auto mask = sys::livePfcEnabled(netdev)) inv.pfc_enabled[netdev] = *mask;
    auto stats = sys::liveEthtoolStats(netdev);
    if (!stats) continue;
    std::vector<Inventory::PfcPauseFrames> pause;
    for (const auto& [name, value] : *stats)
      if (auto p = sys::pfcPauseStat(name)) pause.push_back({p->priority, p->received, value});
    if (!pause.empty()) inv.pfc_pause[netdev] = std::move(pause);
  }
}

json networkStateToJson(const Inventory& inv) {
  json out = json::object();
  json routing = json::object();
  if (inv.routing.rules) {
    routing["rules"] = json::array();
    for (const auto& r : *inv.routing.rules)
      routing["rules"].push_back({{"priority", r.priority},
                                  {"from", r.from},
                                  {"to", r.to},
                                  {"iif", r.iif},
                                  {"oif", r.oif},
                                  {"fwmark", jsonOpt(r.fwmark)},
                                  {"table", r.table}});
  }
  if (inv.routing.routes) routing["routes"] = *inv.routing.routes;
  if (!inv.routing.sysctls.empty()) {
    routing["sysctls"] = json::object();
    for (const auto& [name, s] : inv.routing.sysctls)
      routing["sysctls"][name] = {{"rp_filter", jsonOpt(s.rp_filter)},
                                  {"arp_ignore", jsonOpt(s.arp_ignore)},
                                  {"arp_announce", jsonOpt(s.arp_announce)}};
  }
  if (!routing.empty()) out["routing"] = std::move(routing);
  if (!inv.pfc_enabled.empty()) {
    out["dcb"] = json::object();
    for (const auto& [name, mask] : inv.pfc_enabled) {
      json prios = json::array();
      for (int p = 0; p < 8; ++p)
        if (mask & (1u << p)) prios.push_back(p);
      out["dcb"][name] = {{"pfc_enabled", prios}};
    }
  }
  if (!inv.pfc_pause.empty()) {
    out["pfc_pause"] = json::object();
    for (const auto& [name, counters] : inv.pfc_pause) {
      json list = json::array();
      for (const auto& c : counters)
        list.push_back(
            {{"priority", c.priority}, {"direction", c.received ? "rx" : "tx"}, {"frames", c.frames}});
      out["pfc_pause"][name] = std::move(list);
    }
  }
  return out;
}

void networkStateFromJson(const json& live, Inventory& inv) {
  if (auto it = live.find("routing"); it != live.end() && it->is_object()) {
    const auto& routing = *it;
    if (auto r = routing.find("rules"); r != routing.end() && r->is_array()) {
      inv.routing.rules.emplace();
      for (const auto& j : *r) {
        if (!j.is_object()) continue;
        RoutingRule rule;
        if (auto p = j.find("priority"); p != j.end() && p->is_number_unsigned())
          rule.priority = static_cast<uint32_t>(p->get<uint64_t>());
        rule.from = str(j, "from");
        rule.to = str(j, "to");
        rule.iif = str(j, "iif");
        rule.oif = str(j, "oif");
        if (auto m = j.find("fwmark"); m != j.end() && m->is_number_unsigned())
          rule.fwmark = static_cast<uint32_t>(m->get<uint64_t>());
        rule.table = str(j, "table");
        inv.routing.rules->push_back(std::move(rule));
      }
    }
    if (auto r = routing.find("routes"); r != routing.end() && r->is_array()) {
      inv.routing.routes.emplace();
      for (const auto& j : *r) {
        if (!j.is_object()) continue;
        inv.routing.routes->push_back({str(j, "table"), str(j, "type"), str(j, "dst"), str(j, "dev"),
                                       str(j, "src"), str(j, "gateway")});
      }
    }
    if (auto s = routing.find("sysctls"); s != routing.end() && s->is_object())
      for (const auto& [name, j] : s->items())
        if (j.is_object())
          inv.routing.sysctls[name] = {smallInt(j, "rp_filter"), smallInt(j, "arp_ignore"),
                                       smallInt(j, "arp_announce")};
  }
  if (auto it = live.find("dcb"); it != live.end() && it->is_object()) {
    for (const auto& [name, j] : it->items()) {
      if (!j.is_object()) continue;
      auto prios = j.find("pfc_enabled");
      if (prios == j.end() || !prios->is_array()) continue;  // unknown, not "none"
      uint8_t mask = 0;
      for (const auto& p : *prios)
        if (p.is_number_integer() && p.get<int64_t>() >= 0 && p.get<int64_t>() < 8)
          mask |= static_cast<uint8_t>(1u << p.get<int64_t>());
      inv.pfc_enabled[name] = mask;
    }
  }
  if (auto it = live.find("pfc_pause"); it != live.end() && it->is_object()) {
    for (const auto& [name, list] : it->items()) {
      if (!list.is_array()) continue;
      std::vector<Inventory::PfcPauseFrames> pause;
      for (const auto& j : list) {
        if (!j.is_object()) continue;
        auto prio = j.find("priority");
        auto frames = j.find("frames");
        std::string direction = str(j, "direction");
        if (prio == j.end() || !prio->is_number_integer() || frames == j.end() ||
            !frames->is_number_unsigned() || (direction != "rx" && direction != "tx"))
          continue;
        int64_t p = prio->get<int64_t>();
        if (p < 0 || p > 7) continue;
        pause.push_back({static_cast<int>(p), direction == "rx", frames->get<uint64_t>()});
      }
      if (!pause.empty()) inv.pfc_pause[name] = std::move(pause);
    }
  }
}

}  // namespace railkit::model
