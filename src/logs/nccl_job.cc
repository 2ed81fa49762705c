// Job-wide view: the inputs of one invocation are one job. Facts are merged;
// findings that need several inputs (different NCCL versions or plugins in
// different files, sockets in a job whose hosts only add up across files) are
// raised here.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "logs/nccl/rule.h"
#include "logs/nccl/state.h"
#include "logs/nccl_log.h"

namespace railkit::logs {
namespace nccl {
std::set<std::string> versionNumbers(const std::vector<std::string>& versions);
}

namespace {

void mergeInto(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const auto& v : from)
    if (into.size() < kMaxListed && std::find(into.begin(), into.end(), v) == into.end()) into.push_back(v);
}

int transportRank(const std::string& t) {
  if (t == "unknown") return 0;
  if (t == "none") return 1;
  if (t == "Socket") return 2;
  return 3;
}

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

bool hasId(const std::vector<Finding>& findings, const char* id) {
  return std::any_of(findings.begin(), findings.end(), [id](const Finding& f) { return f.id == id; });
}

}  // namespace

NcclJobResult combineJob(const std::vector<const NcclLogAnalyzer*>& inputs) {
  std::vector<NcclLogFacts> facts;
  std::vector<std::vector<Finding>> findings;
  facts.reserve(inputs.size());  // the job inputs point into both
  findings.reserve(inputs.size());
  std::vector<NcclJobInput> analyzed;
  for (const NcclLogAnalyzer* input : inputs) {
    if (!input || !input->sawNccl()) continue;
    facts.push_back(input->facts());
    findings.push_back(input->findings(facts.back()));
    analyzed.push_back(NcclJobInput{input, &facts.back(), &findings.back()});
  }
  return combineAnalyzedJob(analyzed);
}

