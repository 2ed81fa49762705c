#pragma once
// Reads an hwloc XML export (lstopo --of xml) for PCI and topology facts:
// GPUs and RDMA NICs (OpenFabrics OS devices) with the chain of PCI bridges
// above each and their NUMA node. Three dialects exist: hwloc 1.x and 2.x
// number OS device types as an enum (3 = OpenFabrics), 3.0 as a bitmask
// (32 = OpenFabrics). We read the XML with pugixml rather than libhwloc,
// because Debian's libhwloc refuses 3.0 files.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/inventory.h"

namespace railkit::model {

struct HwlocNic {
  std::string name;  // "mlx5_0"
  PciFunction pci;
};

struct HwlocTopology {
  std::string version;  // "1.x", "2.0", "3.0"
  std::vector<Gpu> gpus;
  std::vector<HwlocNic> nics;
};

// Pure: parses the XML text. `where` names the input in error messages.
Result<HwlocTopology> parseHwlocXml(std::string_view xml, const std::string& where);
// Reads and parses a file from disk (an argument the user gave, not the root).
Result<HwlocTopology> loadHwlocXml(const std::string& path);

// Replaces the PCI facts of GPUs and RDMA devices and the topology with the
// hwloc ones (bridges are dropped: ACS is not in hwloc).
void applyHwlocTopology(const HwlocTopology& topo, Inventory& inventory);

}  // namespace railkit::model
