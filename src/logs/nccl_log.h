#pragma once
// NCCL debug log analysis (`NCCL_DEBUG=INFO` output). NCCL prints what it
// decided at init (version, bootstrap interface, network module, HCAs, the
// transport of every channel connection) and, when something breaks, WARN
// lines whose wording names the cause. People paste these logs with launcher
// prefixes, timestamps, colour codes and tracebacks around them, from one or
// many ranks, often cut short. The analyzer is fed one input's lines in order
// and keeps only small bounded state (sets of names, counters, the first few
// evidence lines per finding), so a multi-gigabyte log costs memory flat in
// its size. Lines without "NCCL"/"nccl"/"WARN" are rejected after a byte scan;
// NCCL lines are dispatched on the word after `NCCL INFO` / `NCCL WARN`.
//
// facts() and findings() describe one input; combineJob() merges the inputs
// of one invocation (one file per rank or pod is common) into job-wide facts
// and the findings only visible across files (version mismatch, a multi-host
// job that uses sockets).

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "logs/nccl/line.h"
#include "logs/nccl_rank.h"

namespace railkit::logs {

namespace nccl {
class AnalyzerState;  // defined in logs/nccl/state.h
}

// What one input shows. Lists hold distinct values in first-seen order and are
// capped (kMaxListed) so a huge job cannot grow them without bound.
struct NcclLogFacts {
  std::vector<std::string> nccl_versions;  // "2.20.5+cuda12.4"
  std::vector<std::string> cuda_driver;    // "12060" (cudaDriverVersion)
  std::vector<std::string> cuda_runtime;   // "12.4" (from +cudaX.Y)
  std::vector<std::string> hosts;          // host part of `host:pid:tid [dev]`
  // Hosts the job spans as far as the log shows: the most of distinct
  // hostnames, distinct bootstrap addresses (one hostname in several
  // containers), nNodes, and nranks over the ranks one host runs; at least 1
  // when any rank was seen.
  uint64_t host_count = 0;
  std::vector<std::string> bootstrap_addresses;  // first bootstrap address of each process, distinct
  uint64_t processes = 0;                        // distinct host:pid
  uint64_t ranks = 0;                            // distinct ranks seen (comm/channel lines), else processes
  std::optional<uint64_t> nranks;                // largest `nranks N` printed
  std::optional<uint64_t> nnodes;                // largest `nNodes N` printed
  std::vector<std::string> bootstrap;            // "eth0:10.0.0.1"
  std::vector<std::string> networks;             // after `Using network`: "IB", "Socket", "AWS Libfabric"
  std::vector<std::string> net_plugins;          // loaded plugin names ("IBext", "libnccl-net.so", "none")
  std::vector<std::string> hcas;                 // "mlx5_0:1/IB", "mlx5_5:1/RoCE"
  std::vector<std::string> socket_interfaces;    // NET/Socket interfaces "eth0:10.0.0.1"
  std::map<std::string, uint64_t> transports;    // channel transport -> connections, e.g. "NET/IB/GDRDMA"
  std::string inter_node_transport =
      "unknown";            // IB, RoCE, Socket, TCPX, TCPXO, plugin net name, none, unknown
  std::string link_layer;   // under a verbs transport: "InfiniBand", "Ethernet", "" unknown
  std::optional<bool> gdr;  // see the issue: null when no NET/IB(-like) connection shown
  uint64_t nccl_lines = 0;  // lines recognised as NCCL output
  NcclRanks per_rank;       // each rank's host, transport, NICs, GDR, channels
};

inline constexpr size_t kMaxListed = 256;  // per list in NcclLogFacts
inline constexpr size_t kMaxEvidencePerFinding = 5;

class NcclLogAnalyzer {
 public:
  explicit NcclLogAnalyzer(std::string file_label);
  ~NcclLogAnalyzer();
  NcclLogAnalyzer(NcclLogAnalyzer&&) noexcept;
  NcclLogAnalyzer& operator=(NcclLogAnalyzer&&) noexcept;
  NcclLogAnalyzer(const NcclLogAnalyzer&) = delete;
  NcclLogAnalyzer& operator=(const NcclLogAnalyzer&) = delete;

