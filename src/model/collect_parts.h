#pragma once
// The pieces collectInventory is made of, one per kernel surface, exposed so
// tests can run them alone. All read through the FileRoot; none fails: a
// missing surface leaves its part empty.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/file_root.h"
#include "model/inventory.h"

namespace railkit::model {

// The PCI function at a resolved sysfs path ("/sys/devices/pci0000:17/.../0000:1a:00.0").
PciFunction readPciFunction(const FileRoot& root, const std::string& sysfs_path);
Sriov readSriov(const FileRoot& root, const std::string& sysfs_path);

std::vector<RdmaDevice> readRdmaDevices(const FileRoot& root);
std::vector<Gpu> readGpus(const FileRoot& root);
// Bridges above the given functions, with their ACS state.
std::vector<PciBridge> readBridges(const FileRoot& root, const std::vector<const PciFunction*>& below);
std::vector<NetInterface> readInterfaces(const FileRoot& root);
// The interface of the IPv4 default route, "" when none.
std::string readDefaultRouteInterface(const FileRoot& root);
std::vector<KernelModule> readModules(const FileRoot& root);
ProcessFacts readProcessFacts(const FileRoot& root);
// Addresses, /dev/shm size, routing and DCB: getifaddrs/statvfs/netlink live,
// railkit/live.json with a --root. `live_network` takes the network part
// (addresses, routing, sysctls, DCB) from this machine's network namespace
// even with a --root (doctor --live-net).
void addLiveFacts(const FileRoot& root, Inventory& inventory, bool live_network = false);
// Routing rules and routes (netlink), IPv4 sysctls (read through `live`, the
// live "/") and PFC of the RoCE netdevs (DCB netlink) of this namespace.
void addLiveNetworkState(const FileRoot& live, Inventory& inventory);
// live.json's "routing" and "dcb" (absent parts stay unknown), and back.
nlohmann::json networkStateToJson(const Inventory& inventory);
void networkStateFromJson(const nlohmann::json& live, Inventory& inventory);

// GPU<->NIC distances from the PCI paths (nvidia-smi vocabulary).
PcieDistance pciDistance(const PciFunction& a, const PciFunction& b);
std::vector<GpuNicDistance> computeGpuNicDistances(const Inventory& inventory);

// The path of the live facts file inside a snapshot.
inline constexpr const char* kLiveFactsPath = "/railkit/live.json";

}  // namespace railkit::model
