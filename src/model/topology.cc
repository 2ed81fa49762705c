// GPU<->NIC PCIe distance in nvidia-smi's vocabulary, from sysfs PCI paths.
#include "core/strings.h"
#include "model/collect_parts.h"

namespace railkit::model {

const char* distanceName(PcieDistance distance) {
  switch (distance) {
    case PcieDistance::kPix: return "PIX";
    case PcieDistance::kPxb: return "PXB";
    case PcieDistance::kPhb: return "PHB";
    case PcieDistance::kNode: return "NODE";
    case PcieDistance::kSys: return "SYS";
  }
  return "SYS";
}

namespace {
// "pci0000:17" from "/sys/devices/pci0000:17/..."; "" when not a PCI path.
std::string hostBridge(const PciFunction& f) {
  auto parts = split(f.sysfs_path, '/');
  for (auto p : parts)
    if (startsWith(p, "pci")) return std::string(p);
  return "";
}
}  // namespace

// Bridges below the lowest common one decide: none but the root port in
// common -> PHB; the two paths split right below one switch (at most one
// bridge each side) -> PIX; deeper -> PXB. Different host bridges: NODE when
// on the same (or unknown) NUMA node, else SYS.
PcieDistance pciDistance(const PciFunction& a, const PciFunction& b) {
  std::string ha = hostBridge(a), hb = hostBridge(b);
  if (ha.empty() || ha != hb) {
    if (a.numa_node && b.numa_node && *a.numa_node != *b.numa_node) return PcieDistance::kSys;
    return PcieDistance::kNode;
  }
  const auto& ua = a.upstream_bridges;
  const auto& ub = b.upstream_bridges;
  size_t common = 0;
  while (common < ua.size() && common < ub.size() && ua[common] == ub[common]) ++common;
  if (common <= 1) return PcieDistance::kPhb;  // only the host bridge / root port shared
  size_t below_a = ua.size() - common, below_b = ub.size() - common;
  if (below_a <= 1 && below_b <= 1) return PcieDistance::kPix;
  return PcieDistance::kPxb;
}

std::vector<GpuNicDistance> computeGpuNicDistances(const Inventory& inventory) {
  std::vector<GpuNicDistance> out;
  for (const auto& gpu : inventory.gpus)
    for (const auto& nic : inventory.rdma_devices)
      if (nic.pci) out.push_back({gpu.name, nic.name, pciDistance(gpu.pci, *nic.pci)});
  return out;
}

}  // namespace railkit::model
