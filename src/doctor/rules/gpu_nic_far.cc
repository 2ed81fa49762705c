// gpu-nic-far: a GPU whose closest RDMA NIC is across host bridges (NODE) or
// NUMA nodes (SYS) cannot use GPUDirect RDMA at full speed.
#include <map>

#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
std::vector<Finding> check(const DoctorInput& in) {
  const auto& topo = in.inventory.topology;
  std::map<std::string, const model::GpuNicDistance*> best;
  for (const auto& e : topo.gpu_nic) {
    auto it = best.find(e.gpu);
    if (it == best.end() || e.distance < it->second->distance) best[e.gpu] = &e;
  }
  std::vector<Finding> out;
  for (const auto& [gpu, e] : best) {
    if (e->distance < model::PcieDistance::kNode) continue;
    const char* dist = model::distanceName(e->distance);
    out.push_back(makeFinding(
        kGpuNicFar, gpu, "the nearest RDMA NIC of " + gpu + " is " + e->nic + " at " + dist + " distance",
        {{topo.source, std::nullopt, gpu + " " + e->nic + " " + dist}},
        "put a NIC under the same PCIe switch as the GPU, or allocate GPU and NIC together "
        "(topology-aware scheduling)"));
  }
  return out;
}
}  // namespace

extern const Rule kGpuNicFar = {
    {"gpu-nic-far", Severity::kWarning, "A GPU has no RDMA NIC nearby",
     R"(GPUDirect RDMA is fast when GPU and NIC share a PCIe switch (PIX/PXB). At NODE (different host bridges) or
SYS (another NUMA node) distance, NCCL disables or slows GPUDirect (NCCL_NET_GDR_LEVEL) and traffic crosses
the CPU interconnect.)",
     R"(Fix: compare with `nvidia-smi topo -m`. In Kubernetes allocate GPUs and NICs together (kubelet Topology
Manager policy single-numa-node, or a DRA claim that constrains both to the same PCIe root); on bare metal
move the NIC to a slot under the GPU's switch.)"},
    check};
}  // namespace railkit::doctor
