// Job-wide view: the inputs of one invocation are one job. Facts are merged;
// findings that need several inputs (different NCCL versions or plugins in
// different files, sockets in a job whose hosts only add up across files) are
// raised here.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
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

// What the inputs say together beyond their merged facts: which ranks and
// files were seen, each file's version and plugin identity and the first
// line proving each, and whether a file already raised the job-wide findings.
struct JobAcross {
  std::vector<bool> ranks;
  uint64_t rank_count = 0, fallback_ranks = 0;
  std::set<std::string> numbers, plugins, files_with_nccl;
  std::vector<Evidence> version_evidence, plugin_evidence, socket_evidence;
  bool any_file_mismatch = false, any_file_socket = false, socket_network = false;
  std::string network_hint;
  std::vector<const NcclRanks*> rank_lists;
};

// One input's facts into the job's.
void mergeFacts(NcclLogFacts& job, const NcclLogFacts& f) {
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
  if (f.nranks) job.nranks = std::max(job.nranks.value_or(0), *f.nranks);
  if (f.nnodes) job.nnodes = std::max(job.nnodes.value_or(0), *f.nnodes);
  if (transportRank(f.inter_node_transport) > transportRank(job.inter_node_transport)) {
    job.inter_node_transport = f.inter_node_transport;
    job.link_layer = f.link_layer;
  }
  if (job.link_layer.empty() && f.inter_node_transport == job.inter_node_transport)
    job.link_layer = f.link_layer;
  if (f.gdr) job.gdr = job.gdr.value_or(false) || *f.gdr;
}

// One input's ranks, identity and evidence into `a`.
void noteInput(JobAcross& a, const NcclJobInput& in) {
  const NcclLogAnalyzer* input = in.analyzer;
  const nccl::AnalyzerState& s = input->state();
  const NcclLogFacts& f = *in.facts;
  const std::vector<Finding>& own = *in.findings;
  a.files_with_nccl.insert(input->file());
  a.any_file_mismatch |= hasId(own, nccl::kNcclVersionMismatch.id);
  a.any_file_socket |= hasId(own, nccl::kNcclNetSocket.id);
  a.rank_lists.push_back(&f.per_rank);
  if (a.network_hint.empty() && !f.networks.empty()) a.network_hint = f.networks.front();
  if (a.ranks.size() < s.ranks_seen.size()) a.ranks.resize(s.ranks_seen.size());
  for (size_t r = 0; r < s.ranks_seen.size(); ++r)
    if (s.ranks_seen[r] && !a.ranks[r]) a.ranks[r] = true, ++a.rank_count;
  a.fallback_ranks += s.rank_devices.size();
  // Each file's version and plugin identity, with its first proof line.
  auto own_numbers = nccl::versionNumbers(f.nccl_versions);
  a.numbers.insert(own_numbers.begin(), own_numbers.end());
  for (auto& plugin : s.process_plugin.current()) a.plugins.insert(std::move(plugin));
  if (!s.sig_versions.evidence.empty()) a.version_evidence.push_back(s.sig_versions.evidence.front());
  if (!s.sig_plugins.evidence.empty()) a.plugin_evidence.push_back(s.sig_plugins.evidence.front());
  if (s.sig_socket_network.any()) {
    a.socket_network = true;
    a.socket_evidence.push_back(s.sig_socket_network.evidence.front());
    if (!s.sig_socket_cause.evidence.empty())
      a.socket_evidence.push_back(s.sig_socket_cause.evidence.front());
  }
}

