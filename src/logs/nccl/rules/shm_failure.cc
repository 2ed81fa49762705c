// nccl-shm-failure: a shared-memory segment could not be created, almost
// always /dev/shm at the container default of 64 MiB.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.body;
  bool hit = (has(t, "posix_fallocate") && has(t, "fail")) || has(t, "failed to extend /dev/shm") ||
             (has(t, "/dev/shm") && (has(t, "No space left") || has(t, "fail"))) ||
             (has(t, "shm_open") && has(t, "fail")) || has(t, "Error while creating shared memory segment") ||
             (has(t, "shm.") && has(t, "No space left on device"));
  if (!hit) return false;
  *detail = bounded(t, 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  return makeFinding("nccl-shm-failure", Severity::kError, "/dev/shm",
                     "NCCL could not create a shared-memory segment (" + h.detail +
                         "): /dev/shm is too small (64 MiB is the container default)",
                     "mount a larger /dev/shm: in Kubernetes an emptyDir with medium Memory at /dev/shm (sizeLimit "
                     "of a few GiB), with docker `--shm-size=8g` or `--ipc=host`; NCCL_SHM_DISABLE=1 only works "
                     "around it at a speed cost",
                     c.state, {&h});
}

}  // namespace

NcclRule shmFailureRule() { return {"nccl-shm-failure", match, build}; }

}  // namespace railkit::logs::nccl
