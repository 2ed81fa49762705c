#pragma once
// NodeBuilder trees written to disk and read back with collectInventory, as
// `railkit validate --root` reads them, for the validate suites.
#include <string>

#include "support/node_scratch.h"

namespace railkit::testing {

inline constexpr const char* kValidateScratch = "railkit-validate";

inline model::Inventory inventoryOf(const NodeBuilder& node, const std::string& name) {
  return inventoryAt(node, nodeScratch(kValidateScratch) / name);
}

// The node without the RDMA device `nic` (and its netdev): a device that
// failed to probe or was not passed to the pod.
inline NodeBuilder withoutNic(NodeBuilder node, const std::string& nic) {
  std::string pci = node.nic(nic).pci.address;
  std::erase_if(node.spec().nics, [&](const NicSpec& n) { return n.name == nic; });
  std::erase_if(node.spec().netdevs, [&](const NetdevSpec& d) { return d.pci == pci; });
  return node;
}

}  // namespace railkit::testing
