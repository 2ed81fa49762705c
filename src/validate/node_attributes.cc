// The node side of phase 2: an inventory reduced to (attribute, value) text
// pairs, and their JSON form for the trip to rank 0. Only what should be the
// same on every node of a cluster is listed (no GUIDs, addresses or LIDs),
// so every difference rank 0 finds is worth a line.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "validate/consistency.h"
#include "validate/subnet_plan.h"

namespace railkit::validate {
namespace {

class Attributes {
 public:
  void add(std::string name, std::string value, std::string label = {}) {
    if (label == name) label.clear();
    out_.push_back({std::move(name), std::move(value), std::move(label)});
  }
  std::vector<NodeAttribute> take() {
    // Stable, so a name listed twice (two ports sharing a netdev) keeps the first.
    std::stable_sort(out_.begin(), out_.end(),
                     [](const NodeAttribute& a, const NodeAttribute& b) { return a.name < b.name; });
    out_.erase(std::unique(out_.begin(), out_.end(),
                           [](const NodeAttribute& a, const NodeAttribute& b) { return a.name == b.name; }),
               out_.end());
    return std::move(out_);
  }

 private:
  std::vector<NodeAttribute> out_;
};

// "400 Gb/sec (4X NDR)" -> rate "400 Gb/sec", width "4X".
std::string rateOf(const model::RdmaPort& p) {
  std::string_view text = p.rate_text;
  auto paren = text.find('(');
  std::string rate(trim(text.substr(0, paren)));
  if (rate.empty() && p.rate_gbps) rate = fmt::format("{:g} Gb/sec", *p.rate_gbps);
  return rate;
}

std::string widthOf(const model::RdmaPort& p) {
  std::string_view text = p.rate_text;
  auto open = text.find('(');
  if (open == std::string_view::npos) return "";
  auto inside = splitWhitespace(text.substr(open + 1, text.find(')', open) - open - 1));
  return inside.empty() ? "" : std::string(inside.front());
}

// ::ffff:a.b.c.d as sysfs spells it: "0000:0000:0000:0000:0000:ffff:0a0a:0001".
bool ipv4Mapped(std::string_view gid) {
  auto groups = split(gid, ':');
  if (groups.size() != 8) return false;
  for (size_t i = 0; i < 5; ++i)
    if (parseHex(groups[i]).value_or(1) != 0) return false;
  return parseHex(groups[5]).value_or(0) == 0xffff;
}

// The index NCCL_IB_GID_INDEX must name on a RoCE port; -1 when the port has none.
int roceV2Ipv4GidIndex(const model::RdmaPort& p) {
  for (const auto& g : p.gids)
    if (g.type == "RoCE v2" && ipv4Mapped(g.gid)) return g.index;
  return -1;
}

std::optional<std::string> moduleVersion(const model::Inventory& inv, const std::string& module) {
  for (const auto& m : inv.modules)
    if (m.name == module) return m.version;
  return std::nullopt;
}

// A port's netdev: its MTU, and its first IPv4 address for the subnet plan
// (live inventories only; a --root capture has no addresses).
void addInterface(const model::NetInterface& n, Attributes& out) {
  if (n.mtu) out.add(n.name + " MTU", std::to_string(*n.mtu));
  for (const std::string& address : n.addresses) {
    if (address.find('.') == std::string::npos) continue;  // IPv6
    out.add(n.name + std::string(kRailAddressSuffix), address);
    break;
  }
}

// The rail of a device: the netdev of its first port that has one (a pod's
// net1 is the same rail on every node whatever the VF is called), else its name.
std::string railOf(const model::RdmaDevice& d) {
  for (const auto& p : d.ports)
    if (!p.netdev.empty()) return p.netdev;
  return d.name;
}

void addDevice(const model::Inventory& inv, const model::RdmaDevice& d, Attributes& out) {
  const std::string rail = railOf(d);
  auto add = [&](const std::string& what, std::string value) {
    out.add(rail + " " + what, std::move(value), d.name + " " + what);
  };
  if (!d.fw_ver.empty()) add("firmware", d.fw_ver);
  if (d.pci) {
    const auto& pci = *d.pci;
    if (!pci.driver.empty()) {
      add("driver", pci.driver);
      if (auto v = moduleVersion(inv, pci.driver)) add("driver version", *v);
    }
    if (pci.link.current_width) add("PCIe width", fmt::format("x{}", *pci.link.current_width));
    if (pci.link.current_speed_gts) add("PCIe speed", fmt::format("{:g} GT/s", *pci.link.current_speed_gts));
  }
  for (const auto& p : d.ports) {
    const std::string label = d.name + "/" + std::to_string(p.port);
    const std::string port = p.netdev.empty() ? label : p.netdev;
    auto add_port = [&](const std::string& what, std::string value) {
      out.add(port + " " + what, std::move(value), label + " " + what);
    };
    if (auto rate = rateOf(p); !rate.empty()) add_port("link rate", rate);
    if (auto width = widthOf(p); !width.empty()) add_port("link width", width);
    if (!p.link_layer.empty()) add_port("link layer", p.link_layer);
    // A port's state is phase 1's (rdma-nic-count, rdma-port-down): naming it
    // again as an outlier would say the same thing twice.
    if (p.link_layer == "Ethernet") {
      if (int index = roceV2Ipv4GidIndex(p); index >= 0)
        add_port("RoCE v2 IPv4 GID index", std::to_string(index));
    }
    if (!p.netdev.empty()) {
      for (const auto& n : inv.interfaces)
        if (n.name == p.netdev) addInterface(n, out);
    }
  }
}

// NCCL_IB_HCA and UCX_NET_DEVICES name devices, which differ from pod to pod
// with SR-IOV or DRA: each device name is compared as its rail (netdev).
std::string devicesAsRails(const model::Inventory& inv, std::string_view value) {
  std::string out;
  std::string token;
  auto flush = [&] {
    for (const auto& d : inv.rdma_devices) {
      if (d.name == token) {
        token = railOf(d);
        break;
      }
    }
    out += token;
    token.clear();
  };
  for (char c : value) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') {
      token.push_back(c);
    } else {
      flush();
      out.push_back(c);
    }
  }
  flush();
  return out;
}

