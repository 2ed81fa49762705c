#pragma once
// Phase 1 of `railkit validate`: one node checks itself. The doctor rules run
// over the node's inventory (live, or the --root tree each rank is given),
// and the node counts what the cluster's profile says it must have: active
// RDMA ports on the data rails (--expect-nics) and GPUs (--expect-gpus). A
// shortfall is an error finding (rdma-nic-count, gpu-count) that names what
// is missing and what is there, because seed 004's node with 7 of its 8 GPU
// NICs showed up only as a bandwidth number.

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "model/inventory.h"

namespace railkit::validate {

struct NodeExpectations {
  std::optional<int> nics;  // active RDMA ports on data rails
  std::optional<int> gpus;
  // The data rails, as NCCL_IB_HCA spells them ("mlx5_0,mlx5_3:1", "^mlx5_9",
  // "=mlx5_0"); empty: every RDMA port of the node is a data rail.
  std::string hca_spec;
};

struct NodeCounts {
  int nics_active = 0;
  std::optional<int> nics_expected;
  int gpus = 0;
  std::optional<int> gpus_expected;
  // "mlx5_3/1 DOWN (Disabled)" for every data-rail port that is not
  // ACTIVE/LinkUp, and "mlx5_7 (no such device)" for a device the data-rail
  // list names exactly that the node does not have: what is missing.
  std::vector<std::string> nics_inactive;
  // "mlx5_0/1" of every active data-rail port: what is there.
  std::vector<std::string> nics_active_ports;
  // "gpu0 (0000:1b:00.0)" of every GPU, so a shortfall names what is there.
  std::vector<std::string> gpus_present;
};

struct NodeCheck {
  std::vector<Finding> findings;  // doctor's, then the count findings; by severity
  NodeCounts counts;
};

// Counts only (no doctor rules): which data-rail ports are active.
NodeCounts countNode(const model::Inventory& inventory, const NodeExpectations& expect);

// The count findings for `counts`: an error per shortfall, an info finding
// when a node has more than expected (a profile out of date, not a fault);
// empty when nothing is expected or the counts match.
std::vector<Finding> countFindings(const NodeCounts& counts);

// Doctor's rules plus the count findings.
NodeCheck checkNode(const model::Inventory& inventory, const NodeExpectations& expect);

}  // namespace railkit::validate
