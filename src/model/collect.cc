#include "model/collect.h"

#include "core/strings.h"
#include "model/collect_parts.h"
#include "model/hwloc_xml.h"
#include "sys/paths.h"

namespace railkit::model {

Result<Inventory> collectInventory(const FileRoot& root, const CollectOptions& options) {
  if (!root.isDirectory("/"))
    return makeError(ErrorCode::kNotFound, "root " + root.root().string() + " is not a directory");
  Inventory inv;
  inv.root = root.isLive() ? "/" : root.root().string();
  inv.rdma_devices = readRdmaDevices(root);
  inv.gpus = readGpus(root);
  inv.interfaces = readInterfaces(root);
  inv.default_route_interface = readDefaultRouteInterface(root);
  inv.modules = readModules(root);
  if (auto mode = root.readLine(sys::paths::kIbCoreNetnsMode)) {
    auto m = trim(*mode);
    if (m == "Y" || m == "1") inv.rdma_netns_shared = true;
    if (m == "N" || m == "0") inv.rdma_netns_shared = false;
  }
  if (auto entries = root.listDir(sys::paths::kDevInfiniband)) {
    inv.dev_infiniband_present = true;
    inv.dev_infiniband = *entries;
  }
  inv.process = readProcessFacts(root);
  addLiveFacts(root, inv, options.live_network);
  if (options.hwloc_xml) {
    auto hw = loadHwlocXml(*options.hwloc_xml);
    if (!hw) return tl::unexpected(hw.error());
    applyHwlocTopology(*hw, inv);
    inv.topology.source = "hwloc:" + *options.hwloc_xml;
  } else {
    std::vector<const PciFunction*> below;
    for (const auto& g : inv.gpus) below.push_back(&g.pci);
    for (const auto& d : inv.rdma_devices)
      if (d.pci) below.push_back(&*d.pci);
    inv.bridges = readBridges(root, below);
    inv.topology.source = "sysfs";
    inv.topology.gpu_nic = computeGpuNicDistances(inv);
  }
  return inv;
}

}  // namespace railkit::model
