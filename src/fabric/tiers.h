#pragma once
// The fabric's switches in tiers, grouped as topology-aware schedulers place
// jobs: a block is the group of leaves a set of nodes shares (one leaf per
// rail in a rail-optimized unit: the 8 rail leaves of 32 nodes are one
// block), a spine group the switches above a set of blocks, and so on up.
//
// Groups are connected components, so they follow the cables, not the names:
// - block: leaves joined by the hosts cabled to them; a cable on another
//   rail's leaf (a stray, rail-miscabled's finding) does not join its leaf,
//   so one wrong cable does not merge two units;
// - tier k+1: the switches one tier up from a tier-k group's switches, joined
//   through that group. A 2-tier fat tree whose leaves all reach all spines is
//   one spine group; a 3-tier fabric has one per pod, then its core.
// A group is named after its switch whose name sorts first, in the form both
// a label value and a Kubernetes object name accept ("leaf-r0").

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "fabric/rails.h"
#include "fabric/topology.h"

namespace railkit::fabric {

struct SwitchGroup {
  std::string name;                   // DNS-1123 label: lowercase, digits, '-', at most 63
  std::vector<std::size_t> switches;  // fabric node indices, by switch name
  std::vector<std::size_t> children;  // indices of the groups one tier below; none for blocks
  std::vector<std::string> hosts;     // every host below it, sorted
};

struct FabricTiers {
  // tiers[0]: blocks (groups of leaves), tiers[1]: the groups above them, ...
  // Groups of one tier are sorted by name.
  std::vector<std::vector<SwitchGroup>> tiers;
  // host -> its group at each tier from the block up; a host whose block has
  // no group above stops early.
  std::map<std::string, std::vector<std::size_t>> host_groups;
};

// Hosts are the rail view's (rail-family HCAs with a "<host> <device>" name).
FabricTiers buildTiers(const Fabric& fabric, const RailView& view);

// `text` as a DNS-1123 label (what a label value and an object name both
// accept): lowercase, every other character '-', no '-' at either end, at
// most 63 characters; "" when nothing of it is left.
std::string dnsLabel(const std::string& text);

}  // namespace railkit::fabric
