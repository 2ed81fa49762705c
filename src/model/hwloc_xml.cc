#include "model/hwloc_xml.h"

#include <algorithm>
#include <pugixml.hpp>

#include "core/input_file.h"
#include "core/strings.h"
#include "model/collect_parts.h"
#include "sys/paths.h"

namespace railkit::model {

namespace {

constexpr int kMaxDepth = 256;
constexpr std::size_t kMaxHwlocXmlBytes = std::size_t{32} << 20;

// Lowest NUMA node of an hwloc nodeset ("0x00000002", "0x0,0x00000010"):
// words are 32-bit, most significant first. nullopt when empty or when
// several nodes are set (the object is not local to one node).
std::optional<int> singleNode(std::string_view nodeset) {
  auto words = split(nodeset, ',');
  std::optional<int> found;
  int count = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    auto v = parseHex(trim(words[i]));
    if (!v) return std::nullopt;
    int base = static_cast<int>((words.size() - 1 - i) * 32);
    for (int bit = 0; bit < 64; ++bit)
      if ((*v >> bit) & 1) {
        ++count;
        found = base + bit;
      }
  }
  if (count != 1) return std::nullopt;
  return found;
}

struct Walker {
  bool bitmask_types = false;  // hwloc 3.0
  HwlocTopology out;

  bool isOpenFabrics(int type) const { return bitmask_types ? (type & 32) != 0 : type == 3; }

  void walk(const pugi::xml_node& node, const std::string& host, std::vector<std::string>& bridges,
            std::optional<int> numa, int depth) {
    if (depth > kMaxDepth) return;
    for (auto child : node.children("object")) {
      std::string type = child.attribute("type").value();
      std::optional<int> child_numa = numa;
      if (auto ns = child.attribute("nodeset"); !ns.empty() && type != "PCIDev" && type != "Bridge")
        child_numa = singleNode(ns.value());
      if (type == "Bridge") {
        std::string bt = child.attribute("bridge_type").value();
        if (startsWith(bt, "0-")) {  // host bridge: "0000:[60-64]" -> "pci0000:60"
          std::string range = child.attribute("bridge_pci").value();
          std::string id = range;
          if (auto lb = range.find('['); lb != std::string::npos && lb + 3 <= range.size())
            id = range.substr(0, lb) + range.substr(lb + 1, 2);
          std::vector<std::string> fresh;
          walk(child, "pci" + id, fresh, child_numa, depth + 1);
        } else {
          bridges.push_back(child.attribute("pci_busid").value());
          walk(child, host, bridges, child_numa, depth + 1);
          bridges.pop_back();
        }
        continue;
      }
      if (type == "PCIDev") addPciDev(child, host, bridges, numa);
      walk(child, host, bridges, child_numa, depth + 1);
    }
  }

  void addPciDev(const pugi::xml_node& dev, const std::string& host, const std::vector<std::string>& bridges,
                 std::optional<int> numa) {
    PciFunction f;
    f.address = dev.attribute("pci_busid").value();
    // pci_type: "0302 [10de:15f8] [10de:118f] a1"
    auto words = splitWhitespace(dev.attribute("pci_type").value());
    if (words.size() >= 2 && words[1].size() == 11) {
      f.class_code = "0x" + std::string(words[0]);
      f.vendor = "0x" + std::string(words[1].substr(1, 4));
      f.device = "0x" + std::string(words[1].substr(6, 4));
    }
    f.numa_node = numa;
    f.upstream_bridges = bridges;
    f.sysfs_path = std::string(sys::paths::kDevicesPrefix) + (host.empty() ? "pci-unknown" : host);
    for (const auto& b : bridges) f.sysfs_path += "/" + b;
    f.sysfs_path += "/" + f.address;
    std::string vendor = toLower(f.vendor);
    bool display = startsWith(f.class_code, "0x0300") || startsWith(f.class_code, "0x0302") ||
                   startsWith(f.class_code, "0x0380");
    if (display && (vendor == "0x10de" || vendor == "0x1002")) {
      Gpu gpu;
      gpu.vendor_name = vendor == "0x10de" ? "nvidia" : "amd";
      for (auto info : dev.children("info"))
        if (std::string(info.attribute("name").value()) == "PCIDevice")
          gpu.model = info.attribute("value").value();
      gpu.pci = f;
      out.gpus.push_back(std::move(gpu));
    }
    for (auto os : dev.children("object")) {
      if (std::string(os.attribute("type").value()) != "OSDev") continue;
      auto t = parseInt(os.attribute("osdev_type").value());
      if (t && isOpenFabrics(static_cast<int>(*t))) out.nics.push_back({os.attribute("name").value(), f});
    }
  }
};

}  // namespace

Result<HwlocTopology> parseHwlocXml(std::string_view xml, const std::string& where) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed)
    return makeError(ErrorCode::kInvalidInput, where + ": not XML (" + parsed.description() + " at byte " +
                                                   std::to_string(parsed.offset) + ")");
  auto top = doc.child("topology");
  if (!top) return makeError(ErrorCode::kInvalidInput, where + ": expected an hwloc <topology> root element");
  Walker w;
  std::string version = top.attribute("version").value();
  w.out.version = version.empty() ? "1.x" : version;
  w.bitmask_types = startsWith(version, "3.");
  std::vector<std::string> bridges;
  w.walk(top, "", bridges, std::nullopt, 0);
  auto byAddress = [](const auto& a, const auto& b) { return a.pci.address < b.pci.address; };
  std::stable_sort(w.out.gpus.begin(), w.out.gpus.end(), byAddress);
  for (size_t i = 0; i < w.out.gpus.size(); ++i) w.out.gpus[i].name = "gpu" + std::to_string(i);
  std::stable_sort(w.out.nics.begin(), w.out.nics.end(),
                   [](const HwlocNic& a, const HwlocNic& b) { return a.name < b.name; });
  return w.out;
}

Result<HwlocTopology> loadHwlocXml(const std::string& path) {
  // The export of a big machine (hundreds of cores, every PCI device) is a
  // few MB; the cap leaves plenty of room and stops /dev/zero at once.
  auto text = readInputFile(path, {"--hwloc-xml", kMaxHwlocXmlBytes, false});
  if (!text) return tl::unexpected(text.error());
  return parseHwlocXml(*text, path);
}

void applyHwlocTopology(const HwlocTopology& topo, Inventory& inv) {
  inv.gpus = topo.gpus;
  for (auto& d : inv.rdma_devices) d.pci.reset();
  for (const auto& nic : topo.nics) {
    auto it = std::find_if(inv.rdma_devices.begin(), inv.rdma_devices.end(),
                           [&](const RdmaDevice& d) { return d.name == nic.name; });
    if (it == inv.rdma_devices.end()) {
      RdmaDevice d;
      d.name = nic.name;
      inv.rdma_devices.push_back(d);
      it = inv.rdma_devices.end() - 1;
    }
    it->pci = nic.pci;
  }
  std::sort(inv.rdma_devices.begin(), inv.rdma_devices.end(),
            [](const RdmaDevice& a, const RdmaDevice& b) { return a.name < b.name; });
  inv.bridges.clear();
  inv.topology.gpu_nic = computeGpuNicDistances(inv);
}

}  // namespace railkit::model
