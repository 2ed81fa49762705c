// nccl-unhandled-error: NCCL returned an error to the application. The
// message points at the finding that explains it when one fired, else at the
// last cause NCCL printed.
#include "logs/nccl/codes.h"
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

// NCCL's result words ("invalid argument", "internal error") are also CUDA's:
// they name an NCCL result only on an NCCL WARN, a line naming NCCL (`NCCL
// error in: ...`, `NCCL Error 1: ...`, nccl-tests' `NCCL failure ...`), a
// `ncclCommInitRank(...) failed: ...` or with an enum name (ncclSystemError),
// and never in CUDA's own `Cuda failure '...'`.
bool reportsNcclResult(const NcclLine& line) {
  std::string_view t = line.body;
  if (has(t, "Cuda failure") || has(t, "CUDA failure")) return false;
  return line.level == LineLevel::kWarn || has(t, "NCCL") || has(t, "failed: ") || has(t, "ncclUnhandled") ||
         has(t, "ncclSystemError") || has(t, "ncclInternalError") || has(t, "ncclInvalid") ||
         has(t, "ncclRemoteError");
}

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.body;
  int code = ncclResultFromText(t);
  if (code == 0 || code == 7 || !reportsNcclResult(line)) return false;
  *detail = ncclResultText(code);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  std::string explained;
  for (const auto& f : c.earlier) {
    if (f.id == kNcclNoGdr.id || f.id == kNcclVersionMismatch.id) continue;
    explained = f.id;
    break;
  }
  // No error text, but a failure traced (`-> N`) up to init or the group
  // launcher that no other finding explains: the NCCL call failed with that
  // result, and the WARN lines before it are all the log says.
  bool traced_only = !h.any() && explained.empty() && c.state.init_failed && c.state.last_error_code != 0;
  if (!h.any() && !traced_only) return std::nullopt;
  std::string message = traced_only ? "an NCCL call failed with " + ncclResultText(c.state.last_error_code) +
                                          " (traced as `-> " + std::to_string(c.state.last_error_code) + "`)"
                                    : "NCCL returned " + h.detail + " to the application";
  if (!explained.empty()) {
    message += "; explained by " + explained + " (see that finding)";
  } else if (!c.state.first_warn.empty() && c.state.first_warn != c.state.last_warn) {
    message += "; the first cause NCCL printed (line " + std::to_string(c.state.first_warn_line) +
               "): " + c.state.first_warn + "; the last (line " + std::to_string(c.state.last_warn_line) +
               "): " + c.state.last_warn;
  } else if (!c.state.last_warn.empty()) {
    message += "; the last cause NCCL printed (line " + std::to_string(c.state.last_warn_line) +
               "): " + c.state.last_warn;
  } else if (c.state.last_error_code != 0 && !traced_only) {
    message += "; NCCL unwound with " + ncclResultText(c.state.last_error_code) + " and printed no WARN line";
  } else {
    message +=
        "; the log holds no NCCL WARN line: rerun with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET)";
  }
  return makeFinding(kNcclUnhandledError, "job", message,
                     explained.empty()
                         ? "read the WARN lines before the error (NCCL_DEBUG=INFO); `railkit doctor` "
                           "in the pod checks the usual causes"
                         : "fix what " + explained + " reports",
                     c.state, {&h, traced_only ? &c.state.sig_error_trace : nullptr});
}

}  // namespace

extern const NcclRule kNcclUnhandledError = {
    {"nccl-unhandled-error", Severity::kError, "NCCL returned an error to the application",
     R"(An NCCL call failed and returned its result code (system, internal, invalid usage, remote error...)
to the application. The code alone rarely names the cause: the finding points at the finding that
explains it when one fired, else at the WARN lines NCCL printed (or PyTorch's `Last error:`).)",
     R"(Fix: what that finding or WARN names; with neither, rerun with NCCL_DEBUG=INFO and
NCCL_DEBUG_SUBSYS=INIT,NET.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
