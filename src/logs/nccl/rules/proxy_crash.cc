// nccl-proxy-crash: the NCCL proxy thread crashed (a signal with a proxy
// frame). On RDMA pods this is typically registration failing without
// IPC_LOCK and the proxy dereferencing what it did not get.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool isSignal(std::string_view t) {
  return has(t, "SIGSEGV") || has(t, "egmentation fault") || has(t, "signal 11") || has(t, "SIGBUS") ||
         has(t, "SIGABRT") || has(t, "Caught signal");
}

bool isProxyFrame(std::string_view t) {
  return has(t, "ncclProxyService") || has(t, "ncclProxyProgress") || has(t, "proxyService") ||
         has(t, "ncclProxy") ;
}

// A proxy frame line or a signal line both count; build requires both kinds.
bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.text;
  bool signal = isSignal(t), frame = isProxyFrame(t);
  if (!signal && !frame) return false;
  *subject = signal ? "signal" : "frame";
  *detail = bounded(trimView(t), 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  bool signal = false, frame = false;
  for (const auto& s : h.subjects.values()) (s == "signal" ? signal : frame) = true;
  if (!signal || !frame) return std::nullopt;
  return makeFinding("nccl-proxy-crash", Severity::kError, "NCCL proxy thread",
                     "the NCCL proxy thread crashed (" + h.detail +
                         "); on RDMA pods this is typically a missing IPC_LOCK capability or memlock limit",
                     "add the IPC_LOCK capability and an unlimited memlock limit to the container, then check "
                     "the first NCCL WARN before the crash",
                     c.state, {&h});
}

}  // namespace

NcclRule proxyCrashRule() { return {"nccl-proxy-crash", match, build}; }

}  // namespace railkit::logs::nccl
