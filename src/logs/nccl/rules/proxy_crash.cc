// nccl-proxy-crash: the NCCL proxy thread crashed (a signal with a proxy
// frame). Blamed on the memlock limit only when the log shows a resource
// failure (registration or QP creation) before the crash.
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
         has(t, "ncclProxy");
}

// A proxy frame line or a signal line both count; build requires both kinds.
bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.text;
  // Every word above holds one of these: four searches turn away the lines
  // of ordinary INFO text (this rule reads the whole text of each line the
  // rules see, unremembered) instead of ten.
  if (!has(t, "SIG") && !has(t, "signal") && !has(t, "egmentation") && !has(t, "roxy")) return false;
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
  bool resources = false;
  for (const auto& f : c.earlier) resources = resources || f.id == kNcclVerbsResourceFailed.id;
  if (resources)
    return makeFinding(
        kNcclProxyCrash, "NCCL proxy thread",
        "the NCCL proxy thread crashed (" + h.detail +
            ") after RDMA resources could not be created (see nccl-verbs-resource-failed): the "
            "memlock limit or the IPC_LOCK capability",
        "add the IPC_LOCK capability and an unlimited memlock limit to the container", c.state, {&h});
  std::string cause = c.state.first_warn.empty()
                          ? "the log shows no NCCL WARN before it"
                          : "the first NCCL WARN (line " + std::to_string(c.state.first_warn_line) +
                                "): " + c.state.first_warn;
  return makeFinding(
      kNcclProxyCrash, "NCCL proxy thread", "the NCCL proxy thread crashed (" + h.detail + "); " + cause,
      "fix the first error before the crash when there is one; otherwise keep the stack trace and "
      "the NCCL version and try the current NCCL release (a crash inside NCCL is a bug to report)",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclProxyCrash = {
    {"nccl-proxy-crash", Severity::kError, "The NCCL proxy thread crashed",
     R"(A signal (SIGSEGV, SIGBUS, SIGABRT) hit a thread inside NCCL's proxy. When RDMA resources could not
be created before it (see nccl-verbs-resource-failed) the cause is the memlock limit or a missing
IPC_LOCK.)",
     R"(Fix: raise that limit then; otherwise fix the first NCCL WARN before the crash, and with none keep
the stack trace and NCCL version: a crash inside NCCL is a bug to report, often fixed by a newer
release.)"},
    match,
    build,
    /*reads_text=*/true};

}  // namespace railkit::logs::nccl
