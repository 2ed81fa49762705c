#pragma once
// What `railkit exporter` serves on /metrics, built from one reading of a
// node: the inventory (model::collectInventory), the counters of every RDMA
// port (exporter/counters.h) and the doctor findings. Reading and rendering
// are separate pure steps so that tests compare exact lines from a --root
// tree. docs/exporter.md lists every metric.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/file_root.h"
#include "core/finding.h"
#include "core/result.h"
#include "exporter/counters.h"
#include "exporter/pods.h"
#include "model/inventory.h"

namespace railkit::exporter {

struct PortReading {
  std::string device;
  int port = 0;
  PortCounters counters;
};

struct NodeReading {
  model::Inventory inventory;
  std::vector<PortReading> ports;   // inventory order
  uint64_t read_errors = 0;         // counter files skipped by this reading
  std::optional<PodsReading> pods;  // with --pods only (filled by the cache, not readNode)
};

// Reads the inventory and every port's counters. Fails only when the root
// itself is unusable (as collectInventory does).
Result<NodeReading> readNode(const FileRoot& root);

// Process-wide facts of the exporter itself.
struct ExporterStats {
  double scrape_duration_seconds = 0;   // how long the last refresh took
  uint64_t read_errors_total = 0;       // counter files skipped since start
  uint64_t pod_netns_errors_total = 0;  // --pods: namespaces that failed since start
};

// The /metrics body for `reading`, `findings` (doctor::runRules on some
// reading, perhaps an older one) and `stats`.
std::string renderMetrics(const NodeReading& reading, const std::vector<Finding>& findings,
                          const ExporterStats& stats);

}  // namespace railkit::exporter
