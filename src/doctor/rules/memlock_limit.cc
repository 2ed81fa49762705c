// memlock-limit: memory registration pins pages; a finite RLIMIT_MEMLOCK makes
// large registrations fail.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
constexpr uint64_t kGiB = 1ull << 30;

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  const auto& m = inv.process.memlock;
  if (inv.rdma_devices.empty() || !m.known || m.unlimited) return {};
  Severity sev = m.bytes < kGiB ? Severity::kError : Severity::kWarning;
  return {makeFinding("memlock-limit", sev, "process",
                      "RLIMIT_MEMLOCK is " + std::to_string(m.bytes) + " bytes; RDMA memory registration needs it unlimited",
                      {{sys::paths::kSelfLimits, std::nullopt, "Max locked memory " + std::to_string(m.bytes)}},
                      "set LimitMEMLOCK=infinity for containerd/kubelet (or ulimit -l unlimited) and restart the pod")};
}
}  // namespace

extern const Rule kMemlockLimit = {
    "memlock-limit", Severity::kError, "Locked-memory limit is finite",
    "RDMA registers (pins) every buffer it sends from; with RLIMIT_MEMLOCK at the common 64 KiB default, ibv_reg_mr\n"
    "of 1 MiB or more fails and NCCL/UCX abort or fall back. Error below 1 GiB, warning for any other finite value.\n"
    "Fix: containers inherit the runtime's limit. On each node:\n"
    "  mkdir -p /etc/systemd/system/containerd.service.d\n"
    "  printf '[Service]\\nLimitMEMLOCK=infinity\\n' > /etc/systemd/system/containerd.service.d/memlock.conf\n"
    "  systemctl daemon-reload && systemctl restart containerd\n"
    "then recreate the pod; check with `ulimit -l` (should print unlimited).",
    check};
}  // namespace railkit::doctor
