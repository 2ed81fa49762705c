#include "fabric/rails.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/strings.h"

namespace railkit::fabric {
namespace {

// "mlx5_3" -> ("mlx5_", 3); false without a trailing number.
bool splitDevice(const std::string& device, std::string& family, int& number) {
  std::size_t digits = device.size();
  while (digits > 0 && device[digits - 1] >= '0' && device[digits - 1] <= '9') --digits;
  if (digits == device.size() || digits == 0 || device.size() - digits > 6) return false;
  family = device.substr(0, digits);
  number = std::stoi(device.substr(digits));
  return true;
}

// "node017 ens1f0np0" -> host and device, any two words (given rail names
// need no device number).
bool splitHostDevice(const std::string& description, std::string& host, std::string& device) {
  auto words = splitWhitespace(description);
  if (words.size() != 2) return false;
  host = std::string(words[0]);
  device = std::string(words[1]);
  return true;
}

bool isAggregationNode(const Node& node) {
  return node.description.find("Aggregation Node") != std::string::npos;
}

// The rail family: the device prefix most host HCA ports use (ties: the
// first in name order, so the choice does not depend on input order).
std::string railFamily(const std::vector<HcaPort>& ports) {
  std::map<std::string, int> count;
  for (const auto& h : ports) {
    std::string family;
    int number = 0;
    if (splitDevice(h.device, family, number)) ++count[family];
  }
  std::string best;
  int most = 0;
  for (const auto& [family, n] : count)
    if (n > most) best = family, most = n;
  return best;
}

void countLeafRails(RailView& view) {
  view.leaf_rail_counts.assign(view.leaves.size(),
                               std::vector<int>(static_cast<std::size_t>(view.rails()), 0));
  for (const auto& h : view.hca_ports)
    if (h.rail >= 0) ++view.leaf_rail_counts[view.leafIndex(h.leaf)][h.rail];
  view.leaf_rail.assign(view.leaves.size(), -1);
  for (std::size_t l = 0; l < view.leaves.size(); ++l) {
    const auto& counts = view.leaf_rail_counts[l];
    int best = -1, most = 0;
    bool tie = false;
    for (int r = 0; r < static_cast<int>(counts.size()); ++r) {
      if (counts[r] > most) {
        best = r, most = counts[r], tie = false;
      } else if (counts[r] == most && most > 0) {
        tie = true;
      }
    }
    view.leaf_rail[l] = tie ? -1 : best;
  }
}

// Rails in the given order, by device name.
void assignGivenRails(RailView& view, const std::vector<std::string>& rail_names) {
  view.rail_names = rail_names;
  for (std::size_t i = 0; i < view.hca_ports.size(); ++i) {
    auto& h = view.hca_ports[i];
    auto it = std::find(view.rail_names.begin(), view.rail_names.end(), h.device);
    if (it == view.rail_names.end()) continue;
    h.rail = static_cast<int>(it - view.rail_names.begin());
    view.hosts[h.host].push_back(i);
  }
}

// Rails by device number within the family most HCAs use.
void assignFamilyRails(RailView& view) {
  view.family = railFamily(view.hca_ports);
  std::set<int> numbers;
  for (const auto& h : view.hca_ports) {
    std::string family;
    int number = 0;
    if (splitDevice(h.device, family, number) && family == view.family) numbers.insert(number);
  }
  view.device_numbers.assign(numbers.begin(), numbers.end());
  for (std::size_t i = 0; i < view.hca_ports.size(); ++i) {
    auto& h = view.hca_ports[i];
    std::string family;
    int number = 0;
    if (!splitDevice(h.device, family, number) || family != view.family) continue;
    h.rail =
        static_cast<int>(std::lower_bound(view.device_numbers.begin(), view.device_numbers.end(), number) -
                         view.device_numbers.begin());
    view.hosts[h.host].push_back(i);
  }
}

}  // namespace

bool splitHcaDescription(const std::string& description, std::string& host, std::string& device) {
  auto words = splitWhitespace(description);
  if (words.size() != 2) return false;
  std::string family;
  int number = 0;
  if (!splitDevice(std::string(words[1]), family, number)) return false;
  host = std::string(words[0]);
  device = std::string(words[1]);
  return true;
}

std::string switchName(const Node& node) {
  const std::string& d = node.description;
  auto semi = d.find(';');
  auto colon = semi == std::string::npos ? std::string::npos : d.find(':', semi + 1);
  if (colon != std::string::npos && colon > semi + 1) return d.substr(semi + 1, colon - semi - 1);
  return d.empty() ? node.id : d;
}

std::string RailView::railDevice(int rail) const {
  if (rail < 0 || rail >= rails()) return "?";
  if (!rail_names.empty()) return rail_names[rail];
  return family + std::to_string(device_numbers[rail]);
}

int RailView::leafIndex(std::size_t node) const {
  auto it = std::find(leaves.begin(), leaves.end(), node);
  return it == leaves.end() ? -1 : static_cast<int>(it - leaves.begin());
}

bool RailView::stray(int leaf_index, int rail) const {
  if (leaf_index < 0 || rail < 0) return false;
  int own = leaf_rail[leaf_index];
  if (own < 0 || own == rail) return false;
  const auto& counts = leaf_rail_counts[leaf_index];
  return counts[rail] > 0 && 2 * counts[rail] < counts[own];
}

RailView buildRailView(const Fabric& fabric, const HcaMap* map, const std::vector<std::string>* rail_names) {
  RailView view;
  bool given = rail_names != nullptr && !rail_names->empty();
  std::set<std::size_t> leaf_set;
  for (std::size_t c = 0; c < fabric.nodes.size(); ++c) {
    const Node& ca = fabric.nodes[c];
    if (ca.kind != NodeKind::kCa || isAggregationNode(ca)) continue;
    std::string host, device;
    const HcaMapEntry* mapped = map ? map->find(ca.id) : nullptr;
    bool named = mapped  ? (host = mapped->host, device = mapped->device, true)
                 : given ? splitHostDevice(ca.description, host, device)
                         : splitHcaDescription(ca.description, host, device);
    for (const auto& link : ca.ports) {
      if (fabric.nodes[link.peer].kind != NodeKind::kSwitch) continue;
      leaf_set.insert(link.peer);
      if (!named) continue;
      view.hca_ports.push_back(HcaPort{c, link.port, host, device, -1, link.peer, link.peer_port, &link});
    }
    if (!named && !ca.ports.empty()) view.unnamed.push_back(c);
  }
  if (given)
    assignGivenRails(view, *rail_names);
  else
    assignFamilyRails(view);
  for (std::size_t s = 0; s < fabric.nodes.size(); ++s) {
    if (fabric.nodes[s].kind != NodeKind::kSwitch) continue;
    (leaf_set.count(s) ? view.leaves : view.upper).push_back(s);
  }
  countLeafRails(view);
  return view;
}

}  // namespace railkit::fabric
