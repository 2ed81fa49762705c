#pragma once
// Internal to render: Spiderpool's two subnet plans for a rail-optimized
// RoCE fabric (seed 003, docs/render.md "Spiderpool"). Shared: one
// SpiderIPPool per rail, the rail's whole range, every node in it. Exclusive:
// one SpiderIPPool per node per rail, a block of the rail's range pinned to
// the node by node affinity; the block's first address is the leaf's (the
// gateway) and the pool routes the rail's whole range through it, so rail i
// of one node reaches rail i of every other node across subnets, as the
// leaves route between their blocks.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ipv4.h"
#include "core/result.h"
#include "k8s/render/profile.h"

namespace railkit::k8s::render {

struct PoolPlan {
  size_t rail = 0;
  std::string node;  // empty: every node (the shared plan)
  Ipv4Net subnet;
  uint32_t gateway = 0;  // 0: none (shared: the rail's pods share one subnet)
  uint32_t first = 0;    // the pool's ips: first-last
  uint32_t last = 0;
  Ipv4Net route;  // exclusive: the rail's range, through the gateway
};

// The most SpiderIPPools one render writes (subnetPlan exclusive: rails x
// nodeNames); a profile asking for more is refused, naming the product.
constexpr uint64_t kMaxSpiderIpPools = 65536;

// Checks profile.subnets against the profile (cni spiderpool only) and fills
// its defaults: the rail ranges, one per data interface. Every refusal is one
// line that names the field, what it expected and what it found.
Status finishSubnetPlan(Profile& profile);
// The pools of a finished profile, rail by rail, node by node within a rail.
std::vector<PoolPlan> planPools(const Profile& profile);
// The SpiderIPPool name of `pool`: <name>-rail<r> (shared) or
// <name>-rail<r>-<node> (exclusive, as upstream names one pool per node).
std::string poolName(const Profile& profile, const PoolPlan& pool);

}  // namespace railkit::k8s::render

namespace railkit::k8s::render {

// `railkit render node-prep` with cni spiderpool: the chart's values
// (spiderpool-values.yaml) and the node's rail routing (spiderpool-rail-routes.sh).
void addSpiderpoolNodePrep(const Profile& profile, std::vector<std::pair<std::string, std::string>>& files);

}  // namespace railkit::k8s::render
