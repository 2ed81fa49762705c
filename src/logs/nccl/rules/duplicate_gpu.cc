// nccl-duplicate-gpu: several ranks on one GPU (CUDA_VISIBLE_DEVICES or the
// device selection gives every rank device 0).
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string*) {
  if (!has(line.body, "Duplicate GPU detected")) return false;
  *detail = bounded(line.body, 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  return makeFinding(
      kNcclDuplicateGpu, "gpu", "several ranks use the same GPU (" + h.detail + ")",
      "give each rank its own GPU: set the device from the local rank (torch.cuda.set_device("
      "LOCAL_RANK)), do not start more ranks per node than GPUs, and check CUDA_VISIBLE_DEVICES and "
      "the pod's GPU request",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclDuplicateGpu = {
    {"nccl-duplicate-gpu", Severity::kError, "Several ranks use the same GPU",
     R"(NCCL refuses a communicator in which two ranks sit on one GPU (`Duplicate GPU detected`,
ncclInvalidUsage). The ranks of a node were all given device 0, or more ranks were started than the
node has GPUs.)",
     R"(Fix: set the device from the local rank (torch.cuda.set_device(LOCAL_RANK)), start one rank per GPU,
and check CUDA_VISIBLE_DEVICES and the pod's GPU request.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
