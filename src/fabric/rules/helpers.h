#pragma once
// What the fabric checks share: building a finding, naming a cable's ends
// the way an operator finds them on the floor, and "what most peers have".

#include <fmt/core.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fabric/check.h"

namespace railkit::fabric {

inline Finding makeFabricFinding(const RuleInfo& rule, std::string subject, std::string message,
                                 std::vector<Evidence> evidence, std::string fix) {
  Finding f = findingOf(rule);
  f.subject = std::move(subject);
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}

// "leaf-r5 port 12" ("leaf-r5 port swp12" where LLDP names the port)
inline std::string switchPort(const Fabric& fabric, std::size_t node, int port) {
  return fmt::format("{} port {}", switchName(fabric.nodes[node]), portText(fabric.nodes[node], port));
}

// The evidence of one cable: the input line that prints it, and both ends.
inline Evidence cableEvidence(const Fabric& fabric, std::size_t node, const PortLink& link) {
  const Node& a = fabric.nodes[node];
  const Node& b = fabric.nodes[link.peer];
  std::string rate = linkRate(link);
  return Evidence{
      link.source.empty() ? fabric.source : link.source,
      link.line > 0 ? std::optional<long>(link.line) : std::nullopt,
      fmt::format("\"{}\"[{}] ({}) - \"{}\"[{}] ({}){}", a.id, portText(a, link.port), a.description, b.id,
                  portText(b, link.peer_port), b.description, rate.empty() ? "" : " " + rate)};
}

// The most common value (ties: the larger one), and how many have it.
template <typename T>
std::pair<T, int> mostCommon(const std::vector<T>& values) {
  std::map<T, int> count;
  for (const auto& v : values) ++count[v];
  std::pair<T, int> best{T{}, 0};
  for (const auto& [v, n] : count)
    if (n >= best.second) best = {v, n};
  return best;
}

}  // namespace railkit::fabric
