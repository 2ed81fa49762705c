// Turns the streamed state into NcclLogFacts: which network carried
// inter-node traffic and whether GPUDirect RDMA was used, by the order of
// strength of the evidence (channel lines, then `Using network`, then the
// queue pairs NCCL's IB net connected, the HCAs listed and NET/IB mentions
// in errors, then a single host).
#include <algorithm>

#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

// What tells InfiniBand from RoCE under a verbs net: the HCAs' `/IB` or
// `/RoCE`, a RoCE GID (IPv4-mapped, or a GID index), and the queue-pair
// lines' `LID n` (an InfiniBand port) or `GID n (...)` (a RoCE port).
struct LinkEvidence {
  bool ib = false, roce = false;
  bool hcas = false;  // HCAs listed (a list without either suffix still names a verbs port: IB)
  bool any() const { return ib || roce || hcas; }
};

LinkEvidence linkEvidence(const AnalyzerState& s, const std::vector<std::string>& hcas) {
  LinkEvidence e;
  e.hcas = !hcas.empty();
  for (const auto& h : hcas) {
    if (has(h, "/IB")) e.ib = true;
    if (has(h, "/RoCE")) e.roce = true;
  }
  e.ib = e.ib || s.qp_lid_seen;
  e.roce = e.roce || s.roce_gid_seen || s.qp_gid_seen;
  return e;
}

// RoCE when every sign is RoCE; IB when any port is InfiniBand or nothing tells.
std::string ibKind(const LinkEvidence& e) {
  return e.roce && !e.ib ? "RoCE" : "IB";
}

// NCCL's own IB net is named by its link layer (IB or RoCE); Google's
// GPUDirect plugins by what they are (TCPX, TCPXO); any other plugin net
// (IBext_v8, AWS Libfabric) keeps its name, its link layer told apart.
std::string fromNetworkName(const std::string& name, const LinkEvidence& e) {
  if (name == "IB") return ibKind(e);
  if (auto kind = tcpDirectKind(name); !kind.empty()) return std::string(kind);
  return name;
}

// The link layer under an IB-verbs transport, when the log shows it. "" otherwise.
std::string linkLayer(const std::string& transport, const LinkEvidence& e) {
  bool verbs = transport == "IB" || transport == "RoCE" || startsWith(transport, "IBext");
  if (!verbs || !e.any()) return "";
  return ibKind(e) == "RoCE" ? "Ethernet" : "InfiniBand";
}

// The hosts the evidence proves, never fewer than one when ranks ran.
uint64_t hostCount(const AnalyzerState& s, uint64_t ranks) {
  uint64_t hosts = std::max<uint64_t>(s.hosts.size(), s.bootstrap_ips.size());
  if (s.nnodes > 0) return std::max(hosts, s.nnodes);
  // nranks above the ranks one host runs: the job spans several hosts.
  // localRanks says so exactly; without it, a single host whose ranks
  // (two or more GPUs) are all shown is taken as all of that host.
  if (hosts <= 1 && s.nranks > 0) {
    if (s.local_ranks > 0 && s.nranks > s.local_ranks)
      hosts = (s.nranks + s.local_ranks - 1) / s.local_ranks;
    else if (s.local_ranks == 0 && s.hosts.size() == 1 && s.rank_devices.size() >= 2 &&
             s.nranks > s.rank_devices.size())
      hosts = 2;
  }
  if (hosts == 0 && ranks > 0) hosts = 1;
  return hosts;
}

}  // namespace

// TCPX and TCPXO move data over TCP into GPU memory: no GPUDirect RDMA
// question to ask of them.
bool isIbLike(const std::string& t) {
  return t != "Socket" && t != "none" && t != "unknown" && t != "TCPX" && t != "TCPXO";
}

