#pragma once
// Builds the Inventory from a FileRoot: runs every sys/ reader and computes
// the PCIe topology (GPU <-> NIC distances). Missing surfaces leave their part
// of the inventory empty; only an unusable root is an error.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/file_root.h"
#include "core/result.h"
#include "model/inventory.h"

namespace railkit::model {

struct CollectOptions {
  // hwloc XML that replaces the PCI and topology facts (--hwloc-xml).
  std::optional<std::string> hwloc_xml;
  // With a --root: still read the network namespace's live state (addresses,
  // routes, policy rules, IPv4 sysctls, DCB) from this machine (--live-net).
  bool live_network = false;
};

Result<Inventory> collectInventory(const FileRoot& root, const CollectOptions& options);

// The documented JSON of `inspect` (docs/inspect.md).
nlohmann::json inventoryToJson(const Inventory& inventory);

}  // namespace railkit::model
