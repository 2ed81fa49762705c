// shm-too-small: NCCL's intra-node transports and MPI's shared-memory BTL live
// in /dev/shm; Kubernetes gives containers 64 MiB.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {
constexpr uint64_t kGiB = 1ull << 30;

std::vector<Finding> check(const DoctorInput& in) {
  const auto& p = in.inventory.process;
  if (!p.shm_bytes || *p.shm_bytes >= kGiB) return {};
  return {makeFinding(
      kShmTooSmall, sys::paths::kDevShm,
      "/dev/shm is " + std::to_string(*p.shm_bytes / (1024 * 1024)) + " MiB; NCCL needs at least 1 GiB",
      {{p.shm_source == "statvfs" ? sys::paths::kDevShm : sys::paths::kSelfMountinfo, std::nullopt,
        "size " + std::to_string(*p.shm_bytes) + " bytes"}},
      "mount a memory-backed emptyDir at /dev/shm (medium: Memory, sizeLimit of several GiB)")};
}
}  // namespace

extern const Rule kShmTooSmall = {
    {"shm-too-small", Severity::kError, "/dev/shm is smaller than 1 GiB",
     R"(NCCL's SHM and P2P transports and OpenMPI's vader/sm BTL allocate their buffers in /dev/shm. Kubernetes
gives every container a 64 MiB /dev/shm, so multi-GPU jobs fail with 'Bus error' or NCCL 'unhandled system error'.)",
     R"(Fix:
  volumes:
  - name: dshm
    emptyDir:
      medium: Memory
      sizeLimit: 16Gi
  containers: ... volumeMounts:
  - name: dshm
    mountPath: /dev/shm
(or `docker run --shm-size=16g`).)"},
    check};
}  // namespace railkit::doctor
