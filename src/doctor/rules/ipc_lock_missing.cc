// ipc-lock-missing: without CAP_IPC_LOCK a process cannot pin memory beyond
// its limit, and NCCL's proxy thread fails registering buffers.
#include <fmt/core.h>

#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
constexpr int kCapIpcLock = 14;

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  if (inv.rdma_devices.empty() || !inv.process.cap_eff) return {};
  if ((*inv.process.cap_eff >> kCapIpcLock) & 1) return {};
  return {makeFinding(
      "ipc-lock-missing", Severity::kError, "process", "CapEff lacks CAP_IPC_LOCK while RDMA devices exist",
      {{sys::paths::kSelfStatus, std::nullopt, fmt::format("CapEff:\t{:016x}", *inv.process.cap_eff)}},
      "add IPC_LOCK to the container's securityContext.capabilities.add")};
}
}  // namespace

extern const Rule kIpcLockMissing = {
    {"ipc-lock-missing", Severity::kError, "Container lacks CAP_IPC_LOCK",
     R"(RDMA pins memory. Without CAP_IPC_LOCK the locked-memory limit applies strictly and NCCL's network proxy
crashes or UCX refuses to register GPU/host buffers.
Fix: in the pod spec
  securityContext:
    capabilities:
      add: ["IPC_LOCK"]
(a Pod Security level of `privileged` or a namespace exemption is needed for this capability).)"},
    check};
}  // namespace railkit::doctor
