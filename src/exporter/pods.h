#pragma once
// Per-pod RDMA counters (`railkit exporter --pods`): for every network
// namespace on the node other than the exporter's own and the host's, the
// RDMA devices it holds and their port counters, read through RDMA netlink
// from inside that namespace (sys/netns.h, sys/rdma_netlink.h). This is the
// view of Spiderpool and the RDMA shared/SR-IOV device plugins: with ib_core's
// netns_mode exclusive, a device (or VF) moved into a pod is visible only in
// the pod's namespace, so the node's sysfs never shows its counters.
//
// Where the kernel has no RDMA netlink, or ib_core shares every device with
// every namespace (netns_mode shared: each pod would repeat the node's
// counters), the reading says so in `unsupported` and holds nothing else.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/file_root.h"
#include "core/result.h"
#include "exporter/exposition.h"
#include "sys/rdma_netlink.h"

namespace railkit::exporter {

struct PodPort {
  std::string device;
  uint32_t port = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;  // driver order
};

struct PodNetns {
  uint64_t inode = 0;
  std::string pod_uid;  // "" when the namespace's first process is not in a pod cgroup
  size_t devices = 0;
  std::vector<PodPort> ports;
};

struct PodsReading {
  std::string unsupported;          // why there are no per-pod counters; "" when there are
  uint64_t namespaces = 0;          // namespaces looked into in this reading
  std::vector<PodNetns> with_rdma;  // those holding at least one RDMA device
  uint64_t errors = 0;              // namespaces not entered, not answered, or left for lack of time
  std::string first_error;          // the first of those, for the log
};

struct PodsOptions {
  // Past this long, the namespaces not yet read are left for the next reading
  // (and counted in errors): a reading never takes much longer than --interval.
  std::chrono::milliseconds budget{15000};
  size_t max_namespaces = 4096;
  // What is read in each namespace; the live RDMA netlink query unless a
  // test puts something else here. It runs on the namespace's own thread.
  std::function<Result<sys::RdmaNlStatistics>()> query;
  // ib_core's netns_mode as the inventory read it (true: shared).
  std::optional<bool> netns_shared;
};

PodsReading readPods(const FileRoot& root, const PodsOptions& options);

// The railkit_pod_* families and the exporter's --pods facts.
// `errors_total`: namespaces that failed since the exporter started.
void renderPods(Exposition& out, const PodsReading& reading, uint64_t errors_total);

}  // namespace railkit::exporter
