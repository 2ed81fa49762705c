// PCI functions, GPUs and the bridges above them (sysfs PCI tree).
#include <algorithm>
#include <set>

#include "core/strings.h"
#include "model/collect_parts.h"
#include "sys/parsers.h"
#include "sys/paths.h"
#include "sys/pci_config.h"

namespace railkit::model {

namespace {

bool looksLikePciAddress(std::string_view s) {
  // "0000:3b:00.0"
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

std::optional<int> readInt(const FileRoot& root, const std::string& path) {
  auto line = root.readLine(path);
  if (!line) return std::nullopt;
  auto v = parseInt(trim(*line));
  if (!v || *v < -1000000 || *v > 1000000) return std::nullopt;
  return static_cast<int>(*v);
}

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

PciFunction readPciFunction(const FileRoot& root, const std::string& sysfs_path) {
  PciFunction f;
  f.sysfs_path = sysfs_path;
  f.address = baseName(sysfs_path);
  auto parts = split(sysfs_path, '/');
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    if (looksLikePciAddress(parts[i])) f.upstream_bridges.emplace_back(parts[i]);
  f.vendor = root.readLine(sysfs_path + "/vendor").value_or("");
  f.device = root.readLine(sysfs_path + "/device").value_or("");
  f.class_code = root.readLine(sysfs_path + "/class").value_or("");
  auto numa = readInt(root, sysfs_path + "/numa_node");
  if (numa && *numa >= 0) f.numa_node = numa;
  f.link.current_width = readInt(root, sysfs_path + "/current_link_width");
  f.link.max_width = readInt(root, sysfs_path + "/max_link_width");
  if (auto s = root.readLine(sysfs_path + "/current_link_speed"))
    f.link.current_speed_gts = sys::parseLinkSpeedGts(*s);
  if (auto s = root.readLine(sysfs_path + "/max_link_speed"))
    f.link.max_speed_gts = sys::parseLinkSpeedGts(*s);
  if (auto drv = root.readLink(sysfs_path + "/driver")) f.driver = baseName(*drv);
  return f;
}

Sriov readSriov(const FileRoot& root, const std::string& sysfs_path) {
  Sriov s;
  s.num_vfs = readInt(root, sysfs_path + "/sriov_numvfs");
  s.total_vfs = readInt(root, sysfs_path + "/sriov_totalvfs");
  if (auto entries = root.listDir(sysfs_path)) {
    for (const auto& e : *entries) {
      if (startsWith(e, "virtfn")) {
        if (auto target = root.resolve(sysfs_path + "/" + e)) s.vfs.push_back(baseName(*target));
      }
      if (e == "physfn") {
        if (auto target = root.resolve(sysfs_path + "/physfn")) s.physfn = baseName(*target);
      }
    }
  }
  std::sort(s.vfs.begin(), s.vfs.end());
  return s;
}

std::vector<Gpu> readGpus(const FileRoot& root) {
  std::vector<Gpu> gpus;
  auto entries = root.listDir(sys::paths::kBusPciDevices);
  if (!entries) return gpus;
  for (const auto& name : *entries) {
    std::string link = std::string(sys::paths::kBusPciDevices) + "/" + name;
    auto vendor = root.readLine(link + "/vendor").value_or("");
    auto cls = root.readLine(link + "/class").value_or("");
    std::string vendor_name = vendor == "0x10de" ? "nvidia" : vendor == "0x1002" ? "amd" : "";
    bool display = startsWith(cls, "0x0302") || startsWith(cls, "0x0300") || startsWith(cls, "0x0380");
    if (vendor_name.empty() || !display) continue;
    auto path = root.resolve(link);
    if (!path) continue;
    Gpu gpu;
    gpu.vendor_name = vendor_name;
    gpu.pci = readPciFunction(root, *path);
    std::string info = std::string(sys::paths::kNvidiaGpus) + "/" + gpu.pci.address + "/information";
    if (auto text = root.readText(info)) {
      for (auto line : split(*text, '\n'))
        if (startsWith(line, "Model:")) gpu.model = std::string(trim(line.substr(6)));
    }
    gpus.push_back(std::move(gpu));
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const Gpu& a, const Gpu& b) { return a.pci.address < b.pci.address; });
  for (size_t i = 0; i < gpus.size(); ++i) gpus[i].name = "gpu" + std::to_string(i);
  return gpus;
}

std::vector<PciBridge> readBridges(const FileRoot& root, const std::vector<const PciFunction*>& below) {
  std::vector<PciBridge> bridges;
  std::set<std::string> seen;
  for (const PciFunction* f : below) {
    // The bridge's path is the function's path cut after the bridge address.
    for (const auto& addr : f->upstream_bridges) {
      auto at = f->sysfs_path.find("/" + addr + "/");
      if (at == std::string::npos) continue;
      std::string path = f->sysfs_path.substr(0, at + 1 + addr.size());
      if (!seen.insert(path).second) continue;
      PciBridge b;
      b.address = addr;
      b.sysfs_path = path;
      if (auto bytes = root.readBytes(path + "/config", sys::kPciConfigFullSize)) {
        b.config_size = bytes->size();
        auto acs = sys::parsePciConfigAcs(*bytes);
        b.acs_known = acs.known;
        b.acs_capable = acs.capable;
        b.acs_control = acs.control;
        b.request_redirect = acs.request_redirect();
        b.source_validation = acs.source_validation();
      }
      bridges.push_back(std::move(b));
    }
  }
  std::sort(bridges.begin(), bridges.end(),
            [](const PciBridge& a, const PciBridge& b) { return a.sysfs_path < b.sysfs_path; });
  return bridges;
}

}  // namespace railkit::model
