#pragma once
// The fabric's tiers (tiers.h) written for the schedulers that place jobs by
// network topology, each in its own form:
// - node labels with NVIDIA topograph's keys (block, spine, datacenter), as
//   a JSON document and as a `kubectl label` script;
// - Volcano HyperNodes: one per group and tier, tier 1 the blocks with their
//   nodes as members, each tier above holding the HyperNodes below it;
// - a Kueue Topology whose levels are those labels, top first, then
//   kubernetes.io/hostname;
// - Slurm's topology.conf for topology/tree: one SwitchName line per group.
// Node names follow Kubernetes (the host name in lowercase); a host that
// cannot be a node name is left out of every output and listed in `skipped`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/tiers.h"
#include "fabric/topology.h"

namespace railkit::fabric {

// topograph's keys, block first. Tiers above the third get no label (they
// are in the HyperNodes and topology.conf).
inline constexpr const char* kTopologyLabels[] = {
    "network.topology.nvidia.com/block",
    "network.topology.nvidia.com/spine",
    "network.topology.nvidia.com/datacenter",
};
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

struct SchedulerTopology {
  std::string source;
  nlohmann::json node_labels;              // railkit.node-labels/v1
  std::string label_script;                // sh: kubectl label node ...
  std::vector<nlohmann::json> hypernodes;  // topology.volcano.sh/v1alpha1 HyperNode objects
  nlohmann::json kueue_topology;           // kueue.x-k8s.io/v1beta2 Topology
  std::string slurm_topology;              // topology.conf (topology/tree)
  std::vector<std::string> skipped;        // "HOST: why", hosts in no output
};

// The tier names the outputs use: block, spine, datacenter, then tier-4...
std::string tierName(std::size_t tier);

// `topology_name`: the Kueue Topology's metadata.name.
SchedulerTopology schedulerTopology(const Fabric& fabric, const FabricTiers& tiers,
                                    const std::string& topology_name = "fabric");

// Slurm's hostlist form of `names`: runs of one prefix and zero-padded width
// become "node[001-032,040]"; names without a number stay as they are.
std::string slurmHostlist(std::vector<std::string> names);

// True when `name` is a Kubernetes object name (DNS-1123 subdomain: at most
// 253 characters of lowercase labels joined by '.').
bool isDnsSubdomain(const std::string& name);

}  // namespace railkit::fabric
