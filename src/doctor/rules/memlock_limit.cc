// memlock-limit: memory registration pins pages; a finite RLIMIT_MEMLOCK makes
// large registrations fail.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
constexpr uint64_t kGiB = 1ull << 30;
std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  const auto& m = inv.process.memlock;
  if (inv.rdma_devices.empty() || !m.known || memlockUnlimitedInEffect(inv.process)) return {};
  // The kernel holds a registration to the limit only for a process without
  // CAP_IPC_LOCK (ib_umem_get: pinned pages over RLIMIT_MEMLOCK fail with
  // ENOMEM unless capable(CAP_IPC_LOCK)).
  const bool ipc_lock = hasCapIpcLock(inv.process);
  Severity sev = m.bytes < kGiB && !ipc_lock ? Severity::kError : Severity::kWarning;
  std::string message = "RLIMIT_MEMLOCK is " + std::to_string(m.bytes) + " bytes; ";
  message += ipc_lock
                 ? "this process has CAP_IPC_LOCK, so the kernel does not hold RDMA registrations to it, but "
                   "libraries that check the limit themselves (MPI, libfabric) may refuse large buffers"
                 : "RDMA memory registration needs it unlimited";
  return {makeFinding(
      kMemlockLimit, sev, "process", message,
      {{sys::paths::kSelfLimits, std::nullopt, "Max locked memory " + std::to_string(m.bytes)}},
      "set RLIMIT_MEMLOCK unlimited in the container runtime's base OCI spec (containerd base_runtime_spec) "
      "and "
      "LimitMEMLOCK=infinity for containerd, then recreate the pod (railkit explain memlock-limit)")};
}
}  // namespace

extern const Rule kMemlockLimit = {
    {"memlock-limit", Severity::kError, "Locked-memory limit is finite",
     R"(RDMA registers (pins) every buffer it sends from; with RLIMIT_MEMLOCK at the common 64 KiB default, ibv_reg_mr
of 1 MiB or more fails ('Couldn't allocate MR', perftest works for small messages only) and NCCL/UCX abort or
fall back. Error below 1 GiB, warning for any other finite value below the machine's memory (MemTotal in
/proc/meminfo); a limit at or above it, or near 2^64 (runtimes write 18446744073708503040 for
"unlimited"), binds nothing and is taken as unlimited. A process with CAP_IPC_LOCK is not held to
the limit by the kernel for its registrations (pinned pages over RLIMIT_MEMLOCK fail only without the
capability), so there it is a warning: some MPI and libfabric stacks still read the limit themselves.
A pod cannot raise it itself (`ulimit -l unlimited` in the container fails), Kubernetes has no pod-level
ulimit, and /etc/security/limits.conf on the node does not apply to containers: the limit comes from the
OCI spec the container runtime generates.)",
     R"(Fix: raise it there, on every node:
  # containerd: a base runtime spec with RLIMIT_MEMLOCK unlimited
  ctr oci spec > /etc/containerd/rdma-spec.json
  #   add to process.rlimits: {"type": "RLIMIT_MEMLOCK", "hard": 18446744073709551615,
  #                            "soft": 18446744073709551615}
  # /etc/containerd/config.toml, runtime runc:
  #   base_runtime_spec = "/etc/containerd/rdma-spec.json"
  # and for the daemon itself:
  mkdir -p /etc/systemd/system/containerd.service.d
  printf '[Service]\nLimitMEMLOCK=infinity\n' > /etc/systemd/system/containerd.service.d/memlock.conf
  systemctl daemon-reload && systemctl restart containerd
(dockerd: "default-ulimits": {"memlock": {"Name": "memlock", "Hard": -1, "Soft": -1}} in daemon.json.)
Then recreate the pod; `ulimit -l` inside it should print unlimited.)"},
    check};
}  // namespace railkit::doctor
