// nccl-unhandled-error: NCCL returned an error to the application. The
// message points at the finding that explains it when one fired, else at the
// last cause NCCL printed.
#include "logs/nccl/codes.h"
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.body;
  int code = ncclResultFromText(t);
  if (code == 0 || code == 7) return false;
  // Require NCCL context: the line is an NCCL WARN or names NCCL itself.
  if (line.level != LineLevel::kWarn && !has(t, "NCCL") && !has(t, "nccl")) return false;
  *detail = ncclResultText(code);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  std::string explained;
  for (const auto& f : c.earlier) {
    if (f.id == "nccl-no-gdr" || f.id == "nccl-version-mismatch") continue;
    explained = f.id;
    break;
  }
  std::string message = "NCCL returned " + h.detail + " to the application";
  if (!explained.empty()) {
    message += "; explained by " + explained + " (see that finding)";
  } else if (!c.state.last_warn.empty()) {
    message += "; the last cause NCCL printed (line " + std::to_string(c.state.last_warn_line) +
               "): " + c.state.last_warn;
  } else if (c.state.last_error_code != 0) {
    message += "; NCCL unwound with " + ncclResultText(c.state.last_error_code) + " and printed no WARN line";
  } else {
    message += "; the log holds no NCCL WARN line: rerun with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET)";
  }
  return makeFinding("nccl-unhandled-error", Severity::kError, "job", message,
                     explained.empty() ? "read the WARN lines before the error (NCCL_DEBUG=INFO); `railkit doctor` "
                                         "in the pod checks the usual causes"
                                       : "fix what " + explained + " reports",
                     c.state, {&h});
}

}  // namespace

NcclRule unhandledErrorRule() { return {"nccl-unhandled-error", match, build}; }

}  // namespace railkit::logs::nccl
