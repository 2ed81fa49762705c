// Host and process facts: interfaces, modules, /proc/self, live-only facts.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "model/collect_parts.h"
#include "sys/live.h"
#include "sys/parsers.h"
#include "sys/paths.h"

namespace railkit::model {

namespace {

// The modules an RDMA + GPU stack needs; their presence is what rules check.
constexpr const char* kModulesOfInterest[] = {
    "ib_core",    "ib_uverbs",      "rdma_ucm",    "rdma_cm", "ib_umad", "mlx5_core",
    "mlx5_ib",    "ib_ipoib",       "efa",         "irdma",   "bnxt_re", "nvidia",
    "nvidia_uvm", "nvidia_peermem", "nv_peer_mem", "gdrdrv",  "amdgpu"};

std::string typeName(const std::string& arphrd) {
  if (arphrd == "1") return "ether";
  if (arphrd == "32") return "infiniband";
  if (arphrd == "772") return "loopback";
  return arphrd;
}

bool keepEnv(const std::string& key) {
  for (const char* prefix : {"NCCL_", "UCX_", "OMPI_", "PMIX_", "OMPI_MCA_"})
    if (startsWith(key, prefix)) return true;
  return false;
}

// mlx5's per-priority ECN switches; an absent or unreadable one leaves the
// whole side unknown rather than guessing "disabled".
std::optional<uint8_t> readEcnSide(const FileRoot& root, const std::string& dir) {
  if (!root.isDirectory(dir)) return std::nullopt;
  uint8_t mask = 0;
  for (int prio = 0; prio < 8; ++prio) {
    auto line = root.readLine(dir + "/" + std::to_string(prio));
    if (!line) return std::nullopt;
    auto v = parseUint(trim(*line));
    if (!v) return std::nullopt;
    if (*v != 0) mask |= static_cast<uint8_t>(1u << prio);
  }
  return mask;
}

void readEcn(const FileRoot& root, const std::string& dir, NetInterface& n) {
  if (!root.isDirectory(dir + "/ecn")) return;
  n.ecn_np = readEcnSide(root, dir + "/ecn/roce_np/enable");
  n.ecn_rp = readEcnSide(root, dir + "/ecn/roce_rp/enable");
}

}  // namespace

std::vector<NetInterface> readInterfaces(const FileRoot& root) {
  std::vector<NetInterface> out;
  auto names = root.listDir(sys::paths::kClassNet);
  if (!names) return out;
  for (const auto& name : *names) {
    std::string dir = std::string(sys::paths::kClassNet) + "/" + name;
    if (!root.isDirectory(dir)) continue;  // bonding_masters is a file
    NetInterface n;
    n.name = name;
    n.type = typeName(root.readLine(dir + "/type").value_or(""));
    n.operstate = root.readLine(dir + "/operstate").value_or("");
    if (auto mtu = root.readLine(dir + "/mtu")) {
      auto v = parseUint(trim(*mtu));
      if (v && *v < 1000000) n.mtu = static_cast<int>(*v);
    }
    if (auto port = root.readLine(dir + "/dev_port")) {
      auto v = parseUint(trim(*port));
      if (v && *v < 256) n.dev_port = static_cast<int>(*v);
    }
    readEcn(root, dir, n);
    if (root.exists(dir + "/device")) {
      auto dev = root.resolve(dir + "/device");
      if (dev && startsWith(*dev, sys::paths::kDevicesPrefix)) n.pci = dev->substr(dev->rfind('/') + 1);
    }
    out.push_back(std::move(n));
  }
  return out;
}

std::string readDefaultRouteInterface(const FileRoot& root) {
  auto table = root.readText(sys::paths::kProcNetRoute);
  if (!table) return "";
  return sys::parseDefaultRouteInterface(*table).value_or("");
}

std::vector<KernelModule> readModules(const FileRoot& root) {
  // Listed rather than probed one by one, so a snapshot records the listing.
  std::vector<KernelModule> out;
  auto loaded = root.listDir(sys::paths::kModules);
  for (const char* m : kModulesOfInterest) {
    bool present = loaded && std::find(loaded->begin(), loaded->end(), m) != loaded->end();
    KernelModule module{m, present, std::nullopt};
    // Only for loaded modules: one small read each, and an absent file
    // (in-tree module) stays unknown.
    if (present) {
      if (auto v = root.readLine(std::string(sys::paths::kModules) + "/" + m + "/version")) {
        if (!trim(*v).empty()) module.version = std::string(trim(*v));
      }
    }
    out.push_back(std::move(module));
  }
  return out;
}

ProcessFacts readProcessFacts(const FileRoot& root) {
  ProcessFacts p;
  if (auto status = root.readText(sys::paths::kSelfStatus)) p.cap_eff = sys::parseStatusCapEff(*status);
  if (auto limits = root.readText(sys::paths::kSelfLimits)) {
    if (auto m = sys::parseLimitsMemlock(*limits)) p.memlock = {true, m->unlimited, m->bytes};
  }
  if (auto meminfo = root.readText(sys::paths::kProcMeminfo))
    p.mem_total_bytes = sys::parseMeminfoTotalBytes(*meminfo);
  if (auto mounts = root.readText(sys::paths::kSelfMountinfo)) {
    if (auto bytes = sys::parseMountinfoShmBytes(*mounts)) {
      p.shm_bytes = bytes;
      p.shm_source = "mountinfo";
    }
  }
  if (auto environ = root.readText(sys::paths::kSelfEnviron)) {
    for (auto& [k, v] : parseEnviron(*environ))
      if (keepEnv(k)) p.env[k] = v;
  }
  return p;
}

void addLiveFacts(const FileRoot& root, Inventory& inventory, bool live_network) {
  std::map<std::string, std::vector<std::string>> addresses;
  bool known = false;
  if (root.isLive() || live_network) {
    addresses = sys::liveInterfaceAddresses();
    known = true;
    addLiveNetworkState(FileRoot("/"), inventory);
    if (root.isLive() && !inventory.process.shm_bytes) {
      if (auto bytes = sys::liveFsBytes(sys::paths::kDevShm)) {
        inventory.process.shm_bytes = bytes;
        inventory.process.shm_source = "statvfs";
      }
    }
  } else if (auto text = root.readText(kLiveFactsPath)) {
    // A damaged live.json only costs the live facts; the tree is still read.
    auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) {
      if (auto it = j.find("addresses"); it != j.end() && it->is_object()) {
        known = true;
        for (auto& [name, list] : it->items()) {
          if (!list.is_array()) continue;
          for (auto& a : list)
            if (a.is_string()) addresses[name].push_back(a.get<std::string>());
        }
      }
      auto bytes = j.find("shm_bytes");
      if (!inventory.process.shm_bytes && bytes != j.end() && bytes->is_number_unsigned()) {
        inventory.process.shm_bytes = bytes->get<uint64_t>();
        auto source = j.find("shm_source");
        inventory.process.shm_source =
            source != j.end() && source->is_string() ? source->get<std::string>() : "statvfs";
      }
      networkStateFromJson(j, inventory);
    }
  }
  if (!known) return;
  for (auto& n : inventory.interfaces) {
    n.addresses_known = true;
    auto it = addresses.find(n.name);
    if (it != addresses.end()) n.addresses = it->second;
  }
}

}  // namespace railkit::model
