#pragma once
// Facts the RoCE multi-rail and lossless-network rules share: the RoCE
// netdevs and their IPv4 addresses, which of them share a subnet, the
// effective IPv4 sysctls, and the priority NCCL's traffic class maps to.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ipv4.h"
#include "core/strings.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {

// "10.0.0.1/24", or "10.0.0.1" as a /32 (what ip rule prints for a single
// address); nullopt for IPv6 and garbage.
inline std::optional<Ipv4Net> parseAddressOrNet(std::string_view text) {
  if (text.find('/') != std::string_view::npos) return parseIpv4Net(text);
  if (auto address = parseIpv4Address(text)) return Ipv4Net{*address, 32};
  return std::nullopt;
}

// A RoCE port's netdev with one of its IPv4 addresses.
struct RailAddress {
  std::string netdev;
  std::string port;     // "mlx5_0:1"
  std::string address;  // "10.0.0.1/24" as the interface has it
  Ipv4Net net;
  std::string subnet() const { return ipv4NetText(net); }
};

// Usable RoCE ports whose netdevs have IPv4 addresses, grouped by subnet;
// only groups of two netdevs or more (the multi-rail case). Empty when the
// addresses are unknown.
inline std::vector<std::vector<RailAddress>> sharedSubnets(const model::Inventory& inv) {
  std::vector<RailAddress> rails;
  for (const auto& d : inv.rdma_devices)
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet" || p.netdev.empty() || !portUsable(p)) continue;
      const auto* n = findInterface(inv, p.netdev);
      if (!n || !n->addresses_known) continue;
      if (std::any_of(rails.begin(), rails.end(), [&](const RailAddress& r) { return r.netdev == n->name; }))
        continue;
      for (const auto& a : n->addresses)
        if (auto net = parseAddressOrNet(a); net && net->prefix < 32)
          rails.push_back({n->name, d.name + ":" + std::to_string(p.port), a, *net});
    }
  std::vector<std::vector<RailAddress>> groups;
  for (const auto& r : rails) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return g.front().net.prefix == r.net.prefix && g.front().net.contains(r.net.address);
    });
    if (it == groups.end())
      groups.push_back({r});
    else if (std::none_of(it->begin(), it->end(), [&](const RailAddress& x) { return x.netdev == r.netdev; }))
      it->push_back(r);
  }
  std::erase_if(groups, [](const auto& g) { return g.size() < 2; });
  return groups;
}

// The value the kernel applies: the larger of conf/all and conf/<if> (true
// for rp_filter, arp_ignore and arp_announce). nullopt when neither is known.
inline std::optional<int> effectiveSysctl(const model::Inventory& inv, const std::string& netdev,
                                          std::optional<int> model::Ipv4Sysctls::*field) {
  std::optional<int> out;
  for (const char* name : {"all", netdev.c_str()}) {
    auto it = inv.routing.sysctls.find(name);
    if (it == inv.routing.sysctls.end() || !(it->second.*field)) continue;
    out = std::max(out.value_or(0), *(it->second.*field));
  }
  return out;
}

inline std::string sysctlPath(const std::string& netdev, const char* name) {
  return std::string(sys::paths::kProcSysIpv4Conf) + "/" + netdev + "/" + name;
}

// "net.ipv4.conf.eth1.rp_filter=2" for `sysctl -w`; a name with dots (a
// VLAN such as eth1.100) in sysctl's slash form, where dots separate levels.
inline std::string sysctlSetting(const std::string& netdev, const char* name, int value) {
  char sep = netdev.find('.') == std::string::npos ? '.' : '/';
  std::string out = "net";
  for (const std::string& part : {std::string("ipv4"), std::string("conf"), netdev, std::string(name)}) {
    out += sep;
    out += part;
  }
  return out + "=" + std::to_string(value);
}

// Evidence for one sysctl on conf/all and conf/<netdev>, where known.
inline std::vector<Evidence> sysctlEvidence(const model::Inventory& inv, const std::string& netdev,
                                            std::optional<int> model::Ipv4Sysctls::*field, const char* name) {
  std::vector<Evidence> out;
  for (const std::string& iface : {std::string("all"), netdev}) {
    auto it = inv.routing.sysctls.find(iface);
    if (it != inv.routing.sysctls.end() && it->second.*field)
      out.push_back({sysctlPath(iface, name), std::nullopt, std::to_string(*(it->second.*field))});
  }
  return out;
}

// NCCL_IB_TC (default 0) and the priority its packets get. railkit assumes
// the usual RoCE setup: the NIC trusts DSCP and maps it with the default
// table, priority = DSCP >> 3; the traffic class carries DSCP in its upper
// six bits, so priority = TC >> 5 (NCCL_IB_TC=106: DSCP 26, priority 3).
struct NcclTrafficClass {
  int tc = 0;
  int priority = 0;
  bool set = false;  // NCCL_IB_TC given
};

inline std::optional<NcclTrafficClass> ncclTrafficClass(const Environment& env) {
  auto value = lookup(env, "NCCL_IB_TC");
  if (!value) return NcclTrafficClass{};
  auto tc = parseUint(trim(*value));
  if (!tc || *tc > 255) return std::nullopt;  // not a number: NCCL's problem, not a priority
  int t = static_cast<int>(*tc);
  return NcclTrafficClass{t, t >> 5, true};
}

inline std::string dcbSource(const std::string& netdev) {
  return "dcb pfc show dev " + netdev;
}

// "3,4" or "none": the PFC-enabled priorities as `dcb pfc show` lists them.
inline std::string priorityList(uint8_t mask) {
  std::string out;
  for (int p = 0; p < 8; ++p)
    if (mask & (1u << p)) {
      if (!out.empty()) out += ',';
      out += static_cast<char>('0' + p);
    }
  return out.empty() ? std::string("none") : out;
}

inline std::string pfcText(uint8_t mask) {
  std::string out = "pfc-enabled ";
  out += priorityList(mask);
  return out;
}

}  // namespace railkit::doctor
