// ipc-lock-missing: without CAP_IPC_LOCK a process is held to RLIMIT_MEMLOCK
// for its RDMA registrations, and NCCL's proxy thread fails registering
// buffers. Where the limit is unlimited in effect the capability is not
// needed for that, and the finding is info: the severity lint gives on
// platforms that run containers with memlock unlimited (one id, one meaning).
#include <fmt/core.h>

#include "core/shared_rules.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  if (inv.rdma_devices.empty() || !inv.process.cap_eff || hasCapIpcLock(inv.process)) return {};
  std::vector<Evidence> evidence = {
      {sys::paths::kSelfStatus, std::nullopt, fmt::format("CapEff:\t{:016x}", *inv.process.cap_eff)}};
  const std::string fix = "add IPC_LOCK to the container's securityContext.capabilities.add";
  if (memlockUnlimitedInEffect(inv.process)) {
    const auto& m = inv.process.memlock;
    evidence.push_back(
        {sys::paths::kSelfLimits, std::nullopt,
         "Max locked memory " + (m.unlimited ? std::string("unlimited") : std::to_string(m.bytes))});
    return {makeFinding(kIpcLockMissing, Severity::kInfo, "process",
                        "CapEff lacks CAP_IPC_LOCK while RDMA devices exist; RLIMIT_MEMLOCK is unlimited in "
                        "effect, so registration works here, but a node with a finite limit would fail",
                        std::move(evidence), fix)};
  }
  return {makeFinding(kIpcLockMissing, "process",
                      "CapEff lacks CAP_IPC_LOCK while RDMA devices exist; memory registration is limited by "
                      "RLIMIT_MEMLOCK",
                      std::move(evidence), fix)};
}
}  // namespace

extern const Rule kIpcLockMissing = {shared_rules::kIpcLockMissing, check};
}  // namespace railkit::doctor