  // One raw line without its '\n' (a trailing '\r', ANSI colour codes and
  // launcher/timestamp prefixes are tolerated). line_number is 1-based.
  // The same as prepareLine() then feedPrepared().
  void feedLine(std::string_view line, uint64_t line_number);

  // feedLine in two steps, so that the part that depends on the line's text
  // alone (classification, locating the header: about half the work) can run
  // on another thread ahead of the stateful part. prepareLine keeps no state
  // and takes a line with no ESC byte (the line reader removes ANSI codes);
  // feedPrepared gets the same text back, the lines in order.
  struct PreparedLine;
  // `memo` (optional, owned by the one thread that prepares an input's
  // lines in order) lets a line that repeats the header of the line before
  // skip the header search.
  static PreparedLine prepareLine(std::string_view line, nccl::HeaderMemo* memo = nullptr);
  void feedPrepared(std::string_view line, const PreparedLine& prepared, uint64_t line_number);

  bool sawNccl() const;  // any NCCL line recognised
  const std::string& file() const;
  NcclLogFacts facts() const;             // per-input facts
  std::vector<Finding> findings() const;  // per-input findings (file set, evidence bounded)
  // The same from facts() already made (the rules read them; making them
  // sorts and copies the per-rank view).
  std::vector<Finding> findings(const NcclLogFacts& facts) const;

  // For combineJob.
  const nccl::AnalyzerState& state() const { return *state_; }

 private:
  // `header_hash` is headerHash(line), computed by the caller: on the reader
  // thread for prepared lines.
  void feedClassified(const nccl::NcclLine& line, uint64_t line_number, uint64_t header_hash);
  static uint64_t headerHash(const nccl::NcclLine& line);
  // headerHash, or the memo's when the line took its header from there.
  static uint64_t memoHeaderHash(const nccl::NcclLine& line, nccl::HeaderMemo& memo);
  void feedUnclassified(std::string_view line, uint64_t line_number);
  std::unique_ptr<nccl::AnalyzerState> state_;
};

// The classified line as offsets into its text: a block's worth of them is
// written on one thread and read on another, so they are kept small (32
// bytes; a line of 64 KiB or more, only possible when the line cap is raised
// past its default, is classified when fed instead).
struct NcclLogAnalyzer::PreparedLine {
  // Classified when fed: a line too long for the offsets, or one the reader
  // thread handed over unclassified (StagedLineSink::defer).
  static constexpr uint8_t kUnprepared = 0xff;
  uint8_t level = 0;  // nccl::LineLevel, or kUnprepared
  uint16_t text_len = 0, body_at = 0, body_len = 0, host_at = 0, host_len = 0, pid_at = 0, pid_len = 0,
           dev_at = 0, dev_len = 0;
  uint64_t header_hash = 0;  // of host:pid and dev (0: no header), hashed on the reader thread too
};

// Job-wide view over every input of one invocation. `facts` holds the same
// keys as factsToJson (merged), plus "files"; `findings` only those that need
// several inputs (nccl-version-mismatch across files, nccl-net-socket when the
// hosts of all files together make the job multi-node). Per-input findings are
// not repeated here.
struct NcclJobResult {
  nlohmann::json facts;
  std::vector<Finding> findings;
};
NcclJobResult combineJob(const std::vector<const NcclLogAnalyzer*>& inputs);
// The same with each input's facts() and findings made already (the input
// reports hold them): one input's ranks are not sorted and copied again.
struct NcclJobInput {
  const NcclLogAnalyzer* analyzer = nullptr;
  const NcclLogFacts* facts = nullptr;  // analyzer->facts()
  const std::vector<Finding>* findings =
      nullptr;  // holding analyzer->findings() (other ids may be there too)
};
NcclJobResult combineAnalyzedJob(const std::vector<NcclJobInput>& inputs);

// Keys: nccl_version (first seen or null), nccl_versions, cuda_driver,
// cuda_runtime, hosts, host_count (NcclLogFacts::host_count), processes, ranks, nranks, nnodes, bootstrap,
// networks, net_plugins, hcas, socket_interfaces, transports {name: count},
// inter_node_transport, gdr (bool or null), per_rank [...], per_rank_not_kept.
nlohmann::json factsToJson(const NcclLogFacts& facts);

}  // namespace railkit::logs
