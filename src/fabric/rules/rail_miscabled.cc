// rail-miscabled: an HCA on another rail's leaf.
#include <algorithm>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

// Where the peers of a stray HCA have the rail it should be on: the peers are
// the hosts whose own-rail HCA shares the stray's leaf (its block of nodes).
struct Expected {
  std::size_t leaf = kNoNode;  // the leaf most peers use for the rail
  int on_it = 0;               // peers with the rail there
  int peers = 0;               // peers with the rail anywhere
};

Expected expectedLeaf(const RailView& view, const HcaPort& stray, int leaf_rail) {
  std::vector<std::size_t> leaves;
  for (const auto& h : view.hca_ports) {
    if (h.leaf != stray.leaf || h.rail != leaf_rail || h.host == stray.host) continue;
    for (std::size_t i : view.hosts.at(h.host)) {
      const HcaPort& mine = view.hca_ports[i];
      if (mine.rail == stray.rail && !view.stray(view.leafIndex(mine.leaf), mine.rail))
        leaves.push_back(mine.leaf);
    }
  }
  Expected out;
  if (leaves.empty()) return out;
  auto [leaf, n] = mostCommon(leaves);
  return Expected{leaf, n, static_cast<int>(leaves.size())};
}

// The host's HCA of `rail`, when it exists.
const HcaPort* hostRail(const RailView& view, const std::string& host, int rail) {
  for (std::size_t i : view.hosts.at(host))
    if (view.hca_ports[i].rail == rail) return &view.hca_ports[i];
  return nullptr;
}

std::string peersText(const Fabric& fabric, const Expected& e, int rail) {
  if (e.peers == 0) return "no other node of this leaf has a rail-" + std::to_string(rail) + " HCA elsewhere";
  std::string leaf = switchName(fabric.nodes[e.leaf]);
  if (e.peers == 1) return fmt::format("the other node's rail {} is on {}", rail, leaf);
  if (e.on_it == e.peers) return fmt::format("the {} other nodes' rail {} are on {}", e.peers, rail, leaf);
  return fmt::format("{} of the {} other nodes' rail {} are on {}", e.on_it, e.peers, rail, leaf);
}

Finding strayFinding(const FabricInput& in, const HcaPort& h, int leaf_rail) {
  const RailView& view = in.rails;
  const Fabric& fabric = in.fabric;
  int li = view.leafIndex(h.leaf);
  Expected e = expectedLeaf(view, h, leaf_rail);
  std::string at = switchPort(fabric, h.leaf, h.leaf_port);
  std::string message = fmt::format("{} {} (rail {}) is on {}; {} holds rail {} ({} of its HCAs are {}); {}",
                                    h.host, h.device, h.rail, at, switchName(fabric.nodes[h.leaf]), leaf_rail,
                                    view.leaf_rail_counts[li][leaf_rail], view.railDevice(leaf_rail),
                                    peersText(fabric, e, h.rail));
  std::vector<Evidence> evidence{cableEvidence(fabric, h.ca, *h.link)};
  std::string target =
      e.peers ? switchName(fabric.nodes[e.leaf]) : "the rail-" + std::to_string(h.rail) + " leaf";
  std::string fix = fmt::format("Move the cable of {} {} from {} to {}", h.host, h.device, at, target);
  // A pair of cables swapped at the node: its leaf-rail HCA is where this one belongs.
  const HcaPort* other = hostRail(view, h.host, leaf_rail);
  if (other != nullptr && view.stray(view.leafIndex(other->leaf), leaf_rail)) {
    message += fmt::format("; {}'s rail-{} HCA {} is on {} instead: the two cables are swapped", h.host,
                           leaf_rail, other->device, switchPort(fabric, other->leaf, other->leaf_port));
    evidence.push_back(cableEvidence(fabric, other->ca, *other->link));
    fix += fmt::format(" and {} {} to {} (swap the two cables)", h.host, other->device,
                       switchName(fabric.nodes[h.leaf]));
  }
  fix += "; NCCL's rail-local rings otherwise cross the spine and the whole job slows down, with no error.";
  return makeFabricFinding(kRailMiscabled, fmt::format("{} {}", h.host, h.device), std::move(message),
                           std::move(evidence), std::move(fix));
}

std::vector<Finding> check(const FabricInput& in) {
  std::vector<Finding> out;
  const RailView& view = in.rails;
  for (const auto& h : view.hca_ports) {
    int li = view.leafIndex(h.leaf);
    if (view.stray(li, h.rail)) out.push_back(strayFinding(in, h, view.leaf_rail[li]));
  }
  return out;
}

}  // namespace

extern const FabricCheck kRailMiscabled = {
    {"rail-miscabled", Severity::kError, "An HCA is cabled to another rail's leaf switch",
     R"(In a rail-optimized fabric, rail i of every node (its i-th compute NIC, in the order validate's
--data-if uses) is cabled to the same leaf switch group, so NCCL's rings and trees between nodes stay
on one leaf per rail. One cable plugged into another rail's leaf breaks this silently: the traffic of
that rail crosses the spine for every collective, the whole job runs at the pace of that detour, and
nothing reports an error. `railkit fabric` reads the fabric as the switches see it (ibnetdiscover):
each HCA's node and rail come from its node description ("node017 mlx5_3"), each leaf's rail is the
rail most of its HCAs have, and an HCA of another rail among them (fewer than half as many as the
leaf's own) is reported with the leaf, the port, the node and the leaf its peers use for that rail. Two
such HCAs of one node, each on the other's leaf, are a swapped pair. A leaf that holds several rails
evenly (a small fabric) has no stray to report.)",
     R"(Fix: move the named cable to the named leaf (a free port of that leaf), or swap the named pair of
cables at the node, then check again:
  ibnetdiscover > fabric.txt && railkit fabric fabric.txt)"},
    check};

}  // namespace railkit::fabric
