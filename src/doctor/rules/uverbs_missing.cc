// uverbs-missing: sysfs shows RDMA devices but /dev/infiniband/uverbs* is not
// in the container, so verbs cannot open them.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  if (inv.rdma_devices.empty()) return {};
  for (const auto& e : inv.dev_infiniband)
    if (e.rfind("uverbs", 0) == 0) return {};
  std::string listing;
  for (const auto& e : inv.dev_infiniband) listing += (listing.empty() ? "" : " ") + e;
  return {
      makeFinding(kUverbsMissing, sys::paths::kDevInfiniband,
                  std::to_string(inv.rdma_devices.size()) +
                      " RDMA device(s) in sysfs but no uverbs device node is exposed",
                  {{sys::paths::kDevInfiniband, std::nullopt,
                    inv.dev_infiniband_present ? (listing.empty() ? "(empty)" : listing) : "absent"}},
                  "expose /dev/infiniband/uverbs* to the container (RDMA device plugin resource, or hostPath "
                  "/dev/infiniband with privileges) and load ib_uverbs on the node")};
}
}  // namespace

extern const Rule kUverbsMissing = {
    {"uverbs-missing", Severity::kError, "RDMA device has no /dev/infiniband/uverbs node",
     R"(libibverbs opens /dev/infiniband/uverbsN to talk to a device. sysfs can show the device while the container
has no device node, and then NCCL reports no IB device and falls back to sockets.)",
     R"(Fix: on the node `modprobe ib_uverbs` (and rdma_ucm). In Kubernetes let the device plugin inject the nodes:
  resources:
    limits:
      rdma/rdma_shared_device_a: 1
or, with the SR-IOV device plugin, set `isRdma: true` in the resource config.)"},
    check};
}  // namespace railkit::doctor
