// Rank 0's side of phase 2: one pass over every node's attributes counts the
// values of each attribute, then every node off the most common value is an
// outlier. Linear in nodes x attributes (1024 nodes of ~150 attributes is a
// few hundred thousand map steps), so it holds at cluster scale.
#include "validate/consistency.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "validate/subnet_plan.h"

namespace railkit::validate {
namespace {

constexpr const char* kAbsent = "(absent)";
constexpr int kNoValue = -1;

// The values one attribute takes across the nodes.
struct AttributeValues {
  std::vector<std::string> values;                // distinct, in order of first appearance
  std::vector<int> counts;                        // nodes per value
  std::unordered_map<std::string, int> index;     // value -> position in `values`
  std::vector<int> of_node;                       // value index per node; kNoValue = absent
  std::vector<const std::string*> label_of_node;  // each node's label, null when it has none
};

// How `node` names the attribute, else the first node that labels it, else the key.
const std::string& labelFor(const std::string& key, const AttributeValues& a, int node) {
  if (const std::string* own = a.label_of_node[static_cast<size_t>(node)]) return *own;
  for (const std::string* other : a.label_of_node)
    if (other) return *other;
  return key;
}

const std::string& valueText(const AttributeValues& a, int v) {
  static const std::string absent = kAbsent;
  return v == kNoValue ? absent : a.values[static_cast<size_t>(v)];
}

// "node-3" or "3 nodes (node-3, node-7, node-9)"; at most 5 hosts named.
std::string hostList(const std::vector<std::string>& hosts) {
  if (hosts.size() == 1) return hosts.front();
  constexpr size_t kShown = 5;
  std::string names;
  for (size_t i = 0; i < hosts.size() && i < kShown; ++i) names += (i ? ", " : "") + hosts[i];
  if (hosts.size() > kShown) names += " and " + std::to_string(hosts.size() - kShown) + " more";
  return std::to_string(hosts.size()) + " nodes (" + names + ")";
}

std::string nodesWord(int n) {
  return std::to_string(n) + (n == 1 ? " node" : " nodes");
}

}  // namespace

std::vector<Outlier> findOutliers(const std::vector<NodeAttributes>& nodes) {
  std::vector<Outlier> out;
  if (nodes.size() < 2) return out;
  const int n = static_cast<int>(nodes.size());
  // Sorted by attribute name, which is the output order.
  std::map<std::string, AttributeValues, std::less<>> attributes;
  for (int node = 0; node < n; ++node) {
    for (const auto& a : nodes[static_cast<size_t>(node)].attributes) {
      if (isRailAddress(a.name)) continue;  // each node's own; findSubnetPlans judges them
      auto& values = attributes[a.name];
      if (values.of_node.empty()) {
        values.of_node.assign(static_cast<size_t>(n), kNoValue);
        values.label_of_node.assign(static_cast<size_t>(n), nullptr);
      }
      auto [it, added] = values.index.try_emplace(a.value, static_cast<int>(values.values.size()));
      if (added) {
        values.values.push_back(a.value);
        values.counts.push_back(0);
      }
      // A name listed twice by one node counts once (the first), as nodeAttributes keeps it.
      if (values.of_node[static_cast<size_t>(node)] != kNoValue) continue;
      values.of_node[static_cast<size_t>(node)] = it->second;
      if (!a.label.empty()) values.label_of_node[static_cast<size_t>(node)] = &a.label;
      ++values.counts[static_cast<size_t>(it->second)];
    }
  }
  for (const auto& [name, values] : attributes) {
    int holders = 0;
    for (int c : values.counts) holders += c;
    // Lacking an attribute is a value like any other: a node without the
    // device the others have, or the one node setting a variable nobody
    // else sets, is named either way.
    const int absent = n - holders;
    int best = 0;
    for (int c : values.counts) best = std::max(best, c);
    best = std::max(best, absent);
    int at_best = absent == best ? 1 : 0;
    for (int c : values.counts) at_best += c == best ? 1 : 0;
    if (at_best == 1 && best == n) continue;  // every node agrees
    // The majority value: the most common, and on a tie the one the
    // earliest node holds, so the choice is stable across runs.
    int majority = kNoValue;
    for (int node = 0; node < n; ++node) {
      int v = values.of_node[static_cast<size_t>(node)];
      if ((v == kNoValue ? absent : values.counts[static_cast<size_t>(v)]) == best) {
        majority = v;
        break;
      }
    }
    for (int node = 0; node < n; ++node) {
      int v = values.of_node[static_cast<size_t>(node)];
      if (v == majority) continue;
      out.push_back({labelFor(name, values, node), name, nodes[static_cast<size_t>(node)].host,
                     valueText(values, v), valueText(values, majority), best, at_best > 1});
    }
  }
  return out;
}

std::vector<std::string> formatOutliers(const std::vector<Outlier>& outliers, int nodes) {
  // Groups of (attribute, value) in order of first appearance; outliers come
  // grouped by attribute, so only the groups of the current attribute are open.
  struct Group {
    const Outlier* first;
    std::vector<std::string> hosts;
  };
  std::vector<std::string> lines;
  std::vector<Group> groups;
  auto flush = [&] {
    for (const auto& g : groups) {
      const Outlier& o = *g.first;
      std::string line = hostList(g.hosts) + " " + o.attribute + " " + o.value + "; ";
      int others = nodes - static_cast<int>(g.hosts.size());
      if (o.tie)
        line += "no majority (" + nodesWord(o.majority_count) + (o.majority_count == 1 ? " has " : " have ") +
                o.majority_value + ")";
      else if (o.majority_count == others)
        line += "the " + std::to_string(others) + (others == 1 ? " other " : " others ") + o.majority_value;
      else
        line += std::to_string(o.majority_count) + " of the " + std::to_string(others) + " others " +
                o.majority_value;
      lines.push_back(std::move(line));
    }
    groups.clear();
  };
  for (const auto& o : outliers) {
    if (!groups.empty() && groups.front().first->key != o.key) flush();
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.first->value == o.value; });
    if (it == groups.end())
      groups.push_back({&o, {o.host}});
    else
      it->hosts.push_back(o.host);
  }
  flush();
  return lines;
}

nlohmann::json outliersToJson(const std::vector<Outlier>& outliers) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : outliers) {
    nlohmann::json j = {{"attribute", o.attribute},
                        {"host", o.host},
                        {"value", o.value},
                        {"majority_value", o.majority_value},
                        {"majority_count", o.majority_count}};
    if (o.tie) j["tie"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace railkit::validate
