#pragma once
// Network-namespace state that RoCE multi-rail depends on and that is not a
// file: IPv4 policy routing rules and routes (rtnetlink, what `ip rule` and
// `ip route show table all` print) and the PFC configuration of a netdev
// (DCB netlink, what `dcb pfc show` / `mlnx_qos` print). Per-interface IPv4
// sysctls are files (/proc/sys/net/ipv4/conf/IF/...) and are read through a
// FileRoot by model/. All of these belong to the reader's network namespace,
// which is why a pod sees its own and a netns test can set them for real.
// With --root they come from the snapshot's railkit/live.json instead.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace railkit::sys {

// One IPv4 policy rule. Only "lookup TABLE" rules select routes; other
// actions (blackhole, unreachable, goto) keep an empty table.
struct RoutingRule {
  uint32_t priority = 0;
  std::string from;  // "10.0.0.1/32"; "" = all
  std::string to;    // "" = all
  std::string iif;   // "" = any
  std::string oif;   // "" = any
  std::optional<uint32_t> fwmark;
  std::string table;  // "local", "main", "default" or the number; "" when not a lookup
};

// One IPv4 route of any table.
struct Route {
  std::string table;    // "local", "main", "default" or the number
  std::string type;     // "unicast", "local", "broadcast", ...
  std::string dst;      // "10.0.0.0/24" or "default"
  std::string dev;      // output interface, "" when none
  std::string src;      // preferred source address, "" when none
  std::string gateway;  // "" when directly connected
};

// The name `ip` prints for a routing table id.
std::string tableName(uint32_t id);

// Every IPv4 rule / route of this network namespace (rtnetlink dumps).
Result<std::vector<RoutingRule>> liveRoutingRules();
Result<std::vector<Route>> liveRoutes();

// Bitmask of the priorities (bit p = priority p) with PFC enabled on
// `netdev`, from the IEEE DCB netlink interface. An error when the netdev
// has no DCB support or the kernel does not answer: the caller records
// "unknown", never "disabled".
Result<uint8_t> livePfcEnabled(const std::string& netdev);

}  // namespace railkit::sys