// The model most GPUs report; a node mixing models is rare and shows as an
// outlier against nodes that do not.
std::string commonGpuModel(const std::vector<model::Gpu>& gpus) {
  std::map<std::string, int> count;
  for (const auto& g : gpus)
    if (!g.model.empty()) ++count[g.model];
  std::string best;
  int best_count = 0;
  for (const auto& g : gpus) {  // in GPU order, so a tie goes to the first GPU's model
    if (g.model.empty()) continue;
    if (int c = count[g.model]; c > best_count) {
      best = g.model;
      best_count = c;
    }
  }
  return best;
}

}  // namespace

std::vector<NodeAttribute> nodeAttributes(const model::Inventory& inventory) {
  Attributes out;
  for (const auto& d : inventory.rdma_devices) addDevice(inventory, d, out);
  out.add("RDMA device count", std::to_string(inventory.rdma_devices.size()));
  if (inventory.rdma_netns_shared)
    out.add("RDMA netns mode", *inventory.rdma_netns_shared ? "shared" : "exclusive");
  out.add("GPU count", std::to_string(inventory.gpus.size()));
  if (auto model = commonGpuModel(inventory.gpus); !model.empty()) out.add("GPU model", model);
  for (const auto& [key, value] : inventory.process.env) {
    if (key == "NCCL_IB_HCA" || key == "UCX_NET_DEVICES") {
      out.add("env " + key, devicesAsRails(inventory, value));
    } else if (startsWith(key, "NCCL_") || startsWith(key, "UCX_")) {
      out.add("env " + key, value);
    }
  }
  return out.take();
}

nlohmann::json attributeLabelsToJson(const std::vector<NodeAttribute>& attributes) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& a : attributes)
    if (!a.label.empty()) j[a.name] = a.label;
  return j;
}

Status applyAttributeLabels(const nlohmann::json& labels, std::vector<NodeAttribute>& attributes) {
  if (!labels.is_object())
    return makeError(ErrorCode::kInvalidInput,
                     std::string("attribute labels: expected a JSON object, got ") + labels.type_name());
  for (auto& a : attributes) {
    auto it = labels.find(a.name);
    if (it == labels.end()) continue;
    if (!it->is_string())
      return makeError(ErrorCode::kInvalidInput,
                       "attribute labels: \"" + a.name + "\" is " + it->type_name() + ", expected a string");
    a.label = it->get<std::string>();
  }
  return okStatus();
}

nlohmann::json attributesToJson(const std::vector<NodeAttribute>& attributes) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& a : attributes) j[a.name] = a.value;
  return j;
}

Result<std::vector<NodeAttribute>> attributesFromJson(const nlohmann::json& object) {
  if (!object.is_object())
    return makeError(ErrorCode::kInvalidInput,
                     std::string("node attributes: expected a JSON object, got ") + object.type_name());
  std::vector<NodeAttribute> out;
  out.reserve(object.size());
  for (const auto& [name, value] : object.items()) {
    if (!value.is_string())
      return makeError(ErrorCode::kInvalidInput,
                       "node attributes: \"" + name + "\" is " + value.type_name() + ", expected a string");
    out.push_back({name, value.get<std::string>()});
  }
  // nlohmann's object keeps its keys sorted, so `out` is sorted and unique as
  // nodeAttributes promises.
  return out;
}

}  // namespace railkit::validate
