#include "logs/nccl/codes.h"

#include <array>

#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

constexpr std::array<const char*, 22> kWcNames = {"IBV_WC_SUCCESS",           "IBV_WC_LOC_LEN_ERR",
                                                  "IBV_WC_LOC_QP_OP_ERR",     "IBV_WC_LOC_EEC_OP_ERR",
                                                  "IBV_WC_LOC_PROT_ERR",      "IBV_WC_WR_FLUSH_ERR",
                                                  "IBV_WC_MW_BIND_ERR",       "IBV_WC_BAD_RESP_ERR",
                                                  "IBV_WC_LOC_ACCESS_ERR",    "IBV_WC_REM_INV_REQ_ERR",
                                                  "IBV_WC_REM_ACCESS_ERR",    "IBV_WC_REM_OP_ERR",
                                                  "IBV_WC_RETRY_EXC_ERR",     "IBV_WC_RNR_RETRY_EXC_ERR",
                                                  "IBV_WC_LOC_RDD_VIOL_ERR",  "IBV_WC_REM_INV_RD_REQ_ERR",
                                                  "IBV_WC_REM_ABORT_ERR",     "IBV_WC_INV_EECN_ERR",
                                                  "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
                                                  "IBV_WC_RESP_TIMEOUT_ERR",  "IBV_WC_GENERAL_ERR"};

struct ResultName {
  int code;
  const char* enum_name;
  const char* text;
};
constexpr std::array<ResultName, 7> kResults = {{
    {1, "ncclUnhandledCudaError", "unhandled cuda error"},
    {2, "ncclSystemError", "unhandled system error"},
    {3, "ncclInternalError", "internal error"},
    {4, "ncclInvalidArgument", "invalid argument"},
    {5, "ncclInvalidUsage", "invalid usage"},
    {6, "ncclRemoteError", "remote process exited or there was a network error"},
    {7, "ncclInProgress", "NCCL operation in progress"},
}};

}  // namespace

std::string ibvWcStatusName(int status) {
  if (status >= 0 && status < static_cast<int>(kWcNames.size())) return kWcNames[static_cast<size_t>(status)];
  return "IBV_WC status " + std::to_string(status);
}

std::string ibvWcStatusMeaning(int status) {
  switch (status) {
    case 12:
      return "transport retry counter exceeded: the peer did not acknowledge over RDMA (unreachable: wrong "
             "RoCE "
             "GID index or VLAN, a link or switch port down, PFC/ECN misconfigured, or the peer process "
             "died)";
    case 13: return "receiver not ready retries exceeded: the peer posted no receive buffer in time";
    case 4:
      return "local protection error: the NIC could not access the registered buffer; with GPU memory this "
             "is "
             "usually PCIe ACS or the IOMMU redirecting peer-to-peer traffic, breaking GPUDirect RDMA";
    case 10:
      return "remote access error: the peer rejected the RDMA access (memory key or permissions mismatch)";
    case 5:
      return "work request flushed: the queue pair had already gone to the error state after an earlier "
             "failure";
    case 2: return "local QP operation error: an invalid work request or a QP in the wrong state";
    case 8: return "local access error: the memory region does not allow the requested access";
    case 9: return "remote invalid request: the peer could not handle the request (size or opcode)";
    case 11: return "remote operation error: the peer's NIC failed the operation";
    case 1: return "local length error: message larger than the posted buffer";
    case 19: return "fatal error in the NIC";
    case 20: return "response timeout";
    default: return "work completion failed with " + ibvWcStatusName(status);
  }
}

std::string ibvWcStatusFix(int status) {
  switch (status) {
    case 12:
      return "check the peer is reachable over RDMA with the same GID index and VLAN (RoCE: "
             "NCCL_IB_GID_INDEX of "
             "the RoCE v2 GID), the links and switch ports are up, and PFC/ECN are configured for RoCE; run "
             "ib_write_bw between the two hosts with the same settings";
    case 13:
      return "the receiver had no buffer posted: look for the peer's own first error (it stalled or died)";
    case 4:
      return "disable PCIe ACS on the switches between GPU and NIC or set the IOMMU to passthrough (confirm "
             "with "
             "NCCL_NET_GDR_LEVEL=0, which stages through host memory)";
    case 10:
      return "the peers disagree on memory registrations: run one NCCL build on every rank and check for an "
             "earlier error on the peer";
    case 5: return "the queue pair had already failed: find the first completion error before this one";
    default:
      return "see the first error line; ibv_devinfo and `railkit doctor` on both hosts show port and GID "
             "state";
  }
}

std::string ncclResultText(int code) {
  for (const auto& r : kResults)
    if (r.code == code) return std::string(r.text) + " (" + r.enum_name + ")";
  return "NCCL result " + std::to_string(code);
}

int ncclResultFromText(std::string_view text) {
  // Every line a rule sees asks; most name no result. Each enum name holds
  // "ncc" and each text "error", "invalid" or "NCCL operation": 4 searches
  // rule the line out instead of 14.
  if (!has(text, "ncc") && !has(text, "error") && !has(text, "invalid") && !has(text, "NCCL operation"))
    return 0;
  for (const auto& r : kResults)
    if (has(text, r.enum_name) || has(text, r.text)) return r.code;
  return 0;
}

}  // namespace railkit::logs::nccl
