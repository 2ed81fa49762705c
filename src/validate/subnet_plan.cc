// Rank 0's side of the subnet plan: per rail, the nodes' networks decide the
// plan (a strict majority in one subnet is shared, else each node has its own
// block), then every node off the plan is named, by the rail whose range its
// address falls in when there is one.
#include "validate/subnet_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/ipv4.h"

namespace railkit::validate {
namespace {

struct Member {
  size_t node;
  Ipv4Net net;  // the node's address and prefix
};

// The longest prefix that holds every member's network (never longer than
// the shortest member prefix); `skip` leaves one member out.
Ipv4Net commonRange(const std::vector<Member>& members, size_t skip = SIZE_MAX) {
  Ipv4Net range;
  bool first = true;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i == skip) continue;
    const Ipv4Net& net = members[i].net;
    if (first) {
      range = {net.network(), net.prefix};
      first = false;
      continue;
    }
    range.prefix = std::min(range.prefix, net.prefix);
    while (range.prefix > 0 && !Ipv4Net{range.address, range.prefix}.contains(net.address)) --range.prefix;
    range.address = Ipv4Net{range.address, range.prefix}.network();
  }
  return range;
}

struct RailAnalysis {
  RailPlan plan;
  Ipv4Net range;
  std::vector<size_t> off_plan;  // indexes into the rail's members
};

// Shared when a strict majority (2 or more) of the nodes sit in one subnet.
bool sharedPlan(const std::vector<Member>& members, RailAnalysis& out) {
  std::map<std::pair<uint32_t, int>, int> subnets;
  for (const Member& m : members) ++subnets[{m.net.network(), m.net.prefix}];
  auto best = std::max_element(subnets.begin(), subnets.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best->second < 2 || best->second * 2 <= static_cast<int>(members.size())) return false;
  out.range = {best->first.first, best->first.second};
  out.plan.plan = "shared";
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i].net.network() != out.range.network() || members[i].net.prefix != out.range.prefix)
      out.off_plan.push_back(i);
  return true;
}

// Each node its own block of the rail's range. Off the plan: a block of
// another size than most; a block without which the range around the others
// is 256 times smaller or more (8 prefix bits: an address from elsewhere);
// a block without which the rail's range no longer reaches another rail's
// blocks; a block that shares addresses with another rail's and sits outside
// the range of this rail's other blocks.
void exclusivePlan(const std::vector<Member>& members, const std::vector<Ipv4Net>& other_rails_blocks,
                   RailAnalysis& out) {
  constexpr int kForeignBits = 8;
  out.plan.plan = "exclusive";
  std::map<int, int> prefixes;
  for (const Member& m : members) ++prefixes[m.net.prefix];
  out.plan.block_prefix =
      std::max_element(prefixes.begin(), prefixes.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  const Ipv4Net all = commonRange(members);
  auto reaches_other_rail = [&](const Ipv4Net& range) {
    return std::any_of(other_rails_blocks.begin(), other_rails_blocks.end(),
                       [&](const Ipv4Net& other) { return range.overlaps(other); });
  };
  const bool all_reaches_other_rail = reaches_other_rail(all);
  std::vector<bool> off(members.size(), false), overlaps_other_rail(members.size(), false);
  std::vector<Member> clean;
  for (size_t i = 0; i < members.size(); ++i) {
    const Ipv4Net block{members[i].net.network(), members[i].net.prefix};
    const Ipv4Net others = commonRange(members, i);
    // The last test: a block in a part of another rail's range that rail's
    // nodes left free (4 of 8 blocks used) overlaps none of its blocks, but
    // alone stretches this rail's range over them.
    off[i] = block.prefix != out.plan.block_prefix ||
             (members.size() >= 3 && others.prefix >= all.prefix + kForeignBits) ||
             (members.size() >= 3 && all_reaches_other_rail && !reaches_other_rail(others));
    for (const Ipv4Net& other : other_rails_blocks)
      overlaps_other_rail[i] = overlaps_other_rail[i] || block.overlaps(other);
    if (!off[i] && !overlaps_other_rail[i]) clean.push_back(members[i]);
  }
  out.range = commonRange(clean.empty() ? members : clean);
  for (size_t i = 0; i < members.size(); ++i) {
    if (!off[i] && overlaps_other_rail[i] && !clean.empty())
      off[i] = !out.range.contains(members[i].net.address);
    if (off[i]) out.off_plan.push_back(i);
  }
}

RailAnalysis analyzeRail(const std::string& rail, const std::vector<Member>& members,
                         const std::vector<Ipv4Net>& other_rails_blocks) {
  RailAnalysis out;
  out.plan.rail = rail;
  out.plan.nodes = static_cast<int>(members.size());
  if (members.size() < 2) {
    out.plan.plan = "unknown";
  } else if (!sharedPlan(members, out)) {
    exclusivePlan(members, other_rails_blocks, out);
  }
  if (out.plan.plan == "shared") out.plan.block_prefix = out.range.prefix;
  if (out.plan.plan != "unknown") out.plan.range = ipv4NetText(out.range);
  return out;
}

std::string planText(const RailPlan& p) {
  if (p.plan == "shared") return "shared subnet " + p.range;
  if (p.plan == "exclusive") return fmt::format("exclusive /{} blocks within {}", p.block_prefix, p.range);
  return "unknown plan";
}

}  // namespace

