#pragma once
// Numbers NCCL prints that people cannot read: the IBV_WC status of a failed
// work completion (`with error 12`, `status=12`) and NCCL's own result codes
// (`-> 2`, `retcode 2`, `ncclSystemError`).

#include <string>
#include <string_view>

namespace railkit::logs::nccl {

// "IBV_WC_RETRY_EXC_ERR" for 12; "IBV_WC status N" when unknown.
std::string ibvWcStatusName(int status);
// Plain words on what the status usually means on a GPU cluster.
std::string ibvWcStatusMeaning(int status);
// What to do about that status (not a list for every status).
std::string ibvWcStatusFix(int status);

// "unhandled system error" for 2 (ncclSystemError); "NCCL result N" when unknown.
std::string ncclResultText(int code);
// The code for a textual NCCL error ("unhandled cuda error", "ncclRemoteError"), or 0.
int ncclResultFromText(std::string_view text);

}  // namespace railkit::logs::nccl
