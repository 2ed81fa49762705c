// nccl-shm-failure: a shared-memory segment could not be created or
// attached. Creation failing for space is /dev/shm at the container default
// of 64 MiB; attaching failing (the segment another rank created is not
// there) is /dev/shm not shared between the ranks of a node.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.body;
  bool attach = has(t, "Error while attaching to shared memory segment");
  bool hit = attach || (has(t, "posix_fallocate") && has(t, "fail")) || has(t, "failed to extend /dev/shm") ||
             (has(t, "/dev/shm") && (has(t, "No space left") || has(t, "fail"))) ||
             (has(t, "shm_open") && has(t, "fail")) || has(t, "Error while creating shared memory segment") ||
             (has(t, "shm.") && has(t, "No space left on device"));
  if (!hit) return false;
  // What the line proves: no space (ENOSPC, fallocate, extend), or a segment
  // that was not found when attaching.
  bool space = has(t, "No space left") || has(t, "posix_fallocate") || has(t, "failed to extend");
  *subject = space ? "space" : attach ? "attach" : "create";
  *detail = bounded(t, 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  bool space = false, attach = false;
  for (const auto& s : h.subjects.values()) {
    space = space || s == "space";
    attach = attach || s == "attach";
  }
  if (space)
    return makeFinding(
        kNcclShmFailure, "/dev/shm",
        "NCCL could not create a shared-memory segment (" + h.detail +
            "): /dev/shm ran out of space (64 MiB is the container default)",
        "mount a larger /dev/shm: in Kubernetes an emptyDir with medium Memory at /dev/shm (sizeLimit "
        "of a few GiB), with docker `--shm-size=8g` or `--ipc=host`; NCCL_SHM_DISABLE=1 only works "
        "around it at a speed cost",
        c.state, {&h});
  if (attach)
    return makeFinding(
        kNcclShmFailure, "/dev/shm",
        "NCCL could not attach to a shared-memory segment another rank of the node created (" + h.detail +
            "): the ranks of this node do not see the same /dev/shm, or the segment was removed",
        "run the ranks of a node in one container or pod, or share the IPC namespace (`--ipc=host`, "
        "one /dev/shm volume for all of them); check nothing cleans /dev/shm while the job runs "
        "(systemd RemoveIPC for the job's user); NCCL_SHM_DISABLE=1 works around it at a speed cost",
        c.state, {&h});
  return makeFinding(
      kNcclShmFailure, "/dev/shm",
      "NCCL could not create a shared-memory segment (" + h.detail +
          "); the log does not say why: check the size of /dev/shm (64 MiB is the container "
          "default) and that it is writable",
      "look at the WARN line before it for the system error; `df -h /dev/shm` in the container; a "
      "larger /dev/shm (emptyDir medium Memory, `--shm-size`) if it is small",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclShmFailure = {
    {"nccl-shm-failure", Severity::kError, "A shared-memory segment could not be created or attached",
     R"(NCCL moves data between ranks of one node through /dev/shm. Creating a segment fails for space when
/dev/shm is small (64 MiB is the container default).)",
     R"(Fix: mount a larger one (emptyDir medium Memory, --shm-size). Attaching fails (the segment is not
found) when the ranks of a node do not share /dev/shm (separate containers without a shared IPC
namespace) or something removed it: run them in one pod or share the IPC namespace.
NCCL_SHM_DISABLE=1 only works around either at a speed cost.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
