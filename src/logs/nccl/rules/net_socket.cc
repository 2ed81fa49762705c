// nccl-net-socket: inter-node traffic over TCP sockets. Fact-based: socket
// channel lines, or `Using network Socket` in a job that spans hosts.
#include "logs/nccl/rule.h"

namespace railkit::logs::nccl {
namespace {

std::optional<Finding> build(const Hits&, const RuleContext& c) {
  const AnalyzerState& s = c.state;
  bool multi_host = c.facts.host_count > 1;
  if (!(s.sig_socket_channel.any() || (s.sig_socket_network.any() && multi_host))) return std::nullopt;
  std::string message =
      "inter-node traffic runs over TCP sockets (NET/Socket), at a fraction of the RDMA speed";
  if (s.sig_socket_cause.any())
    message += "; NCCL said why: " + s.sig_socket_cause.detail;
  else
    message += "; the log does not show why NCCL did not use the RDMA NICs";
  return makeFinding(
      kNcclNetSocket, "network", message,
      "make the RDMA devices usable in the pod: expose /dev/infiniband (RDMA device plugin, SR-IOV or "
      "DRA claim), install libibverbs and the provider (rdma-core) in the image, grant IPC_LOCK, "
      "unset NCCL_IB_DISABLE and check NCCL_IB_HCA / NCCL_NET names the right devices; run `railkit "
      "doctor` in the pod",
      s, {&s.sig_socket_cause, &s.sig_socket_channel, &s.sig_socket_network});
}

}  // namespace

extern const NcclRule kNcclNetSocket = {
    {"nccl-net-socket", Severity::kError, "Inter-node traffic runs over TCP sockets",
     R"(NCCL chose its Socket transport between hosts (NET/Socket channels, or `Using network Socket` in a
job that spans hosts), so collectives run at a fraction of the RDMA speed. Usually the RDMA devices
are not usable in the container (no /dev/infiniband, no libibverbs/provider, no IPC_LOCK) or
NCCL_IB_DISABLE / NCCL_NET forced it.)",
     R"(Fix: expose the RDMA devices to every pod, install rdma-core, grant IPC_LOCK, unset NCCL_IB_DISABLE;
`railkit doctor` in the pod checks each.)"},
    nullptr,
    build};

}  // namespace railkit::logs::nccl
