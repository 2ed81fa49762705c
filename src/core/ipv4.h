#pragma once
// IPv4 networks as manifests and interfaces write them ("172.17.0.0/24",
// "172.17.0.1"): Spiderpool's subnet plans (render), the checks of
// SpiderIPPool objects (lint) and validate's subnet plan per rail do their
// address arithmetic here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace railkit {

struct Ipv4Net {
  uint32_t address = 0;  // host order; may have host bits set (see hostBits)
  int prefix = 32;

  uint64_t size() const { return uint64_t{1} << (32 - prefix); }
  uint32_t mask() const { return prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix); }
  uint32_t network() const { return address & mask(); }
  uint32_t last() const { return network() | ~mask(); }
  bool hostBits() const { return address != network(); }
  bool contains(uint32_t ip) const { return (ip & mask()) == network(); }
  bool overlaps(const Ipv4Net& other) const { return contains(other.network()) || other.contains(network()); }
};

// A dotted quad, nothing around it.
std::optional<uint32_t> parseIpv4Address(std::string_view text);
// ADDRESS/PREFIX (prefix 0..32), host bits allowed: callers that need a
// network check hostBits() and say so.
std::optional<Ipv4Net> parseIpv4Net(std::string_view text);
std::string ipv4Text(uint32_t address);
// NETWORK/PREFIX of `net` (host bits dropped).
std::string ipv4NetText(const Ipv4Net& net);

}  // namespace railkit
