#include "exporter/pods.h"

#include "exporter/families.h"
#include "sys/netns.h"
#include "sys/paths.h"

namespace railkit::exporter {
namespace {

// Each receive of one namespace's query waits at most this long.
constexpr int kNetlinkTimeoutMs = 1000;

PodNetns toPodNetns(const sys::NetnsEntry& entry, sys::RdmaNlStatistics stats) {
  PodNetns out{entry.inode, entry.pod_uid, stats.devices.size(), {}};
  for (auto& p : stats.ports)
    out.ports.push_back(PodPort{std::move(p.device), p.port, std::move(p.counters)});
  return out;
}

}  // namespace

PodsReading readPods(const FileRoot& root, const PodsOptions& options) {
  auto begin = std::chrono::steady_clock::now();
  auto query = options.query ? options.query : [] { return sys::liveRdmaStatistics(kNetlinkTimeoutMs); };
  PodsReading out;
  // The RDMA netlink module is global: if this namespace has none, no
  // namespace has, and entering them all would only repeat the failure.
  if (auto own = query(); !own && own.error().code == ErrorCode::kUnavailable) {
    out.unsupported = own.error().message;
    return out;
  }
  if (options.netns_shared.value_or(false)) {
    out.unsupported =
        "ib_core netns_mode is shared: every network namespace sees every RDMA device, so per-pod counters "
        "would repeat the node's (Spiderpool and SR-IOV pods use `rdma system set netns exclusive`)";
    return out;
  }
  if (!root.isDirectory(sys::paths::kProc)) {
    out.unsupported = "no " + std::string(sys::paths::kProc) + " under the root " + root.root().string() +
                      ": mount the node's /proc there (render exporter --pods does)";
    return out;
  }
  auto own_inode = sys::ownNetnsInode();
  for (const auto& entry : sys::listProcessNetns(root, options.max_namespaces)) {
    // The host's namespace (that of pid 1) is what the railkit_rdma_*
    // metrics already show from sysfs; the exporter's own is not a pod's.
    if (entry.pid == 1 || (own_inode && entry.inode == *own_inode)) continue;
    ++out.namespaces;
    auto fail = [&](const std::string& why) {
      ++out.errors;
      if (out.first_error.empty()) out.first_error = "netns " + std::to_string(entry.inode) + ": " + why;
    };
    if (std::chrono::steady_clock::now() - begin > options.budget) {
      fail("not read: the reading ran out of its interval");
      continue;
    }
    std::optional<Result<sys::RdmaNlStatistics>> stats;
    auto st = sys::runInNetnsOf(root, entry.pid, [&] { stats = query(); });
    if (!st) {
      fail(st.error().message);
    } else if (!stats || !*stats) {
      fail(stats ? (*stats).error().message : "no answer");
    } else if (!(*stats)->devices.empty()) {
      out.with_rdma.push_back(toPodNetns(entry, std::move(**stats)));
    }
  }
  return out;
}

void renderPods(Exposition& out, const PodsReading& reading, uint64_t errors_total) {
  auto netnsLabels = [](const PodNetns& n) {
    return Labels{{"netns", std::to_string(n.inode)}, {"pod_uid", n.pod_uid}};
  };
  out.family(kPodRdmaDevices);
  for (const auto& n : reading.with_rdma)
    out.sample(netnsLabels(n), formatValue(static_cast<uint64_t>(n.devices)));
  out.family(kPodRdmaHwEvents);
  for (const auto& n : reading.with_rdma)
    for (const auto& p : n.ports)
      for (const auto& [name, value] : p.counters) {
        Labels labels = netnsLabels(n);
        labels.emplace_back("device", p.device);
        labels.emplace_back("port", std::to_string(p.port));
        labels.emplace_back("counter", name);
        out.sample(labels, formatValue(value));
      }
  out.family(kExporterPodsSupported);
  out.sample({}, reading.unsupported.empty() ? "1" : "0");
  out.family(kExporterPodNetworkNamespaces);
  out.sample({}, formatValue(reading.namespaces));
  out.family(kExporterPodNetnsErrors);
  out.sample({}, formatValue(errors_total));
}

}  // namespace railkit::exporter
