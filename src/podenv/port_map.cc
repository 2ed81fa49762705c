#include "podenv/port_map.h"

#include <algorithm>
#include <vector>

#include "core/strings.h"

namespace railkit::podenv {

namespace {

bool hasAddress(const model::NetInterface& ifc, const std::string& ipv4) {
  for (const auto& a : ifc.addresses) {
    auto slash = a.find('/');
    if (a.substr(0, slash) == ipv4) return true;
  }
  return false;
}

bool hasIpv4(const model::NetInterface& ifc) {
  for (const auto& a : ifc.addresses)
    if (a.find(':') == std::string::npos) return true;
  return false;
}

// A GID naming `ifname` that holds one of its addresses (any, when unknown).
bool gidBelongsTo(const model::Gid& g, const std::string& ifname, const model::NetInterface& ifc) {
  if (g.netdev != ifname) return false;
  if (!ifc.addresses_known || !hasIpv4(ifc)) return true;
  auto ipv4 = ipv4OfGid(g.gid);
  return ipv4 && hasAddress(ifc, *ipv4);
}

std::string portName(const model::RdmaDevice& d, const model::RdmaPort& p) {
  return d.name + ":" + std::to_string(p.port);
}

}  // namespace

const model::NetInterface* findInterface(const model::Inventory& inventory, const std::string& name) {
  for (const auto& n : inventory.interfaces)
    if (n.name == name) return &n;
  return nullptr;
}

std::optional<std::string> ipv4OfGid(const std::string& gid) {
  std::string lower = toLower(trim(gid));  // split() views into it
  auto groups = split(lower, ':');
  if (groups.size() != 8) return std::nullopt;
  for (size_t i = 0; i < 5; ++i)
    if (groups[i] != "0000") return std::nullopt;
  if (groups[5] != "ffff") return std::nullopt;
  if (groups[6].size() != 4 || groups[7].size() != 4) return std::nullopt;
  auto high = parseUint(groups[6], 16);
  auto low = parseUint(groups[7], 16);
  if (!high || !low) return std::nullopt;
  uint64_t hi = *high, lo = *low;
  return std::to_string(hi >> 8) + "." + std::to_string(hi & 0xff) + "." + std::to_string(lo >> 8) + "." +
         std::to_string(lo & 0xff);
}

PortOfInterface findPortOfInterface(const model::Inventory& inventory, const std::string& ifname) {
  PortOfInterface out;
  const model::NetInterface* ifc = findInterface(inventory, ifname);
  if (!ifc) {
    out.absent = true;
    out.problem = "not in this pod (no /sys/class/net/" + ifname + ")";
    return out;
  }
  // 1. The function behind the interface also holds the RDMA device.
  if (!ifc->pci.empty()) {
    for (const auto& d : inventory.rdma_devices) {
      if (!d.pci || d.pci->address != ifc->pci || d.ports.empty()) continue;
      const model::RdmaPort* chosen = nullptr;
      for (const auto& p : d.ports)
        if (p.netdev == ifname) chosen = &p;
      if (!chosen && ifc->dev_port)
        for (const auto& p : d.ports)
          if (p.port == *ifc->dev_port + 1) chosen = &p;
      if (!chosen && d.ports.size() == 1) chosen = &d.ports.front();
      if (chosen) {
        out.device = &d;
        out.port = chosen;
        out.mapped_by = "device";
        return out;
      }
    }
  }
  // 2. GID table entries that name the interface.
  std::vector<std::pair<const model::RdmaDevice*, const model::RdmaPort*>> found;
  for (const auto& d : inventory.rdma_devices)
    for (const auto& p : d.ports)
      for (const auto& g : p.gids)
        if (gidBelongsTo(g, ifname, *ifc)) {
          found.emplace_back(&d, &p);
          break;
        }
  if (found.size() == 1) {
    out.device = found.front().first;
    out.port = found.front().second;
    out.mapped_by = "gid";
    return out;
  }
  if (found.size() > 1) {
    std::string names;
    for (const auto& [d, p] : found) names += (names.empty() ? "" : ", ") + portName(*d, *p);
    out.problem = "the GID tables of " + names + " all name " + ifname +
                  " (other pods' interfaces may share the name) and its addresses " +
                  (ifc->addresses_known ? "do not tell them apart" : "were not recorded");
    return out;
  }
  out.problem = ifc->pci.empty()
                    ? "no RDMA device behind it (no device link, and no GID table names it)"
                    : "its device " + ifc->pci + " has no RDMA device in this pod, and no GID table names it";
  return out;
}

GidChoice ipv4RoceV2Gid(const model::RdmaPort& port, const std::string& ifname,
                        const model::NetInterface* ifc) {
  GidChoice out;
  std::vector<const model::Gid*> v2;
  for (const auto& g : port.gids)
    if (g.type == "RoCE v2" && ipv4OfGid(g.gid)) v2.push_back(&g);
  if (v2.empty()) {
    out.note = "no RoCE v2 GID with an IPv4 address" +
               (ifname.empty() ? std::string() : ": give " + ifname + " its IPv4 address before NCCL starts");
    return out;
  }
  // The interface's own entries; entries without ndevs (unreadable) as a fallback.
  std::vector<const model::Gid*> pool;
  for (const auto* g : v2)
    if (!ifname.empty() && g->netdev == ifname) pool.push_back(g);
  if (pool.empty())
    for (const auto* g : v2)
      if (g->netdev.empty()) pool.push_back(g);
  if (pool.empty()) {
    if (ifname.empty()) {
      pool = v2;
    } else {
      out.note =
          "its IPv4 RoCE v2 GIDs belong to other interfaces (" + v2.front()->netdev + "...), not " + ifname;
      return out;
    }
  }
  if (ifc && ifc->addresses_known) {
    std::vector<const model::Gid*> mine;
    for (const auto* g : pool)
      if (hasAddress(*ifc, *ipv4OfGid(g->gid))) mine.push_back(g);
    if (mine.empty()) {
      out.note = hasIpv4(*ifc) ? "no RoCE v2 GID holds an IPv4 address of " + ifname
                               : ifname + " has no IPv4 address";
      return out;
    }
    pool = mine;
  } else if (pool.size() > 1) {
    out.note = "several IPv4 RoCE v2 GIDs and no recorded address to choose by; took the lowest index";
  }
  out.index = (*std::min_element(pool.begin(), pool.end(), [](const model::Gid* a, const model::Gid* b) {
                return a->index < b->index;
              }))->index;
  return out;
}

}  // namespace railkit::podenv
