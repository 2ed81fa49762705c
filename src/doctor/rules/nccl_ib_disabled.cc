// nccl-ib-disabled: NCCL_IB_DISABLE=1 or NCCL_NET=Socket left in a pod's
// environment (often from a TCP-only test) makes NCCL ignore working RDMA
// ports and run every collective over TCP sockets.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  const auto& env = inv.process.env;
  std::vector<std::string> usable;
  for (const auto& d : inv.rdma_devices)
    for (const auto& p : d.ports)
      if (portUsable(p)) usable.push_back(d.name + ":" + std::to_string(p.port));
  if (usable.empty()) return {};
  auto disable = lookup(env, "NCCL_IB_DISABLE");
  auto net = lookup(env, "NCCL_NET");
  bool disabled = disable && *disable != "0" && !disable->empty();
  bool socket = net && (*net == "Socket" || *net == "socket");
  if (!disabled && !socket) return {};
  std::vector<Evidence> evidence;
  if (disabled) evidence.push_back(envEvidence(env, "NCCL_IB_DISABLE"));
  if (socket) evidence.push_back(envEvidence(env, "NCCL_NET"));
  evidence.push_back({sys::paths::kClassInfiniband, std::nullopt, "ACTIVE: " + joinNames(usable, 4)});
  return {makeFinding(kNcclIbDisabled, disabled ? "NCCL_IB_DISABLE" : "NCCL_NET",
                      std::string(disabled ? "NCCL_IB_DISABLE=" + *disable : "NCCL_NET=" + *net) +
                          " makes NCCL use TCP sockets although " + std::to_string(usable.size()) +
                          " RDMA port(s) are active",
                      std::move(evidence), "unset NCCL_IB_DISABLE and NCCL_NET (or set NCCL_IB_DISABLE=0)")};
}

}  // namespace

extern const Rule kNcclIbDisabled = {
    {"nccl-ib-disabled", Severity::kWarning, "NCCL told to ignore RDMA although ports are active",
     R"(NCCL_IB_DISABLE=1 (or NCCL_NET=Socket) turns off NCCL's InfiniBand/RoCE transport. It is often left in
a manifest from a TCP-only smoke test or a debugging session; the job still runs, but inter-node
collectives go over TCP sockets at a small fraction of the fabric's bandwidth, and nothing fails. NCCL's
log then shows 'NET/Socket' instead of 'NET/IB'.)",
     R"(Fix: remove the variables from the pod spec and the mpirun -x list, or set them explicitly:
  env:
  - name: NCCL_IB_DISABLE
    value: "0"
and check with NCCL_DEBUG=INFO that ranks print 'Using network IB'.)"},
    check};

}  // namespace railkit::doctor
