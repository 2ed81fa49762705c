#pragma once
// Phase 1's LLDP read: each rank asks its node's lldpd which switch port
// each of its interfaces is cabled to (`--lldpctl`, `lldpctl -f json` by
// default), names the RDMA device behind each interface from its own
// inventory, and sends the neighbours to rank 0 in its report. Rank 0 turns
// every node's neighbours into one Ethernet fabric (fabric_lldp.h). A node
// without lldpd is not a failed node: its report says why it has no LLDP.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/environment.h"
#include "core/result.h"
#include "fabric/lldp.h"
#include "model/inventory.h"

namespace railkit::validate {

// lldpctl answers from lldpd's memory in milliseconds; the deadline only
// bounds a hung daemon, so phase 1 is never held up by it.
inline constexpr std::chrono::seconds kLldpctlTimeout{10};

struct NodeLldp {
  std::string command;  // what ran; empty: --lldpctl was empty (off)
  bool read = false;    // the command printed lldpctl's JSON
  std::vector<fabric::LldpNeighbor> neighbors;
  std::string unavailable;  // why nothing was read, when !read
};

// Runs `command` through /bin/sh -c with `env` and parses its output; each
// neighbour's device from `inventory`. Never an error: a failure is the
// result's `unavailable`.
NodeLldp readNodeLldp(const std::string& command, const std::string& host, const model::Inventory& inventory,
                      const Environment& env);

// Each neighbour's `device`: the RDMA device one of whose ports has the
// neighbour's interface as its netdev; left empty when none has.
void mapLldpDevices(std::vector<fabric::LldpNeighbor>& neighbors, const model::Inventory& inventory);

// The report's "lldp" member, and rank 0's strict reading of it: an error
// names the JSON path under `path` ("rank 2 report.lldp").
nlohmann::json lldpToJson(const NodeLldp& lldp);
Result<NodeLldp> lldpFromJson(const nlohmann::json& json, const std::string& path);

}  // namespace railkit::validate
