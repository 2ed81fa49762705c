#pragma once
// Phase 2 of `railkit validate`, per rail: which subnet plan the nodes'
// addresses follow (seed 003's two plans for a rail-optimized RoCE fabric).
//  - shared: every node's rail-i address is in one subnet per rail;
//  - exclusive: every node has its own block of the rail's range (node1 rail1
//    172.17.0.0/27, node2 172.17.0.32/27, ...), which the leaves route.
// A node whose rail-i address sits in another rail's range, or outside its
// rail's plan, is an outlier named as such. The addresses travel with the
// other phase-1 attributes ("net1 IPv4 address"), but the plain value
// comparison skips them: in the exclusive plan every node differs by design.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "validate/consistency.h"

namespace railkit::validate {

inline constexpr std::string_view kRailAddressSuffix = " IPv4 address";

// "net1 IPv4 address": the rail's address as "a.b.c.d/prefix".
bool isRailAddress(std::string_view attribute_name);

struct RailPlan {
  std::string rail;      // the rail's netdev ("net1")
  std::string plan;      // "shared", "exclusive", or "unknown" (too few nodes to tell)
  std::string range;     // shared: the subnet; exclusive: the smallest range holding every block
  int block_prefix = 0;  // the prefix length of the nodes' subnet or blocks
  int nodes = 0;         // nodes with an address on the rail
};

struct SubnetPlans {
  std::vector<RailPlan> rails;    // by rail name
  std::vector<Outlier> outliers;  // attribute "<rail> IPv4 address"; value says where it sits
};

// Needs 2 nodes with an address on a rail to tell its plan, 3 to name an
// outlier of an exclusive plan (with 2, either block could be the odd one).
SubnetPlans findSubnetPlans(const std::vector<NodeAttributes>& nodes);

// "net1: shared subnet 172.16.1.0/24 (4 nodes)",
// "net2: exclusive /27 blocks within 172.17.0.0/25 (4 nodes)".
std::vector<std::string> formatSubnetPlans(const std::vector<RailPlan>& rails);
nlohmann::json subnetPlansToJson(const std::vector<RailPlan>& rails);

}  // namespace railkit::validate
