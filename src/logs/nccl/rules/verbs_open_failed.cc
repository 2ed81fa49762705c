// nccl-verbs-open-failed: the RDMA device cannot be opened in the container.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.body;
  bool hit = (has(t, "ibv_open_device") && has(t, "fail")) || has(t, "Unable to open device");
  if (!hit) return false;
  std::string_view dev = tokenAfter(t, "Unable to open device ", " ,;'");
  if (!dev.empty()) *subject = std::string(dev);
  *detail = bounded(t, 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  std::string subject = h.subjects.size() ? h.subjects.values()[0] : "rdma device";
  return makeFinding(
      kNcclVerbsOpenFailed, subject,
      "NCCL could not open the RDMA device " + subject +
          ": the device nodes (/dev/infiniband/uverbs*) are not exposed to the container or not "
          "accessible",
      "give the pod the RDMA device (RDMA shared device plugin, SR-IOV VF or DRA claim) so "
      "/dev/infiniband/uverbsN and rdma_cm appear, or run privileged with the host's devices; check "
      "with `railkit doctor` inside the pod",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclVerbsOpenFailed = {
    {"nccl-verbs-open-failed", Severity::kError, "The RDMA device cannot be opened",
     R"(NCCL saw an RDMA device but could not open it: the device nodes (/dev/infiniband/uverbs*) are not
exposed to the container or not accessible.)",
     R"(Fix: give the pod the RDMA device (RDMA shared device plugin, SR-IOV VF or a DRA claim), or run
privileged with the host's devices; `railkit doctor` in the pod checks it.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
