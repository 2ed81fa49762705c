#include "fabric/scheduler_topology.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <set>

#include "core/strings.h"
#include "core/version.h"
#include "fabric/rails.h"

namespace railkit::fabric {
namespace {

constexpr std::size_t kLabelTiers = std::size(kTopologyLabels);

// Text from the input (a file name) inside a '#' comment: one line, printable.
std::string commentText(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  return out;
}

bool slurmNameChars(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

// Host name -> node name, for the hosts every output can name.
struct NodeNames {
  std::map<std::string, std::string> node;  // host -> node name
  std::vector<std::string> skipped;
};

NodeNames nodeNames(const FabricTiers& tiers) {
  NodeNames names;
  std::map<std::string, std::string> taken;  // node name -> host
  for (const auto& [host, groups] : tiers.host_groups) {
    std::string node = toLower(host);
    if (!isDnsSubdomain(node) || !slurmNameChars(host)) {
      names.skipped.push_back(host + ": not a Kubernetes node name (lowercase letters, digits, '-' and '.')");
    } else if (auto [it, fresh] = taken.emplace(node, host); !fresh) {
      names.skipped.push_back(fmt::format("{}: the same node name as host {}", host, it->second));
    } else {
      names.node[host] = node;
    }
  }
  return names;
}

// Groups that name at least one node, per tier (a block whose every host was
// skipped, and the groups above only such blocks, are left out).
std::vector<std::vector<bool>> namedGroups(const FabricTiers& tiers, const NodeNames& names) {
  std::vector<std::vector<bool>> kept;
  for (std::size_t t = 0; t < tiers.tiers.size(); ++t) {
    kept.emplace_back();
    for (const auto& g : tiers.tiers[t]) {
      bool any =
          std::any_of(g.hosts.begin(), g.hosts.end(), [&](const auto& h) { return names.node.count(h); });
      kept.back().push_back(any);
    }
  }
  return kept;
}

std::vector<std::string> switchNames(const Fabric& fabric, const SwitchGroup& g) {
  std::vector<std::string> out;
  for (auto s : g.switches) out.push_back(switchName(fabric.nodes[s]));
  return out;
}

nlohmann::json labelsDocument(const Fabric& fabric, const FabricTiers& tiers, const NodeNames& names,
                              const std::vector<std::vector<bool>>& kept) {
  std::size_t levels = std::min(tiers.tiers.size(), kLabelTiers);
  nlohmann::json keys = nlohmann::json::array(), groups = nlohmann::json::array();
  nlohmann::json nodes = nlohmann::json::object();
  for (std::size_t t = 0; t < levels; ++t) {
    keys.push_back(kTopologyLabels[t]);
    for (std::size_t g = 0; g < tiers.tiers[t].size(); ++g) {
      if (!kept[t][g]) continue;
      const SwitchGroup& group = tiers.tiers[t][g];
      nlohmann::json members = nlohmann::json::array();
      for (const auto& host : group.hosts) {
        auto it = names.node.find(host);
        if (it == names.node.end()) continue;
        members.push_back(it->second);
        nodes[it->second][kTopologyLabels[t]] = group.name;
      }
      groups.push_back({{"label", kTopologyLabels[t]},
                        {"value", group.name},
                        {"switches", switchNames(fabric, group)},
                        {"nodes", members}});
    }
  }
  return {{"kind", "railkit.node-labels/v1"},
          {"railkit_version", kRailkitVersion},
          {"source", fabric.source},
          {"labels", keys},
          {"groups", groups},
          {"nodes", nodes},
          {"skipped", names.skipped}};
}

std::string labelScript(const Fabric& fabric, const FabricTiers& tiers, const NodeNames& names) {
  std::size_t levels = std::min(tiers.tiers.size(), kLabelTiers);
  std::string out = fmt::format(
      "#!/bin/sh\n"
      "# Network topology labels (NVIDIA topograph's keys) for {} nodes, written by railkit fabric\n"
      "# from {}. Run it where kubectl reaches the cluster; KUBECTL names another client.\n"
      "set -eu\n"
      "KUBECTL=${{KUBECTL:-kubectl}}\n",
      names.node.size(), commentText(fabric.source));
  for (const auto& [host, groups] : tiers.host_groups) {
    auto it = names.node.find(host);
    if (it == names.node.end()) continue;
    std::string line = "\"$KUBECTL\" label node --overwrite " + shellWord(it->second);
    for (std::size_t t = 0; t < levels && t < groups.size(); ++t)
      line += " " + shellWord(std::string(kTopologyLabels[t]) + "=" + tiers.tiers[t][groups[t]].name);
    out += line + "\n";
  }
  return out;
}

std::vector<nlohmann::json> hyperNodes(const FabricTiers& tiers, const NodeNames& names,
                                       const std::vector<std::vector<bool>>& kept) {
  std::vector<nlohmann::json> out;
  for (std::size_t t = 0; t < tiers.tiers.size(); ++t)
    for (std::size_t g = 0; g < tiers.tiers[t].size(); ++g) {
      if (!kept[t][g]) continue;
      const SwitchGroup& group = tiers.tiers[t][g];
      nlohmann::json members = nlohmann::json::array();
      if (t == 0) {
        for (const auto& host : group.hosts)
          if (auto it = names.node.find(host); it != names.node.end())
            members.push_back({{"type", "Node"}, {"selector", {{"exactMatch", {{"name", it->second}}}}}});
      } else {
        for (auto child : group.children)
          if (kept[t - 1][child])
            members.push_back({{"type", "HyperNode"},
                               {"selector", {{"exactMatch", {{"name", tiers.tiers[t - 1][child].name}}}}}});
      }
      out.push_back(
          {{"apiVersion", "topology.volcano.sh/v1alpha1"},
           {"kind", "HyperNode"},
           {"metadata", {{"name", group.name}, {"labels", {{"app.kubernetes.io/managed-by", "railkit"}}}}},
           {"spec", {{"tier", t + 1}, {"tierName", tierName(t)}, {"members", members}}}});
    }
  return out;
}

nlohmann::json kueueTopology(const FabricTiers& tiers, const std::string& name) {
  std::size_t levels = std::min(tiers.tiers.size(), kLabelTiers);
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t t = levels; t-- > 0;) list.push_back({{"nodeLabel", kTopologyLabels[t]}});
  list.push_back({{"nodeLabel", kHostnameLabel}});
  return {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
          {"kind", "Topology"},
          {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/managed-by", "railkit"}}}}},
          {"spec", {{"levels", list}}}};
}

std::string slurmTopology(const Fabric& fabric, const FabricTiers& tiers, const NodeNames& names,
                          const std::vector<std::vector<bool>>& kept) {
  std::string out = fmt::format(
      "# Slurm topology.conf for TopologyPlugin=topology/tree, written by railkit fabric from {}.\n"
      "# One switch per group of the fabric's switches: a block is the leaves a set of nodes shares\n"
      "# (one per rail), each tier above the switches over those groups.\n",
      commentText(fabric.source));
  for (std::size_t t = 0; t < tiers.tiers.size(); ++t)
    for (std::size_t g = 0; g < tiers.tiers[t].size(); ++g) {
      if (!kept[t][g]) continue;
      const SwitchGroup& group = tiers.tiers[t][g];
      std::vector<std::string> members;
      if (t == 0) {
        for (const auto& host : group.hosts)
          if (names.node.count(host)) members.push_back(host);
      } else {
        for (auto child : group.children)
          if (kept[t - 1][child]) members.push_back(tiers.tiers[t - 1][child].name);
      }
      out += fmt::format("# {} {}: {}\n", tierName(t), group.name,
                         commentText(fmt::format("{}", fmt::join(switchNames(fabric, group), " "))));
      out += fmt::format("SwitchName={} {}={}\n", group.name, t == 0 ? "Nodes" : "Switches",
                         slurmHostlist(members));
    }
  return out;
}

// "node017" -> {"node", "017"}; no trailing digits -> {name, ""}.
std::pair<std::string, std::string> splitNumber(const std::string& name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  // Slurm reads at most a few digits as a range; a longer number stays a name.
  if (name.size() - digits > 9) return {name, ""};
  return {name.substr(0, digits), name.substr(digits)};
}

}  // namespace

std::string tierName(std::size_t tier) {
  static const char* const kNames[] = {"block", "spine", "datacenter"};
  return tier < std::size(kNames) ? kNames[tier] : "tier-" + std::to_string(tier + 1);
}

bool isDnsSubdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  for (auto part : split(name, '.')) {
    if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-') return false;
    for (char c : part)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

std::string slurmHostlist(std::vector<std::string> names) {
  // Runs share a prefix and a number width ("node" + 3 digits).
  std::map<std::pair<std::string, std::size_t>, std::vector<std::string>> runs;
  std::vector<std::string> plain;
  for (auto& name : names) {
    auto [prefix, number] = splitNumber(name);
    if (number.empty())
      plain.push_back(name);
    else
      runs[{prefix, number.size()}].push_back(number);
  }
  std::vector<std::string> parts;
  for (auto& [key, numbers] : runs) {
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    if (numbers.size() == 1) {
      parts.push_back(key.first + numbers.front());
      continue;
    }
    std::vector<std::string> ranges;
    for (std::size_t i = 0; i < numbers.size();) {
      std::size_t j = i;
      while (j + 1 < numbers.size() && std::stoull(numbers[j + 1]) == std::stoull(numbers[j]) + 1) ++j;
      ranges.push_back(i == j ? numbers[i] : numbers[i] + "-" + numbers[j]);
      i = j + 1;
    }
    parts.push_back(fmt::format("{}[{}]", key.first, fmt::join(ranges, ",")));
  }
  std::sort(plain.begin(), plain.end());
  plain.erase(std::unique(plain.begin(), plain.end()), plain.end());
  parts.insert(parts.end(), plain.begin(), plain.end());
  return fmt::format("{}", fmt::join(parts, ","));
}

SchedulerTopology schedulerTopology(const Fabric& fabric, const FabricTiers& tiers,
                                    const std::string& topology_name) {
  NodeNames names = nodeNames(tiers);
  auto kept = namedGroups(tiers, names);
  SchedulerTopology out;
  out.source = fabric.source;
  out.node_labels = labelsDocument(fabric, tiers, names, kept);
  out.label_script = labelScript(fabric, tiers, names);
  out.hypernodes = hyperNodes(tiers, names, kept);
  out.kueue_topology = kueueTopology(tiers, topology_name);
  out.slurm_topology = slurmTopology(fabric, tiers, names, kept);
  out.skipped = std::move(names.skipped);
  return out;
}

}  // namespace railkit::fabric