// The job's ranks, hosts and inter-node transport, once every input is in.
void settleShape(NcclLogFacts& job, const JobAcross& a) {
  job.ranks = a.rank_count > 0 ? a.rank_count : a.fallback_ranks;
  job.per_rank = mergeRanks(a.rank_lists);
  // Hosts as the per-input count does it, over the merged names and addresses.
  job.host_count = std::max({job.host_count, uint64_t{job.hosts.size()},
                             uint64_t{job.bootstrap_addresses.size()}, job.nnodes.value_or(0)});
  job.ranks = std::max(job.ranks, job.host_count);
  // Files from single hosts each say "none"; together they are a multi-node job.
  if (job.host_count > 1 && job.inter_node_transport == "none" && job.nnodes.value_or(0) != 1)
    job.inter_node_transport = a.network_hint.empty() ? "unknown" : a.network_hint;
  if (job.inter_node_transport == "IB" && !job.hcas.empty()) {
    bool ib = std::any_of(job.hcas.begin(), job.hcas.end(),
                          [](const std::string& h) { return h.find("/IB") != std::string::npos; });
    bool roce = std::any_of(job.hcas.begin(), job.hcas.end(),
                            [](const std::string& h) { return h.find("/RoCE") != std::string::npos; });
    if (roce && !ib) job.inter_node_transport = "RoCE";
    if (roce || ib) job.link_layer = roce && !ib ? "Ethernet" : "InfiniBand";
  }
}

std::vector<Evidence> trimmed(std::vector<Evidence> e) {
  if (e.size() > kMaxEvidencePerFinding * 2) e.resize(kMaxEvidencePerFinding * 2);
  return e;
}

// Files that each hold one NCCL version and plugin, but not the same one.
std::optional<Finding> versionMismatch(const JobAcross& a) {
  if (a.any_file_mismatch || (a.numbers.size() < 2 && a.plugins.size() < 2)) return std::nullopt;
  Finding f = findingOf(nccl::kNcclVersionMismatch);
  f.subject = "job";
  std::string what;
  if (a.numbers.size() > 1) what = "NCCL versions " + joined(a.numbers);
  if (a.plugins.size() > 1)
    what += (what.empty() ? "" : "; ") + std::string("net plugins ") + joined(a.plugins);
  f.message = "the inputs of this job do not agree: " + what;
  std::vector<Evidence> evidence = a.version_evidence;
  if (a.plugins.size() > 1)
    evidence.insert(evidence.end(), a.plugin_evidence.begin(), a.plugin_evidence.end());
  f.evidence = trimmed(std::move(evidence));
  f.fix =
      "run every rank from the same image (same NCCL build and the same libnccl-net plugin, "
      "NCCL_NET_PLUGIN "
      "and NCCL_NET settings on every node)";
  return f;
}

// Sockets in a job whose hosts only add up to several across files.
std::optional<Finding> socketAcrossHosts(const NcclLogFacts& job, const JobAcross& a) {
  if (a.any_file_socket || !a.socket_network || job.host_count < 2) return std::nullopt;
  Finding f = findingOf(nccl::kNcclNetSocket);
  f.subject = "network";
  f.message = "this job spans " + std::to_string(job.host_count) +
              " hosts and NCCL chose the Socket network: inter-node traffic runs over TCP sockets";
  f.evidence = trimmed(a.socket_evidence);
  f.fix =
      "make the RDMA devices usable in every pod: expose /dev/infiniband, install rdma-core in the image, "
      "grant IPC_LOCK, unset NCCL_IB_DISABLE; run `railkit doctor` in the pod";
  return f;
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
  JobAcross across;
  for (const NcclJobInput& in : inputs) {
    if (!in.analyzer || !in.facts || !in.findings || !in.analyzer->sawNccl()) continue;
    mergeFacts(job, *in.facts);
    noteInput(across, in);
  }
  settleShape(job, across);
  NcclJobResult result;
  result.facts = factsToJson(job);
  result.facts["files"] = across.files_with_nccl.size();
  for (auto f : {versionMismatch(across), socketAcrossHosts(job, across)}) {
    if (!f) continue;
    if (!f->evidence.empty()) f->file = f->evidence.front().source, f->line = f->evidence.front().line;
    result.findings.push_back(std::move(*f));
  }
  return result;
}

}  // namespace railkit::logs
