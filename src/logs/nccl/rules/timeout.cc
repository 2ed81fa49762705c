// nccl-timeout: a collective timed out or a watchdog fired (PyTorch's NCCL
// watchdog, NCCL's own timeouts). Connection timeouts of sockets and QPs are
// other findings.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.text;
  // Every word that makes a hit below holds one of these: three searches
  // turn away ordinary INFO text (this rule reads the whole text of each
  // line the rules see, unremembered) instead of sixteen.
  if (!has(t, "imeout") && !has(t, "imed out") && !has(t, "atchdog")) return false;
  if (has(t, "set by environment") || has(t, "ibv_") || has(t, "Connection timed out")) return false;
  bool hit =
      has(t, "Watchdog caught") || has(t, "operation timeout") || has(t, "Timeout(ms)=") ||
      has(t, "watchdog timeout") || has(t, "Watchdog timeout") || has(t, "timed out after") ||
      has(t, "NCCL timeout") || has(t, "collective timeout") ||
      // PyTorch's heartbeat monitor: the watchdog itself hung in an NCCL/CUDA call.
      has(t, "watchdog got stuck") || has(t, "Heartbeat monitor timed out") ||
      (line.level == LineLevel::kWarn && (has(t, "Timeout") || has(t, "timeout") || has(t, "timed out")));
  if (!hit) return false;
  *detail = bounded(trimView(line.body), 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  return makeFinding(
      kNcclTimeout, "collective",
      "a collective timed out or a watchdog fired (" + h.detail +
          "): some rank stopped participating (crashed, hung, or its network path is broken)",
      "find the rank that did not arrive: read every rank's log for its first error; check for "
      "ranks stuck in a different collective; only raise the timeout when the work is genuinely slow",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclTimeout = {
    {"nccl-timeout", Severity::kError, "A collective timed out or a watchdog fired",
     R"(A collective did not finish in time (PyTorch's NCCL watchdog, NCCL's own timeouts): some rank
stopped participating because it crashed, hung, entered a different collective, or its network path
broke.)",
     R"(Fix: find the rank that did not arrive by reading every rank's log for its first error; raise the
timeout only when the work is genuinely slow.)"},
    match,
    build,
    /*reads_text=*/true};

}  // namespace railkit::logs::nccl
