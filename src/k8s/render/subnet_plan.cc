#include "k8s/render/subnet_plan.h"

#include <algorithm>
#include <set>

#include "k8s/render/modes.h"

namespace railkit::k8s::render {
namespace {

// A block gives up its network, gateway (the leaf) and broadcast addresses.
constexpr int kBlockOverhead = 3;
// Each pod of the job on a node also needs room for its replacement: a pod
// restarted on the same node gets its address before the old one is freed.
int addressesPerPod() {
  return 2;
}

Status usage(const std::string& text) {
  return makeError(ErrorCode::kUsage, "profile: " + text);
}

std::string rangeField(size_t rail) {
  return "railRanges[" + std::to_string(rail) + "]";
}

Result<std::vector<Ipv4Net>> parseRanges(const Profile& profile) {
  const SubnetPlan& plan = profile.subnets;
  if (plan.rail_ranges.size() != profile.data_interfaces.size())
    return tl::unexpected(usage("railRanges must list one range per data interface (" +
                                std::to_string(profile.data_interfaces.size()) + "), found " +
                                std::to_string(plan.rail_ranges.size()))
                              .error());
  std::vector<Ipv4Net> ranges;
  for (size_t i = 0; i < plan.rail_ranges.size(); ++i) {
    auto net = parseIpv4Net(plan.rail_ranges[i]);
    if (!net)
      return tl::unexpected(usage(rangeField(i) + " '" + plan.rail_ranges[i].substr(0, 40) +
                                  "': expected an IPv4 CIDR such as 172.17.0.0/24")
                                .error());
    if (net->hostBits())
      return tl::unexpected(usage(rangeField(i) + " " + plan.rail_ranges[i] +
                                  " has host bits set (expected " + ipv4NetText(*net) + ")")
                                .error());
    if (net->prefix > 30)
      return tl::unexpected(usage(rangeField(i) + " " + plan.rail_ranges[i] +
                                  " is too small for a rail (expected /30 or larger)")
                                .error());
    for (size_t j = 0; j < ranges.size(); ++j)
      if (ranges[j].overlaps(*net))
        return tl::unexpected(usage(rangeField(i) + " " + plan.rail_ranges[i] + " overlaps " + rangeField(j) +
                                    " " + plan.rail_ranges[j] + " (every rail needs a range of its own)")
                                  .error());
    ranges.push_back(*net);
  }
  return ranges;
}

Status checkNodes(const Profile& profile) {
  const SubnetPlan& plan = profile.subnets;
  if (plan.node_names.empty())
    return usage(
        "subnetPlan exclusive needs nodeNames, the nodes whose blocks it carves (each pool's node affinity)");
  if (static_cast<int>(plan.node_names.size()) < profile.nodes)
    return usage("nodeNames lists " + std::to_string(plan.node_names.size()) + " nodes, found nodes: " +
                 std::to_string(profile.nodes) + " (every pod needs a node with blocks of its own)");
  std::set<std::string> seen;
  for (const std::string& name : plan.node_names) {
    bool label = !name.empty() && name.size() <= 63 && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
    if (!label)
      return usage("nodeNames: '" + name.substr(0, 63) + "' is not a node name (lowercase DNS name)");
    if (!seen.insert(name).second) return usage("nodeNames: '" + name + "' is listed twice");
  }
  return okStatus();
}

Status checkExclusive(const Profile& profile, const std::vector<Ipv4Net>& ranges) {
  const SubnetPlan& plan = profile.subnets;
  // One SpiderIPPool per rail and node, each written whole: a profile under
  // 1 MiB could otherwise ask for millions (64 rails x 100000 nodeNames).
  // 65536 is 8 rails x 8192 nodes (docs/render.md, "Spiderpool").
  uint64_t pools = static_cast<uint64_t>(ranges.size()) * plan.node_names.size();
  if (pools > kMaxSpiderIpPools)
    return usage("subnetPlan exclusive: rails (" + std::to_string(ranges.size()) + ") x nodeNames (" +
                 std::to_string(plan.node_names.size()) + ") = " + std::to_string(pools) +
                 " SpiderIPPools, at most " + std::to_string(kMaxSpiderIpPools));
  if (auto status = checkNodes(profile); !status) return status;
  int size = plan.node_block_size;
  if (size < 4 || (size & (size - 1)) != 0)
    return usage("nodeBlockSize expects a power of two from 4 (a /30), found " + std::to_string(size));
  int usable = size - kBlockOverhead;
  int needed = plan.pods_per_node * addressesPerPod();
  if (usable < needed)
    return usage(
        "nodeBlockSize " + std::to_string(size) + " leaves " + std::to_string(usable) +
        " pod addresses per node and rail (network, gateway and broadcast take 3), found podsPerNode " +
        std::to_string(plan.pods_per_node) + " needing " + std::to_string(needed) +
        " (each pod and its replacement)");
  for (size_t i = 0; i < ranges.size(); ++i) {
    uint64_t blocks = ranges[i].size() / static_cast<uint64_t>(size);
    if (blocks < plan.node_names.size())
      return usage(rangeField(i) + " " + plan.rail_ranges[i] + " holds " + std::to_string(blocks) +
                   " blocks of " + std::to_string(size) + " addresses, found " +
                   std::to_string(plan.node_names.size()) + " nodes (nodeNames)");
  }
  return okStatus();
}

Status checkShared(const Profile& profile, const std::vector<Ipv4Net>& ranges) {
  const SubnetPlan& plan = profile.subnets;
  uint64_t needed = static_cast<uint64_t>(profile.nodes) * plan.pods_per_node * addressesPerPod();
  for (size_t i = 0; i < ranges.size(); ++i)
    if (ranges[i].size() - 2 < needed)
      return usage(rangeField(i) + " " + plan.rail_ranges[i] + " holds " +
                   std::to_string(ranges[i].size() - 2) +
                   " pod addresses, found nodes x podsPerNode x 2 (each pod and its replacement) = " +
                   std::to_string(needed));
  if (!plan.node_names.empty())
    return usage("nodeNames goes with subnetPlan exclusive (its per-node blocks)");
  return okStatus();
}

}  // namespace

Status finishSubnetPlan(Profile& profile) {
  SubnetPlan& plan = profile.subnets;
  if (profile.cni != "operator" && profile.cni != "spiderpool")
    return usage("cni '" + profile.cni.substr(0, 40) + "': expected operator or spiderpool");
  if (profile.cni != "spiderpool") {
    if (plan.plan != "shared" || !plan.rail_ranges.empty() || !plan.node_names.empty())
      return usage("subnetPlan, railRanges and nodeNames go with cni spiderpool");
    return okStatus();
  }
  if (profile.mode != "rdma-shared" && profile.mode != "sriov")
    return usage("cni spiderpool goes with mode rdma-shared or sriov, found mode " + profile.mode);
  // A macvlan child cannot sit on an IPoIB netdev: Spiderpool's shared RDMA is RoCE only.
  if (profile.mode == "rdma-shared" && profile.fabric != "roce")
    return usage("cni spiderpool with mode rdma-shared (macvlan) is RoCE only, found fabric " +
                 profile.fabric + " (use mode sriov, the IB-SR-IOV CNI, for InfiniBand)");
  if (plan.plan != "shared" && plan.plan != "exclusive")
    return usage("subnetPlan '" + plan.plan.substr(0, 40) + "': expected shared or exclusive");
  if (plan.plan == "exclusive" && profile.fabric != "roce")
    return usage("subnetPlan exclusive is for RoCE (routed by the leaves), found fabric " + profile.fabric);
  if (profile.data_interfaces.size() > 64) return okStatus();  // renderMode refuses it, with its limit
  if (plan.rail_ranges.empty())
    for (size_t i = 0; i < profile.data_interfaces.size(); ++i)
      plan.rail_ranges.push_back(railSubnet(profile, i).cidr);
  auto ranges = parseRanges(profile);
  if (!ranges) return tl::unexpected(ranges.error());
  return plan.plan == "exclusive" ? checkExclusive(profile, *ranges) : checkShared(profile, *ranges);
}

std::vector<PoolPlan> planPools(const Profile& profile) {
  std::vector<PoolPlan> pools;
  const SubnetPlan& plan = profile.subnets;
  for (size_t rail = 0; rail < plan.rail_ranges.size(); ++rail) {
    auto range = parseIpv4Net(plan.rail_ranges[rail]);
    if (!range) continue;  // finishSubnetPlan refused it
    if (plan.plan != "exclusive") {
      pools.push_back({rail, "", *range, 0, range->network() + 1, range->last() - 1, {}});
      continue;
    }
    int prefix = 32;
    while ((uint64_t{1} << (32 - prefix)) < static_cast<uint64_t>(plan.node_block_size)) --prefix;
    for (size_t k = 0; k < plan.node_names.size(); ++k) {
      Ipv4Net block{range->network() + static_cast<uint32_t>(k * plan.node_block_size), prefix};
      pools.push_back({rail, plan.node_names[k], block, block.network() + 1, block.network() + 2,
                       block.last() - 1, *range});
    }
  }
  return pools;
}

std::string poolName(const Profile& profile, const PoolPlan& pool) {
  std::string name = railName(profile, pool.rail);
  return pool.node.empty() ? name : name + "-" + pool.node;
}

}  // namespace railkit::k8s::render
