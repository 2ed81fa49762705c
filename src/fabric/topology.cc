#include "fabric/topology.h"

#include <array>
#include <string_view>

namespace railkit::fabric {

const char* nodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kSwitch: return "switch";
    case NodeKind::kCa: return "ca";
    case NodeKind::kRouter: return "router";
    case NodeKind::kUnknown: return "unknown";
  }
  return "unknown";
}

int speedRank(const std::string& speed) {
  // The IBTA data rates in order; FDR10 (10 Gb/s lanes with FDR's encoding)
  // sits between QDR and FDR.
  static constexpr std::array<std::string_view, 9> kOrder = {"SDR", "DDR", "QDR", "FDR10", "FDR",
                                                             "EDR", "HDR", "NDR", "XDR"};
  for (std::size_t i = 0; i < kOrder.size(); ++i)
    if (speed == kOrder[i]) return static_cast<int>(i) + 1;
  return 0;
}

std::string portText(const Node& node, int port) {
  auto it = node.port_names.find(port);
  return it != node.port_names.end() ? it->second : std::to_string(port);
}

std::string linkRate(const PortLink& link) {
  if (link.width == 0 && link.speed.empty()) return "";
  return (link.width ? std::to_string(link.width) + "x" : std::string("?x")) + link.speed;
}

}  // namespace railkit::fabric