bool isRailAddress(std::string_view name) {
  return name.size() > kRailAddressSuffix.size() && name.ends_with(kRailAddressSuffix);
}

SubnetPlans findSubnetPlans(const std::vector<NodeAttributes>& nodes) {
  std::map<std::string, std::vector<Member>> by_rail;
  for (size_t node = 0; node < nodes.size(); ++node) {
    for (const auto& a : nodes[node].attributes) {
      if (!isRailAddress(a.name)) continue;
      if (auto net = parseIpv4Net(a.value))
        by_rail[a.name.substr(0, a.name.size() - kRailAddressSuffix.size())].push_back({node, *net});
    }
  }
  std::vector<RailAnalysis> rails;
  for (const auto& [rail, members] : by_rail) {
    std::vector<Ipv4Net> other_rails_blocks;
    for (const auto& [other, others] : by_rail)
      if (other != rail)
        for (const Member& m : others) other_rails_blocks.push_back({m.net.network(), m.net.prefix});
    rails.push_back(analyzeRail(rail, members, other_rails_blocks));
  }
  SubnetPlans out;
  for (const RailAnalysis& r : rails) {
    out.rails.push_back(r.plan);
    const auto& members = by_rail[r.plan.rail];
    for (size_t i : r.off_plan) {
      const Member& m = members[i];
      std::string where = "outside " + r.plan.rail + "'s plan";
      for (const RailAnalysis& other : rails)
        if (&other != &r && other.plan.plan != "unknown" && other.range.contains(m.net.address))
          where = "in " + other.plan.rail + "'s range " + other.plan.range;
      const std::string name = r.plan.rail + std::string(kRailAddressSuffix);
      out.outliers.push_back(
          {name, name, nodes[m.node].host,
           ipv4Text(m.net.address) + "/" + std::to_string(m.net.prefix) + " (" + where + ")",
           planText(r.plan), r.plan.nodes - static_cast<int>(r.off_plan.size()), false});
    }
  }
  return out;
}

std::vector<std::string> formatSubnetPlans(const std::vector<RailPlan>& rails) {
  std::vector<std::string> lines;
  for (const RailPlan& p : rails)
    lines.push_back(fmt::format("{}: {} ({} node{})", p.rail, planText(p), p.nodes, p.nodes == 1 ? "" : "s"));
  return lines;
}

nlohmann::json subnetPlansToJson(const std::vector<RailPlan>& rails) {
  nlohmann::json out = nlohmann::json::array();
  for (const RailPlan& p : rails)
    out.push_back({{"rail", p.rail},
                   {"plan", p.plan},
                   {"range", p.range.empty() ? nlohmann::json() : nlohmann::json(p.range)},
                   {"block_prefix", p.plan == "unknown" ? nlohmann::json() : nlohmann::json(p.block_prefix)},
                   {"nodes", p.nodes}});
  return out;
}

}  // namespace railkit::validate
