// rdma-cm-missing: /dev/infiniband/uverbs* is exposed but rdma_cm is not.
// RDMA connection management (UCX's rdmacm, perftest -R, NVMe-oF, MPI
// over RoCE with rdmacm wire-up) opens it; plain verbs users do not.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  if (inv.rdma_devices.empty() || !inv.dev_infiniband_present) return {};
  bool uverbs = false;
  for (const auto& e : inv.dev_infiniband) {
    if (e == "rdma_cm") return {};
    uverbs = uverbs || e.rfind("uverbs", 0) == 0;
  }
  if (!uverbs) return {};  // uverbs-missing covers it
  return {makeFinding(kRdmaCmMissing, std::string(sys::paths::kDevInfiniband) + "/rdma_cm",
                      "uverbs device nodes are exposed but rdma_cm is not: RDMA CM connection setup fails",
                      {{sys::paths::kDevInfiniband, std::nullopt, joinNames(inv.dev_infiniband, 12)}},
                      "load rdma_ucm on the node and expose /dev/infiniband/rdma_cm to the container")};
}

}  // namespace

extern const Rule kRdmaCmMissing = {
    {"rdma-cm-missing", Severity::kWarning, "/dev/infiniband/rdma_cm is not exposed",
     R"(Verbs traffic needs /dev/infiniband/uverbsN; establishing connections through the RDMA connection
manager (librdmacm: UCX's rdmacm wire-up, `ib_write_bw -R`, rping, NVMe-oF, many MPI RoCE setups) also
needs /dev/infiniband/rdma_cm. Without it those tools fail with 'Unable to read to socket/rdma_cm' or
'rdma_create_event_channel failed'. NCCL itself does not use it.)",
     R"(Fix: on the node `modprobe rdma_ucm` (persist in /etc/modules-load.d/rdma.conf). In Kubernetes the RDMA
shared device plugin and the SR-IOV device plugin (isRdma: true) inject it with the uverbs node; with a
hostPath or NRI device list, add it explicitly:
  devices: [/dev/infiniband/uverbs0, /dev/infiniband/rdma_cm])"},
    check};

}  // namespace railkit::doctor
