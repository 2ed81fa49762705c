// RDMA devices and ports from /sys/class/infiniband, with the netdev of each
// port as ibdev2netdev finds it.
#include <algorithm>

#include "core/strings.h"
#include "model/collect_parts.h"
#include "sys/parsers.h"
#include "sys/paths.h"

namespace railkit::model {

namespace {

std::optional<uint32_t> readHexU32(const FileRoot& root, const std::string& path) {
  auto line = root.readLine(path);
  if (!line) return std::nullopt;
  auto v = parseHex(trim(*line));
  if (!v || *v > 0xffffffffu) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

std::vector<Gid> readGids(const FileRoot& root, const std::string& port_dir) {
  std::vector<Gid> gids;
  auto entries = root.listDir(port_dir + "/gids");
  if (!entries) return gids;
  for (const auto& e : *entries) {
    auto index = parseUint(e);
    if (!index || *index > 65535) continue;
    auto gid = root.readLine(port_dir + "/gids/" + e);
    if (!gid || sys::isZeroGid(*gid)) continue;
    Gid g;
    g.index = static_cast<int>(*index);
    g.gid = std::string(trim(*gid));
    if (auto t = root.readLine(port_dir + "/gid_attrs/types/" + e)) g.type = sys::parseGidType(*t);
    if (auto n = root.readLine(port_dir + "/gid_attrs/ndevs/" + e)) g.netdev = std::string(trim(*n));
    gids.push_back(std::move(g));
  }
  std::sort(gids.begin(), gids.end(), [](const Gid& a, const Gid& b) { return a.index < b.index; });
  return gids;
}

// ibdev2netdev: the netdevs under the device's PCI function, matched on
// dev_port (0-based) against the port number (1-based); a single-port device
// with one netdev and no dev_port takes it. RoCE falls back to the netdev of
// the port's first GID.
std::string portNetdev(const FileRoot& root, const std::string& dev_dir, const RdmaPort& port,
                       size_t port_count) {
  if (auto nets = root.listDir(dev_dir + "/device/net")) {
    for (const auto& n : *nets) {
      auto dev_port = root.readLine(dev_dir + "/device/net/" + n + "/dev_port");
      auto v = dev_port ? parseUint(trim(*dev_port)) : std::nullopt;
      if (v && static_cast<int>(*v) == port.port - 1) return n;
      if (!v && port_count == 1 && nets->size() == 1) return n;
    }
  }
  for (const auto& g : port.gids)
    if (!g.netdev.empty()) return g.netdev;
  return "";
}

}  // namespace

std::vector<RdmaDevice> readRdmaDevices(const FileRoot& root) {
  std::vector<RdmaDevice> devices;
  auto names = root.listDir(sys::paths::kClassInfiniband);
  if (!names) return devices;
  for (const auto& name : *names) {
    std::string dir = std::string(sys::paths::kClassInfiniband) + "/" + name;
    RdmaDevice dev;
    dev.name = name;
    dev.node_type = sys::parseStateName(root.readLine(dir + "/node_type").value_or(""));
    dev.fw_ver = root.readLine(dir + "/fw_ver").value_or("");
    dev.node_guid = root.readLine(dir + "/node_guid").value_or("");
    if (root.exists(dir + "/device")) {
      auto pci = root.resolve(dir + "/device");
      if (pci && startsWith(*pci, sys::paths::kDevicesPrefix)) {
        dev.pci = readPciFunction(root, *pci);
        dev.sriov = readSriov(root, *pci);
      }
    }
    if (auto ports = root.listDir(dir + "/ports")) {
      for (const auto& p : *ports) {
        auto number = parseUint(p);
        if (!number || *number > 255) continue;
        std::string pd = dir + "/ports/" + p;
        RdmaPort port;
        port.port = static_cast<int>(*number);
        port.state = sys::parseStateName(root.readLine(pd + "/state").value_or(""));
        std::string phys_state = root.readLine(pd + "/phys_state").value_or("");
        port.phys_state = sys::parseStateName(phys_state);
        port.phys_state_code = sys::parseStateCode(phys_state);
        port.rate_text = root.readLine(pd + "/rate").value_or("");
        port.rate_gbps = sys::parseRateGbps(port.rate_text);
        port.link_layer = root.readLine(pd + "/link_layer").value_or("");
        port.lid = readHexU32(root, pd + "/lid");
        port.sm_lid = readHexU32(root, pd + "/sm_lid");
        port.gids = readGids(root, pd);
        dev.ports.push_back(std::move(port));
      }
    }
    std::sort(dev.ports.begin(), dev.ports.end(),
              [](const RdmaPort& a, const RdmaPort& b) { return a.port < b.port; });
    for (auto& port : dev.ports) port.netdev = portNetdev(root, dir, port, dev.ports.size());
    devices.push_back(std::move(dev));
  }
  return devices;
}

}  // namespace railkit::model
