// nccl-version-mismatch: ranks of one job run different NCCL versions or
// chose different net plugins/networks, which NCCL does not support. Within
// one input here; across inputs in combineJob.
#include <set>

#include "logs/nccl/rule.h"

namespace railkit::logs::nccl {

std::set<std::string> versionNumbers(const std::vector<std::string>& versions);  // nccl_log.cc

namespace {

std::optional<Finding> build(const Hits&, const RuleContext& c) {
  const AnalyzerState& s = c.state;
  auto numbers = versionNumbers(s.versions.values());
  std::set<std::string> plugins, networks;
  for (auto& plugin : s.process_plugin.current()) plugins.insert(std::move(plugin));
  for (auto& network : s.process_network.current()) networks.insert(std::move(network));
  std::string what;
  auto list = [](const std::set<std::string>& values) {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
    return out;
  };
  if (numbers.size() > 1) what = "NCCL versions " + list(numbers);
  if (plugins.size() > 1) what += (what.empty() ? "" : "; ") + std::string("net plugins ") + list(plugins);
  if (networks.size() > 1) what += (what.empty() ? "" : "; ") + std::string("networks ") + list(networks);
  if (what.empty()) return std::nullopt;
  return makeFinding(kNcclVersionMismatch, "job", "the ranks of this job do not agree: " + what,
                     "run every rank from the same image (same NCCL build and the same libnccl-net plugin, "
                     "NCCL_NET_PLUGIN and NCCL_NET settings on every node)",
                     s, {&s.sig_versions, &s.sig_plugins});
}

}  // namespace

extern const NcclRule kNcclVersionMismatch = {
    {"nccl-version-mismatch", Severity::kError, "The ranks of one job run different NCCL builds or plugins",
     R"(NCCL requires every rank of a communicator to run the same version with the same network plugin and
network choice; mixed versions fail in odd ways (hangs, remote access errors, wrong results).)",
     R"(Fix: run every rank from the same image, with the same libnccl-net plugin and NCCL_NET /
NCCL_NET_PLUGIN settings.)"},
    nullptr,
    build};

}  // namespace railkit::logs::nccl