NcclLogFacts summarize(const AnalyzerState& s) {
  NcclLogFacts f;
  f.nccl_versions = s.versions.values();
  f.cuda_driver = s.cuda_driver.values();
  f.cuda_runtime = s.cuda_runtime.values();
  f.hosts = s.hosts.values();
  f.processes = s.processes.size();
  f.ranks = s.ranks_count > 0 ? s.ranks_count : s.rank_devices.size();
  f.host_count = hostCount(s, f.ranks);
  f.ranks = std::max(f.ranks, f.host_count);  // every host runs a rank
  f.bootstrap_addresses = s.bootstrap_ips.values();
  if (s.nranks > 0) f.nranks = s.nranks;
  if (s.nnodes > 0) f.nnodes = s.nnodes;
  f.bootstrap = s.bootstrap.values();
  f.networks = s.networks.values();
  f.net_plugins = s.plugins.values();
  f.hcas = s.hcas.values();
  f.socket_interfaces = s.socket_ifs.values();
  for (const auto& [name, count] : s.transports) f.transports[name] += count;
  f.nccl_lines = s.nccl_lines;
  f.per_rank = s.ranks.result();

  // Inter-node transport.
  std::string net_channel;  // strongest NET/ name seen on channel lines
  uint64_t best = 0;
  for (const auto& [name, count] : s.transports) {
    if (!startsWith(name, "NET/")) continue;
    std::string n = name.substr(4);
    if (n.size() > 7 && n.compare(n.size() - 7, 7, "/GDRDMA") == 0) n.resize(n.size() - 7);
    bool socket = n == "Socket";
    // Prefer an RDMA network over sockets: one socket channel does not make the job a socket job.
    uint64_t weight = socket ? count : count + (uint64_t{1} << 40);
    if (weight > best) best = weight, net_channel = n;
  }
  bool single_node = s.nnodes == 1;
  LinkEvidence link = linkEvidence(s, f.hcas);
  if (!net_channel.empty()) {
    f.inter_node_transport = fromNetworkName(net_channel, link);
  } else if (single_node) {
    f.inter_node_transport = "none";
  } else if (!f.networks.empty()) {
    f.inter_node_transport = fromNetworkName(f.networks.front(), link);
  } else if (!s.tcp_direct.empty()) {
    f.inter_node_transport = std::string(s.tcp_direct);
  } else if (s.ib_qp_lines > 0 || !f.hcas.empty() || s.ib_mentioned || s.roce_gid_seen) {
    // Queue pairs NCCL's IB net connected, the HCAs it opened, or NET/IB in errors.
    f.inter_node_transport = ibKind(link);
  } else if (s.socket_traced || (!f.socket_interfaces.empty() && f.host_count > 1)) {
    f.inter_node_transport = "Socket";
  } else if (f.host_count == 1 && !f.hosts.empty() && (s.nranks == 0 || s.nranks <= s.rank_devices.size())) {
    // One host, and every rank of the job is on it (or the job size is not shown).
    f.inter_node_transport = "none";
  }
  f.link_layer = linkLayer(f.inter_node_transport, link);

  // GPUDirect RDMA.
  if (s.net_gdr_channels > 0) {
    f.gdr = true;
  } else if (isIbLike(f.inter_node_transport) &&
             (s.net_plain_channels > 0 || s.sig_gdr_disabled.any() || s.sig_gdr0.any())) {
    f.gdr = false;
  }
  return f;
}

Finding makeFinding(const RuleInfo& rule, std::string subject, std::string message, std::string fix,
                    const AnalyzerState& state, std::initializer_list<const Hits*> hits) {
  return makeFinding(rule, rule.severity, std::move(subject), std::move(message), std::move(fix), state,
                     hits);
}

Finding makeFinding(const RuleInfo& rule, Severity lowered, std::string subject, std::string message,
                    std::string fix, const AnalyzerState& state, std::initializer_list<const Hits*> hits) {
  Finding f = findingOf(rule, lowered);
  f.subject = std::move(subject);
  f.message = std::move(message);
  f.fix = std::move(fix);
  f.file = state.file;
  uint64_t total = 0, kept = 0;
  for (const Hits* h : hits) {
    if (!h) continue;
    total += h->count;
    for (const auto& e : h->evidence) {
      if (f.evidence.size() >= kMaxEvidencePerFinding) break;
      f.evidence.push_back(e);
      ++kept;
    }
  }
  if (!f.evidence.empty()) f.line = f.evidence.front().line;
  if (total > kept)
    f.evidence.push_back(
        Evidence{state.file, std::nullopt, std::to_string(total - kept) + " more line(s) like these"});
  return f;
}

}  // namespace railkit::logs::nccl
