// nccl-no-gdr: RDMA between nodes but through host memory (no GPUDirect).
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

std::optional<Finding> build(const Hits&, const RuleContext& c) {
  if (!c.facts.gdr.has_value() || *c.facts.gdr) return std::nullopt;
  const AnalyzerState& s = c.state;
  std::string how = s.sig_gdr_disabled.any() ? "NCCL says GPU Direct RDMA is disabled"
                    : s.sig_gdr0.any()       ? "NCCL connected its rings with GDR 0"
                                             : "the NET channel lines carry no /GDRDMA";
  // EFA (aws-ofi-nccl) has its own recipe: nvidia_peermem and ACS are not
  // what decides GPUDirect there.
  bool efa = has(c.facts.inter_node_transport, "Libfabric") || c.facts.inter_node_transport == "EFA";
  for (const auto& p : c.facts.net_plugins) efa = efa || p == "aws-ofi-nccl";
  std::string fix =
      efa ? "on EFA, GPUDirect RDMA needs an instance type that supports it (the P-series from p4d on; "
            "g-series "
            "instances do not); with Libfabric older than 1.18 set FI_EFA_USE_DEVICE_RDMA=1 (1.18+ with "
            "aws-ofi-nccl 1.7+ enables it by itself), and use the Libfabric and plugin of the EFA installer"
          : "load nvidia_peermem (or use DMA-BUF with a recent driver and kernel), keep the NIC and GPU "
            "under the "
            "same PCIe switch or raise NCCL_NET_GDR_LEVEL, disable PCIe ACS / set the IOMMU to passthrough, "
            "and "
            "make sure NCCL_NET_GDR_LEVEL / NCCL_NET_GDR_READ are not forcing it off";
  return makeFinding(kNcclNoGdr, c.facts.inter_node_transport,
                     "inter-node traffic over " + c.facts.inter_node_transport +
                         " does not use GPUDirect RDMA (" + how +
                         "): every transfer is staged through host memory",
                     fix, s, {&s.sig_gdr_disabled, &s.sig_gdr0, &s.sig_plain_ib_channel});
}

}  // namespace

extern const NcclRule kNcclNoGdr = {
    {"nccl-no-gdr", Severity::kWarning, "RDMA without GPUDirect: transfers staged through host memory",
     R"(Inter-node traffic uses RDMA but not GPUDirect RDMA (no /GDRDMA on the NET channels, `GPU Direct
RDMA Disabled`, or `GDR 0`), so every transfer is copied through host memory and bandwidth drops.)",
     R"(Fix on InfiniBand/RoCE: load nvidia_peermem or use DMA-BUF, keep GPU and NIC under one PCIe switch
or raise NCCL_NET_GDR_LEVEL, disable PCIe ACS / IOMMU translation. On EFA (aws-ofi-nccl): an
instance type that supports GPUDirect RDMA, and FI_EFA_USE_DEVICE_RDMA=1 with Libfabric older than
1.18.)"},
    nullptr,
    build};

}  // namespace railkit::logs::nccl
