#include "logs/nccl/rule.h"

namespace railkit::logs::nccl {

// Order matters once: nccl-unhandled-error is last so it can name the finding
// that explains NCCL's error.
const std::vector<NcclRule>& allNcclRules() {
  static const std::vector<NcclRule> kRules = {
      netSocketRule(),       noGdrRule(),         verbsResourceFailedRule(), verbsOpenFailedRule(),
      qpConnectFailedRule(), ibCompletionErrorRule(), proxyCrashRule(),      connectionClosedRule(),
      noInterfaceRule(),     shmFailureRule(),    timeoutRule(),             duplicateGpuRule(),
      versionMismatchRule(), unhandledErrorRule(),
  };
  return kRules;
}

}  // namespace railkit::logs::nccl
