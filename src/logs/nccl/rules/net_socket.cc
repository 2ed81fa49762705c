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
      "nccl-net-socket", Severity::kError, "network", message,
      "make the RDMA devices usable in the pod: expose /dev/infiniband (RDMA device plugin, SR-IOV or "
      "DRA claim), install libibverbs and the provider (rdma-core) in the image, grant IPC_LOCK, "
      "unset NCCL_IB_DISABLE and check NCCL_IB_HCA / NCCL_NET names the right devices; run `railkit "
      "doctor` in the pod",
      s, {&s.sig_socket_cause, &s.sig_socket_channel, &s.sig_socket_network});
}

}  // namespace

NcclRule netSocketRule() {
  return {"nccl-net-socket", nullptr, build};
}

}  // namespace railkit::logs::nccl