NcclJobResult combineAnalyzedJob(const std::vector<NcclJobInput>& inputs) {
  NcclLogFacts job;
  job.inter_node_transport = "unknown";
  std::vector<bool> ranks;
  uint64_t rank_count = 0, fallback_ranks = 0;
  std::set<std::string> numbers, plugins, files_with_nccl;
  std::vector<Evidence> version_evidence, plugin_evidence, socket_evidence;
  bool any_file_mismatch = false, any_file_socket = false, socket_network = false;
  std::string network_hint;
  std::vector<const NcclRanks*> rank_lists;
  for (const NcclJobInput& in : inputs) {
    const NcclLogAnalyzer* input = in.analyzer;
    if (!input || !in.facts || !in.findings || !input->sawNccl()) continue;
    const nccl::AnalyzerState& s = input->state();
    const NcclLogFacts& f = *in.facts;
    const std::vector<Finding>& own = *in.findings;
    files_with_nccl.insert(input->file());
    any_file_mismatch |= hasId(own, nccl::kNcclVersionMismatch.id);
    any_file_socket |= hasId(own, nccl::kNcclNetSocket.id);
    mergeInto(job.nccl_versions, f.nccl_versions);
    mergeInto(job.cuda_driver, f.cuda_driver);
    mergeInto(job.cuda_runtime, f.cuda_runtime);
    mergeInto(job.hosts, f.hosts);
    mergeInto(job.bootstrap_addresses, f.bootstrap_addresses);
    job.host_count = std::max(job.host_count, f.host_count);
    mergeInto(job.bootstrap, f.bootstrap);
    mergeInto(job.networks, f.networks);
    mergeInto(job.net_plugins, f.net_plugins);
    mergeInto(job.hcas, f.hcas);
    mergeInto(job.socket_interfaces, f.socket_interfaces);
    for (const auto& [name, count] : f.transports) job.transports[name] += count;
    job.processes += f.processes;
    job.nccl_lines += f.nccl_lines;
    rank_lists.push_back(&f.per_rank);
    if (f.nranks) job.nranks = std::max(job.nranks.value_or(0), *f.nranks);
    if (f.nnodes) job.nnodes = std::max(job.nnodes.value_or(0), *f.nnodes);
    if (transportRank(f.inter_node_transport) > transportRank(job.inter_node_transport)) {
      job.inter_node_transport = f.inter_node_transport;
      job.link_layer = f.link_layer;
    }
    if (job.link_layer.empty() && f.inter_node_transport == job.inter_node_transport)
      job.link_layer = f.link_layer;
    if (f.gdr) job.gdr = job.gdr.value_or(false) || *f.gdr;
    if (network_hint.empty() && !f.networks.empty()) network_hint = f.networks.front();
    if (ranks.size() < s.ranks_seen.size()) ranks.resize(s.ranks_seen.size());
    for (size_t r = 0; r < s.ranks_seen.size(); ++r)
      if (s.ranks_seen[r] && !ranks[r]) ranks[r] = true, ++rank_count;
    fallback_ranks += s.rank_devices.size();
    // Each file's version and plugin identity, with its first proof line.
    auto own_numbers = nccl::versionNumbers(f.nccl_versions);
    numbers.insert(own_numbers.begin(), own_numbers.end());
    for (auto& plugin : s.process_plugin.current()) plugins.insert(std::move(plugin));
    if (!s.sig_versions.evidence.empty()) version_evidence.push_back(s.sig_versions.evidence.front());
    if (!s.sig_plugins.evidence.empty()) plugin_evidence.push_back(s.sig_plugins.evidence.front());
    if (s.sig_socket_network.any()) {
      socket_network = true;
      socket_evidence.push_back(s.sig_socket_network.evidence.front());
      if (!s.sig_socket_cause.evidence.empty())
        socket_evidence.push_back(s.sig_socket_cause.evidence.front());
    }
  }
  job.ranks = rank_count > 0 ? rank_count : fallback_ranks;
  job.per_rank = mergeRanks(rank_lists);
  // Hosts as the per-input count does it, over the merged names and addresses.
  job.host_count = std::max({job.host_count, uint64_t{job.hosts.size()},
                             uint64_t{job.bootstrap_addresses.size()}, job.nnodes.value_or(0)});
  job.ranks = std::max(job.ranks, job.host_count);
  bool multi_host = job.host_count > 1;
  // Files from single hosts each say "none"; together they are a multi-node job.
  if (multi_host && job.inter_node_transport == "none" && job.nnodes.value_or(0) != 1)
    job.inter_node_transport = network_hint.empty() ? "unknown" : network_hint;
  if (job.inter_node_transport == "IB" && !job.hcas.empty()) {
    bool ib = std::any_of(job.hcas.begin(), job.hcas.end(),
                          [](const std::string& h) { return h.find("/IB") != std::string::npos; });
    bool roce = std::any_of(job.hcas.begin(), job.hcas.end(),
                            [](const std::string& h) { return h.find("/RoCE") != std::string::npos; });
    if (roce && !ib) job.inter_node_transport = "RoCE";
    if (roce || ib) job.link_layer = roce && !ib ? "Ethernet" : "InfiniBand";
  }

  NcclJobResult result;
  result.facts = factsToJson(job);
  result.facts["files"] = files_with_nccl.size();
  auto trim = [](std::vector<Evidence> e) {
    if (e.size() > kMaxEvidencePerFinding * 2) e.resize(kMaxEvidencePerFinding * 2);
    return e;
  };
  if (!any_file_mismatch && (numbers.size() > 1 || plugins.size() > 1)) {
    Finding f = findingOf(nccl::kNcclVersionMismatch);
    f.subject = "job";
    std::string what;
    if (numbers.size() > 1) what = "NCCL versions " + joined(numbers);
    if (plugins.size() > 1)
      what += (what.empty() ? "" : "; ") + std::string("net plugins ") + joined(plugins);
    f.message = "the inputs of this job do not agree: " + what;
    if (plugins.size() > 1)
      version_evidence.insert(version_evidence.end(), plugin_evidence.begin(), plugin_evidence.end());
    f.evidence = trim(version_evidence);
    f.fix =
        "run every rank from the same image (same NCCL build and the same libnccl-net plugin, "
        "NCCL_NET_PLUGIN "
        "and NCCL_NET settings on every node)";
    result.findings.push_back(std::move(f));
  }
  if (!any_file_socket && socket_network && multi_host) {
    Finding f = findingOf(nccl::kNcclNetSocket);
    f.subject = "network";
    f.message = "this job spans " + std::to_string(job.host_count) +
                " hosts and NCCL chose the Socket network: inter-node traffic runs over TCP sockets";
    f.evidence = trim(socket_evidence);
    f.fix =
        "make the RDMA devices usable in every pod: expose /dev/infiniband, install rdma-core in the image, "
        "grant IPC_LOCK, unset NCCL_IB_DISABLE; run `railkit doctor` in the pod";
    result.findings.push_back(std::move(f));
  }
  for (auto& f : result.findings)
    if (!f.evidence.empty()) f.file = f.evidence.front().source, f.line = f.evidence.front().line;
  return result;
}

}  // namespace railkit::logs
