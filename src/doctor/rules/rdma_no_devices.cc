// rdma-no-devices: nothing under /sys/class/infiniband, so NCCL and UCX can
// only fall back to TCP sockets.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
std::vector<Finding> check(const DoctorInput& in) {
  if (!in.inventory.rdma_devices.empty()) return {};
  return {makeFinding(
      kRdmaNoDevices, "node", "no RDMA device is visible",
      {{sys::paths::kClassInfiniband, std::nullopt, "absent or empty"}},
      "expose an RDMA device to the pod (rdma/<resource> limit, SR-IOV VF, DRA claim or hostNetwork) "
      "and check that the RDMA driver (mlx5_ib, irdma, efa) is loaded on the node")};
}
}  // namespace

extern const Rule kRdmaNoDevices = {
    {"rdma-no-devices", Severity::kError, "No RDMA device is visible",
     R"(Without an entry in /sys/class/infiniband, NCCL, UCX and OpenMPI silently fall back to TCP sockets and run at a
fraction of the fabric's speed.)",
     R"(Fix: on the node, check `ls /sys/class/infiniband` and `lsmod | grep -e mlx5_ib -e irdma -e efa`. In a pod,
request the device from whatever exposes it, e.g.
  resources:
    limits:
      rdma/rdma_shared_device_a: 1
or attach an SR-IOV network (k8s.v1.cni.cncf.io/networks: sriov-ib0) or a DRA resource claim.)"},
    check};
}  // namespace railkit::doctor
