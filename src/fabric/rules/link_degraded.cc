// fabric-link-degraded: a cable trained at fewer lanes or a lower speed
// than the fabric's other cables of its kind.
#include <algorithm>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

// Host cables (HCA to switch) and switch-to-switch cables are compared
// within their kind: a fabric may run HDR to the hosts and NDR between
// switches by design.
enum class CableKind { kHost, kSwitch };

struct Cable {
  std::size_t node;  // the end reported first: the switch of a host cable
  const PortLink* link;
  CableKind kind;
};

std::vector<Cable> cables(const Fabric& fabric) {
  std::vector<Cable> out;
  for (std::size_t a = 0; a < fabric.nodes.size(); ++a) {
    const Node& node = fabric.nodes[a];
    if (node.kind != NodeKind::kSwitch) continue;
    for (const auto& link : node.ports) {
      NodeKind peer = fabric.nodes[link.peer].kind;
      if (peer == NodeKind::kSwitch && (link.peer < a || (link.peer == a && link.peer_port < link.port)))
        continue;  // each switch-to-switch cable once
      out.push_back({a, &link, peer == NodeKind::kSwitch ? CableKind::kSwitch : CableKind::kHost});
    }
  }
  return out;
}

struct Common {
  int width = 0;
  int speed = 0;  // speedRank
  std::string speed_name;
  int cables = 0;
};

Common common(const std::vector<Cable>& all, CableKind kind) {
  std::vector<int> widths, speeds;
  std::map<int, std::string> names;
  for (const auto& c : all) {
    if (c.kind != kind) continue;
    if (c.link->width > 0) widths.push_back(c.link->width);
    if (int r = speedRank(c.link->speed); r > 0) speeds.push_back(r), names[r] = c.link->speed;
  }
  Common out;
  out.width = widths.empty() ? 0 : mostCommon(widths).first;
  out.speed = speeds.empty() ? 0 : mostCommon(speeds).first;
  out.speed_name = names[out.speed];
  out.cables = static_cast<int>(std::max(widths.size(), speeds.size()));
  return out;
}

Finding degraded(const Fabric& fabric, const Cable& c, const Common& usual) {
  const Node& peer = fabric.nodes[c.link->peer];
  std::string far = peer.kind == NodeKind::kSwitch
                        ? switchPort(fabric, c.link->peer, c.link->peer_port)
                        : fmt::format("{} port {}", peer.description, c.link->peer_port);
  std::string near = switchPort(fabric, c.node, c.link->port);
  std::string what;
  if (c.link->width > 0 && c.link->width < usual.width)
    what = fmt::format("{} of {} lanes", c.link->width, usual.width);
  int rank = speedRank(c.link->speed);
  if (rank > 0 && rank < usual.speed)
    what += fmt::format("{}{} instead of {}", what.empty() ? "" : ", ", c.link->speed, usual.speed_name);
  std::string message =
      fmt::format("the cable {} - {} runs at {} ({}); the fabric's other {} cables run at {}x{}", near, far,
                  linkRate(*c.link), what, c.kind == CableKind::kHost ? "host" : "switch-to-switch",
                  usual.width, usual.speed_name);
  return makeFabricFinding(
      kLinkDegraded, near + " - " + far, std::move(message), {cableEvidence(fabric, c.node, *c.link)},
      fmt::format(
          "Reseat or replace the cable or transceiver of {} (a lane that fails training drops the "
          "link to 1x or a lower speed); read its eye and errors with `mlxlink -d <device> -p <port>` "
          "on the host or the switch, then reset the port (`ibportstate <lid> <port> reset`).",
          near));
}

std::vector<Finding> check(const FabricInput& in) {
  auto all = cables(in.fabric);
  Common usual[2] = {common(all, CableKind::kHost), common(all, CableKind::kSwitch)};
  std::vector<Finding> out;
  for (const auto& c : all) {
    const Common& u = usual[c.kind == CableKind::kHost ? 0 : 1];
    if (u.cables < 2) continue;  // nothing to compare with
    bool narrow = c.link->width > 0 && c.link->width < u.width;
    int rank = speedRank(c.link->speed);
    bool slow = rank > 0 && u.speed > 0 && rank < u.speed;
    if (narrow || slow) out.push_back(degraded(in.fabric, c, u));
  }
  return out;
}

}  // namespace

extern const FabricCheck kLinkDegraded = {
    {"fabric-link-degraded", Severity::kError, "A link runs narrower or slower than the fabric's other links",
     R"(An InfiniBand link trains to the widest width and the highest speed both ends support. A cable,
transceiver or port with a bad lane trains narrower (1x or 2x instead of 4x) or slower (HDR instead of
NDR), stays up and carries traffic, and nothing fails: every collective that crosses it runs at that
fraction of the bandwidth, and the whole job with it. `railkit fabric` compares the active width and
speed ibnetdiscover prints for every cable with the most common ones of its kind (host cables with
host cables, switch-to-switch cables with each other, since a fabric may run a lower speed to its hosts
by design) and names each cable below them, with both ends.)",
     R"(Fix: reseat or replace the named cable or transceiver, then reset the port and read it again:
  mlxlink -d <device> -p <port>         # on the host: width, speed, FEC and BER
  ibportstate <switch-lid> <port> reset # or on the switch's CLI
  ibnetdiscover | grep <port's peer>)"},
    check};

}  // namespace railkit::fabric
