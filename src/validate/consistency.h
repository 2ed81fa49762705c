#pragma once
// Phase 2 of `railkit validate`: rank 0 compares the nodes attribute by
// attribute and names the outliers ("node-3 mlx5_2 firmware 28.39.1002; the
// 15 others 28.41.1000"). Each node reduces its inventory to a flat list of
// (attribute, value) pairs first, so what travels to rank 0 is small and the
// comparison is a count per attribute, linear in nodes x attributes.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/inventory.h"

namespace railkit::validate {

// One comparable fact of a node. `name` says what and where ("mlx5_2
// firmware", "mlx5_0/1 link rate", "net1 MTU", "GPU model", "env
// NCCL_IB_HCA"); `value` is what the node has, as text. Attributes a node
// cannot read are left out (never guessed); an attribute the majority has and
// a node lacks is an outlier with value "(absent)".
//
// Devices and ports are keyed by the netdev behind them (their rail) when
// they have one: an SR-IOV VF or a claimed NIC has another name in every pod
// (mlx5_7 here, mlx5_9 there) while the pod's net1 is the same rail
// everywhere. `label` is how this node names the attribute ("mlx5_7
// firmware" for the key "net1 firmware"); messages use it, the comparison
// uses `name`.
struct NodeAttribute {
  std::string name;
  std::string value;
  std::string label{};  // empty: the same as name (a default, so {name, value} still reads)
};

// The attributes of one node, sorted by name, names unique:
//  - per RDMA device: firmware, driver, driver version (module version when
//    the module exposes one), PCIe width and speed (current);
//  - per port: link rate, link width ("4X"), link layer, the index of
//    the RoCE v2 IPv4 GID (RoCE only), the port's netdev MTU;
//  - node: RDMA netns mode, GPU model, GPU count, RDMA device count;
//  - environment: every NCCL_* and UCX_* variable ("env NCCL_IB_HCA";
//    "(unset)" is not emitted, a variable only some nodes set is an outlier).
std::vector<NodeAttribute> nodeAttributes(const model::Inventory& inventory);

struct NodeAttributes {
  std::string host;                       // how the node is named in messages ("node-3" or "rank 3 (host)")
  std::vector<NodeAttribute> attributes;  // as nodeAttributes returns them
};

struct Outlier {
  std::string attribute;  // as the outlier node names it (its label), or the majority's for "(absent)"
  std::string key;        // what was compared (NodeAttribute::name)
  std::string host;
  std::string value;  // "(absent)" when the node does not have it
  std::string majority_value;
  int majority_count = 0;  // nodes holding majority_value
  bool tie = false;        // no strict majority: majority_value is the first most common value
};

// Every (attribute, node) whose value differs from the most common value of
// that attribute across `nodes`. Attributes whose every node agrees give none;
// with fewer than 2 nodes there is nothing to compare. Ordered by attribute,
// then host order in `nodes`.
std::vector<Outlier> findOutliers(const std::vector<NodeAttributes>& nodes);

// Human lines, one per (attribute, value) group, e.g.
// "node-3 mlx5_2 firmware 28.39.1002; the 15 others 28.41.1000" or
// "3 nodes (node-3, node-7, node-9) net1 MTU 1500; the 13 others 9000"
// (at most 5 hosts listed, then "and N more").
std::vector<std::string> formatOutliers(const std::vector<Outlier>& outliers, int nodes);

nlohmann::json outliersToJson(const std::vector<Outlier>& outliers);
// The form a rank sends to rank 0 ({"name": "value", ...}) and back;
// kInvalidInput naming the member when a value is not a string.
// Labels travel beside the values: {"name": "label", ...} for those that have one.
nlohmann::json attributesToJson(const std::vector<NodeAttribute>& attributes);
nlohmann::json attributeLabelsToJson(const std::vector<NodeAttribute>& attributes);
Result<std::vector<NodeAttribute>> attributesFromJson(const nlohmann::json& object);
// Sets the labels `labels` names on `attributes`; kInvalidInput when it is not an object of strings.
Status applyAttributeLabels(const nlohmann::json& labels, std::vector<NodeAttribute>& attributes);

}  // namespace railkit::validate
