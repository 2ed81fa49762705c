#include "fabric/tiers.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace railkit::fabric {
namespace {

// Kueue's Topology holds at most 16 levels, one of them the host: a fabric
// deeper than that is not one a scheduler can be given.
constexpr std::size_t kMaxTiers = 15;

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::size_t> parent_;
};

// Each switch's tier: 1 for the leaves, one more for each hop up. Switches
// no leaf reaches stay 0.
std::vector<std::size_t> switchTiers(const Fabric& fabric, const RailView& view) {
  std::vector<std::size_t> tier(fabric.nodes.size(), 0);
  std::vector<std::size_t> frontier = view.leaves;
  for (auto leaf : frontier) tier[leaf] = 1;
  for (std::size_t t = 1; !frontier.empty() && t < kMaxTiers; ++t) {
    std::vector<std::size_t> next;
    for (auto s : frontier)
      for (const auto& link : fabric.nodes[s].ports) {
        if (link.peer >= fabric.nodes.size() || fabric.nodes[link.peer].kind != NodeKind::kSwitch ||
            tier[link.peer] != 0)
          continue;
        tier[link.peer] = t + 1;
        next.push_back(link.peer);
      }
    frontier = std::move(next);
  }
  return tier;
}

// Sorts a tier's groups by name and gives each a name no group of any tier
// has (`used`): a second group whose first switch's name cleans to the same
// label gets "-2". Labels, HyperNodes and Slurm's switches share the names.
void nameAndSort(const Fabric& fabric, std::vector<SwitchGroup>& groups, std::set<std::string>& used) {
  for (auto& g : groups) {
    std::sort(g.switches.begin(), g.switches.end(), [&](std::size_t a, std::size_t b) {
      return switchName(fabric.nodes[a]) < switchName(fabric.nodes[b]);
    });
    const Node& first = fabric.nodes[g.switches.front()];
    g.name = dnsLabel(switchName(first));
    if (g.name.empty()) g.name = dnsLabel(first.id);
    if (g.name.empty()) g.name = "switch-" + std::to_string(g.switches.front());
    std::sort(g.hosts.begin(), g.hosts.end());
  }
  std::sort(groups.begin(), groups.end(),
            [](const SwitchGroup& a, const SwitchGroup& b) { return a.name < b.name; });
  for (auto& g : groups) {
    std::string name = g.name;
    for (int n = 2; used.count(name); ++n) {
      std::string suffix = "-" + std::to_string(n);
      name = g.name.substr(0, 63 - suffix.size()) + suffix;
    }
    used.insert(name);
    g.name = name;
  }
}

std::vector<SwitchGroup> blockGroups(const Fabric& fabric, const RailView& view,
                                     std::set<std::string>& used) {
  std::vector<int> leaf_index(fabric.nodes.size(), -1);
  for (std::size_t l = 0; l < view.leaves.size(); ++l) leaf_index[view.leaves[l]] = static_cast<int>(l);
  DisjointSets sets(fabric.nodes.size());
  std::map<std::string, std::size_t> home;  // host -> one leaf of its own rails
  for (const auto& [host, ports] : view.hosts) {
    std::size_t first = kNoNode;
    for (auto i : ports) {
      const HcaPort& h = view.hca_ports[i];
      if (view.stray(leaf_index[h.leaf], h.rail)) continue;
      if (first == kNoNode)
        first = h.leaf;
      else
        sets.unite(first, h.leaf);
    }
    // Every cable of the host strays: it still belongs where its cables are.
    home[host] = first != kNoNode ? first : view.hca_ports[ports.front()].leaf;
  }
  std::map<std::size_t, SwitchGroup> by_root;
  for (const auto& [host, leaf] : home) by_root[sets.find(leaf)].hosts.push_back(host);
  for (auto leaf : view.leaves) {
    auto it = by_root.find(sets.find(leaf));
    if (it != by_root.end()) it->second.switches.push_back(leaf);
  }
  std::vector<SwitchGroup> groups;
  for (auto& [root, g] : by_root) groups.push_back(std::move(g));
  nameAndSort(fabric, groups, used);
  return groups;
}

// The groups one tier above `below` (whose switches are at tier `tier`).
std::vector<SwitchGroup> groupsAbove(const Fabric& fabric, const std::vector<std::size_t>& switch_tier,
                                     std::size_t tier, const std::vector<SwitchGroup>& below,
                                     std::set<std::string>& used) {
  DisjointSets sets(fabric.nodes.size());
  std::vector<std::size_t> parent_switch(below.size(), kNoNode);
  for (std::size_t g = 0; g < below.size(); ++g)
    for (auto s : below[g].switches)
      for (const auto& link : fabric.nodes[s].ports) {
        if (link.peer >= fabric.nodes.size() || switch_tier[link.peer] != tier + 1) continue;
        if (parent_switch[g] == kNoNode)
          parent_switch[g] = link.peer;
        else
          sets.unite(parent_switch[g], link.peer);
      }
  std::map<std::size_t, SwitchGroup> by_root;
  for (std::size_t g = 0; g < below.size(); ++g) {
    if (parent_switch[g] == kNoNode) continue;
    SwitchGroup& up = by_root[sets.find(parent_switch[g])];
    up.children.push_back(g);
    up.hosts.insert(up.hosts.end(), below[g].hosts.begin(), below[g].hosts.end());
  }
  for (std::size_t s = 0; s < fabric.nodes.size(); ++s) {
    if (switch_tier[s] != tier + 1) continue;
    auto it = by_root.find(sets.find(s));
    if (it != by_root.end()) it->second.switches.push_back(s);
  }
  std::vector<SwitchGroup> groups;
  for (auto& [root, g] : by_root) groups.push_back(std::move(g));
  nameAndSort(fabric, groups, used);
  return groups;
}

}  // namespace

std::string dnsLabel(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    out += keep ? c : '-';
  }
  auto begin = out.find_first_not_of('-');
  if (begin == std::string::npos) return "";
  out = out.substr(begin, 63);
  out.erase(out.find_last_not_of('-') + 1);
  return out;
}

FabricTiers buildTiers(const Fabric& fabric, const RailView& view) {
  FabricTiers result;
  if (view.hosts.empty()) return result;
  auto switch_tier = switchTiers(fabric, view);
  std::set<std::string> used;
  result.tiers.push_back(blockGroups(fabric, view, used));
  for (std::size_t tier = 1; result.tiers.size() < kMaxTiers; ++tier) {
    auto above = groupsAbove(fabric, switch_tier, tier, result.tiers.back(), used);
    if (above.empty()) break;
    result.tiers.push_back(std::move(above));
  }
  for (const auto& level : result.tiers)
    for (std::size_t g = 0; g < level.size(); ++g)
      for (const auto& host : level[g].hosts) result.host_groups[host].push_back(g);
  return result;
}

}  // namespace railkit::fabric
