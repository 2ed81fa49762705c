// nccl-verbs-resource-failed: registering memory or creating QPs/CQs failed,
// nearly always the pinned-memory limit or a missing IPC_LOCK capability.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

constexpr std::string_view kCalls[] = {"ibv_reg_mr",    "ibv_reg_dmabuf_mr", "ibv_create_qp",
                                       "ibv_create_cq", "ibv_alloc_pd",      "ibv_create_srq"};

bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.body;
  if (has(t, "Couldn't allocate MR") || has(t, "ouldn't register")) {
    *detail = bounded(t, 200);
    return true;
  }
  if (!has(t, "ibv_")) return false;
  for (auto call : kCalls) {
    if (has(t, call) && has(t, "fail")) {
      *subject = std::string(call);
      *detail = bounded(t, 200);
      return true;
    }
  }
  return false;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  return makeFinding(
      kNcclVerbsResourceFailed, h.subjects.size() ? h.subjects.values()[0] : "verbs",
      "RDMA resources could not be created (" + h.detail +
          "): the locked-memory limit (RLIMIT_MEMLOCK) is too low or the pod lacks IPC_LOCK",
      "set the memlock limit to unlimited for the container (containerd/docker default ulimit, "
      "`--ulimit memlock=-1`), add the IPC_LOCK capability to the pod; check with `railkit doctor`",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclVerbsResourceFailed = {
    {"nccl-verbs-resource-failed", Severity::kError, "RDMA resources could not be created",
     R"(Registering memory or creating queue pairs/completion queues failed (ibv_reg_mr, ibv_create_qp...).
Nearly always the locked-memory limit (RLIMIT_MEMLOCK) is too low or the pod lacks IPC_LOCK.)",
     R"(Fix: an unlimited memlock limit for the container (`--ulimit memlock=-1`, the runtime's default
ulimits) and the IPC_LOCK capability.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
