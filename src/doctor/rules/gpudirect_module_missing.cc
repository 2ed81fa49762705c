// gpudirect-module-missing: with GPUs and RDMA NICs but no nvidia_peermem,
// NCCL stages every transfer through host memory.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  bool nvidia = false;
  for (const auto& g : inv.gpus) nvidia = nvidia || g.vendor_name == "nvidia";
  if (!nvidia || inv.rdma_devices.empty()) return {};
  if (moduleLoaded(inv, "nvidia_peermem") || moduleLoaded(inv, "nv_peer_mem")) return {};
  return {
      makeFinding(kGpudirectModuleMissing, "nvidia_peermem",
                  "NVIDIA GPUs and RDMA NICs are present but nvidia_peermem is not loaded: no GPUDirect RDMA",
                  {{std::string(sys::paths::kModules) + "/nvidia_peermem", std::nullopt, "absent"}},
                  "modprobe nvidia_peermem on the node (GPU operator: driver.rdma.enabled=true)")};
}
}  // namespace

extern const Rule kGpudirectModuleMissing = {
    {"gpudirect-module-missing", Severity::kWarning, "GPUDirect RDMA module not loaded",
     R"(nvidia_peermem lets the NIC read and write GPU memory directly. Without it (or DMA-BUF support) NCCL copies
through host memory and inter-node bandwidth drops sharply; NCCL's log then lacks 'GPU Direct RDMA Enabled'.)",
     R"(Fix: `modprobe nvidia_peermem` on the node, persist it in /etc/modules-load.d/, or with the NVIDIA GPU operator:
  helm upgrade gpu-operator nvidia/gpu-operator --set driver.rdma.enabled=true)"},
    check};
}  // namespace railkit::doctor
