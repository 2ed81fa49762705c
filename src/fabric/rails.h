#pragma once
// The rail view of a fabric: which node and rail each HCA port belongs to,
// which switches are leaves (they hold HCAs) and which sit above them.
//
// A host's HCA is known by its NodeDescription, which the host's rdma-ndd
// (or the driver) sets to "<hostname> <device>": "node017 mlx5_3". The rail
// of a device is its place in the order of the device numbers the fabric
// uses, per device family: mlx5_0..mlx5_7 are rails 0..7, and so are HCA-1
// ..HCA-8 (DGX's names); a node whose compute NICs are mlx5_0,3,4,5,6,9,10,11
// has rails 0..7 in that order, as validate's --data-if orders them. Rails
// are counted within the family most HCAs use (the compute nodes); hosts of
// other families (a UFM server) are kept but not held to the rails.
//
// An HCA still carrying its firmware default description ("MT4129 ConnectX7
// Mellanox Technologies") cannot be placed; SHARP aggregation nodes (the
// switch's own CA, "Mellanox Technologies Aggregation Node") are no host.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "fabric/hca_map.h"
#include "fabric/topology.h"

namespace railkit::fabric {

// One HCA port cabled to a leaf switch.
struct HcaPort {
  std::size_t ca = kNoNode;  // the CA node
  int port = 0;              // the CA's port
  std::string host;          // "node017"
  std::string device;        // "mlx5_3"
  int rail = -1;             // -1: not in the rail family
  std::size_t leaf = kNoNode;
  int leaf_port = 0;
  const PortLink* link = nullptr;  // the CA's end of the cable
};

struct RailView {
  std::string family;                   // "mlx5_", "HCA-": the rail family's device prefix
  std::vector<int> device_numbers;      // rail i is device family + device_numbers[i]
  std::vector<std::string> rail_names;  // given rail order (LLDP's interfaces); then no family
  std::vector<HcaPort> hca_ports;       // every named host HCA port on a switch
  std::vector<std::size_t> unnamed;     // CAs on a switch without "<host> <device>"
  std::vector<std::size_t> leaves;      // switches with host HCAs, in input order
  std::vector<std::size_t> upper;       // the other switches (spines and above)
  std::map<std::string, std::vector<std::size_t>> hosts;  // host -> its hca_ports, rail family only
  // For each entry of `leaves`: how many rail-family HCA ports of each rail
  // it holds, and the rail most of them are (-1: none, or a tie).
  std::vector<std::vector<int>> leaf_rail_counts;
  std::vector<int> leaf_rail;

  int rails() const {
    return static_cast<int>(rail_names.empty() ? device_numbers.size() : rail_names.size());
  }
  std::string railDevice(int rail) const;
  // Position of switch `node` in `leaves`, or -1.
  int leafIndex(std::size_t node) const;
  // Rail `rail` on leaf `leaf_index` is a stray: a few HCAs of another rail
  // among many of the leaf's own (fewer than half as many as the leaf's
  // rail). A leaf that holds several rails evenly has no strays.
  bool stray(int leaf_index, int rail) const;
};

// "node017 mlx5_3" -> host and device; false for any other shape.
bool splitHcaDescription(const std::string& description, std::string& host, std::string& device);

// A switch's short name: "leaf-r3" from "MF0;leaf-r3:MQM9700/U1" (the
// managed-switch form), else the description, else the id.
std::string switchName(const Node& node);

// `map`: names for HCAs whose description is not "<host> <device>" (and
// overrides for those whose is); null for none. `rail_names`: the rails in
// order, by device (an Ethernet fabric's interfaces, as validate's --data-if
// orders them); null: by device family and number.
RailView buildRailView(const Fabric& fabric, const HcaMap* map = nullptr,
                       const std::vector<std::string>* rail_names = nullptr);

}  // namespace railkit::fabric
