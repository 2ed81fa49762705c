// nccl-ib-completion-error: a work completion came back with an error status;
// the IBV_WC status number says which kind of failure it was.
#include "logs/nccl/codes.h"
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

std::optional<uint64_t> statusOf(std::string_view t) {
  if (auto n = numberAfter(t, "with error ")) return n;
  if (auto n = numberAfter(t, "status=")) return n;
  if (auto n = numberAfter(t, "with status ")) return n;
  return std::nullopt;
}

bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.body;
  if (!has(t, "Got completion") && !has(t, "completion with error")) return false;
  auto status = statusOf(t);
  if (!status) return false;
  std::string_view peer = tokenAfter(t, "from peer ", " <,");
  if (!peer.empty()) *subject = std::string(peer);
  int code = static_cast<int>(*status);
  *detail = "status " + std::to_string(code) + " " + ibvWcStatusName(code);
  if (auto vendor = numberAfter(t, "vendor err ")) *detail += ", vendor err " + std::to_string(*vendor);
  *detail += ": " + ibvWcStatusMeaning(code);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  std::string peers;
  for (const auto& p : h.subjects.values()) peers += (peers.empty() ? "" : ", ") + p;
  std::string message = "RDMA work completion failed with " + h.detail;
  if (!peers.empty()) message += " (peer " + peers + ")";
  if (h.last_detail != h.detail) message += "; also: " + h.last_detail;
  // The fix for the status the log shows (the first; a flush after it is a consequence).
  auto status = numberAfter(h.detail, "status ");
  std::string fix = ibvWcStatusFix(status ? static_cast<int>(*status) : -1);
  if (auto later = numberAfter(h.last_detail, "status "); later && status && *later != *status && *later != 5)
    fix += "; for status " + std::to_string(*later) + ": " + ibvWcStatusFix(static_cast<int>(*later));
  return makeFinding(kNcclIbCompletionError, peers.empty() ? "rdma" : peers, message, fix, c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclIbCompletionError = {
    {"nccl-ib-completion-error", Severity::kError, "An RDMA work completion failed",
     R"(A send or receive on an RDMA queue pair completed with an error status (IBV_WC_*). The status says
what failed: 12 (retry exceeded) means the peer never acknowledged, usually a wrong RoCE GID index
or VLAN, a link or switch port down, or PFC/ECN missing; 4 (local protection) with GPU memory is
usually PCIe ACS or the IOMMU breaking GPUDirect RDMA; 10 (remote access) a registration mismatch; 5
(flushed) follows an earlier error.)",
     R"(Fix: what the reported status points at; ib_write_bw between the
two hosts with the same settings reproduces it without NCCL.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
