#pragma once
// The bounded state one NcclLogAnalyzer keeps while lines stream past: the
// distinct values behind NcclLogFacts, counters, and for every finding rule
// its hits (count, first few evidence lines, details). Nothing here grows with
// the size of the log beyond the caps.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/finding.h"
#include "logs/nccl/crash_line.h"
#include "logs/nccl/hca_list.h"
#include "logs/nccl/key_index.h"
#include "logs/nccl/line.h"
#include "logs/nccl/ranks.h"
#include "logs/nccl_log.h"

namespace railkit::logs::nccl {

// Distinct strings in first-seen order, capped; the last value added is
// compared first because logs repeat the same value line after line.
class DistinctList {
 public:
  explicit DistinctList(size_t cap = kMaxListed) : cap_(cap) {}
  bool add(std::string_view value);  // true when new (and kept)
  const std::vector<std::string>& values() const { return values_; }
  size_t size() const { return values_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static constexpr size_t kLinearScan = 8;
  size_t cap_;
  bool rewritten_ = false;  // a kept value differs from what was added (validUtf8)
  std::vector<std::string> values_;
  std::unordered_set<std::string, Hash, std::equal_to<>> seen_;
  bool overflowed_ = false;
};

// The value (network, net plugin) each process (a key: the hash of
// host:pid) chose last, for the mismatch findings, which need the distinct
// values processes hold. Every rank prints its choice, so this is an open
// addressing table of key -> interned value rather than a node per process:
// a node map cost a cache miss or an allocation per line. At most
// kMaxProcesses processes; later ones are not recorded.
class ProcessValues {
 public:
  static constexpr size_t kMaxProcesses = size_t{1} << 16;
  // Records `value` for `key`; true when the process is new or changed its value.
  bool set(uint64_t key, std::string_view value);
  // The values some process holds now (each once, in no particular order).
  std::vector<std::string> current() const;
  size_t size() const { return slots_.size(); }

 private:
  uint32_t intern(std::string_view value);
  KeyIndex slots_{kMaxProcesses};  // process -> index into values_ plus 1
  std::vector<std::string> values_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
  uint32_t last_ = 0;  // the latest value interned, plus 1: the common repeat
};

// Proof gathered for one rule or one fact-based signal.
struct Hits {
  uint64_t count = 0;
  std::vector<Evidence> evidence;  // first kMaxEvidencePerFinding
  std::string detail;              // from the first hit
  std::string last_detail;         // from the latest hit
  DistinctList subjects{16};       // peers, HCAs, ranks named by the hits

  void add(const std::string& file, uint64_t line_number, std::string_view text);
  bool any() const { return count > 0; }
};

class AnalyzerState {
 public:
  explicit AnalyzerState(std::string file);

  std::string file;
  uint64_t nccl_lines = 0;
  uint64_t nccl_text_lines = 0;   // NCCL's text without its header (tracebacks, watchdogs)
  bool after_last_error = false;  // the previous line ended in `Last error:`

  DistinctList versions, cuda_driver, cuda_runtime, hosts, bootstrap, networks, hcas, socket_ifs;
  DistinctList processes{1u << 16};
  DistinctList rank_devices{1u << 16};  // host:pid:dev, the fallback rank count
  std::vector<bool> ranks_seen;         // rank ids printed by NCCL (capped)
  uint64_t ranks_count = 0;
  uint64_t nranks = 0, nnodes = 0;

  std::vector<std::pair<std::string, uint64_t>> transports;
  size_t last_transport = 0;  // index of the transport counted last
  uint64_t net_gdr_channels = 0, net_plain_channels = 0, net_socket_channels = 0;
  bool gdr_enabled_said = false;
  bool ib_mentioned = false;   // NET/IB or ibv_* named in a WARN or other line
  bool roce_gid_seen = false;  // an IPv4-mapped GID or a GID index: RoCE
  // Queue pairs NCCL's IB net connected (`NET/IB: NCCL Dev 0 IbDev 0 Port 1
  // qpn 576 ...`, 2.16's `NET/IB: Dev 1 Port 1 qpn 3038 ...`, the
  // `query_ece`/`set_ece` lines): the IB net carried traffic. NCCL prints
  // `LID n` on an InfiniBand port and `GID n (prefix/id)` on a RoCE one.
  uint64_t ib_qp_lines = 0;
  bool qp_lid_seen = false, qp_gid_seen = false;
  // "TCPX" or "TCPXO" when Google's GPUDirect plugin spoke (NET/GPUDirectTCPX,
  // NET/FasTrak, its tcpx* functions in a WARN): the transport when nothing
  // stronger (channels, `Using network`) names one.
  std::string_view tcp_direct;
  bool socket_traced = false;  // a failure traced through transport/net_socket
  bool init_failed = false;    // a `-> N` trace reached init/group: a call failed
  Hits sig_error_trace;        // those trace lines
  std::string first_warn;      // text of the first WARN line
  uint64_t first_warn_line = 0;
  DistinctList bootstrap_ips;  // one per host: same hostname, different address = two hosts
  uint64_t local_ranks = 0;    // largest `localRanks N` printed

  // Per process (host:pid): the network and net plugin it chose, for mismatch.
  ProcessValues process_network, process_plugin;  // by hash of host:pid
  DistinctList plugins;

  // Fact-based signals (INFO lines) read by the rules' build step.
  Hits sig_socket_channel, sig_socket_network, sig_socket_cause;
  Hits sig_plain_ib_channel, sig_gdr_disabled, sig_gdr0;
  Hits sig_versions;      // one line per distinct version
  Hits sig_plugins;       // one line per distinct plugin/network choice
  std::string last_warn;  // text of the latest WARN line, for unhandled errors
  uint64_t last_warn_line = 0;
  int last_error_code = 0;  // latest non-zero `-> N` NCCL result traced

  std::vector<Hits> rule_hits;  // parallel to allNcclRules()

  RankCollector ranks;     // the per-rank view (nccl_rank.h)
  CrashCollector crashes;  // processes that died on a signal, from any program's lines

  void addRank(uint64_t rank);
  void countTransport(std::string_view name);

  // The HCA lists (`NET/IB : Using` up to its `;`) parsed last: the same
  // list again adds nothing.
  RecentHcaLists<bool> recent_hca_lists;

  std::string scratch;            // reused buffers: no allocation per line once warm
  uint64_t last_header_hash = 0;  // of the latest line with a header; 0: none yet
  // Whether host:pid + dev (its hash) was recorded already, so the common
  // line (a rank seen before) costs one probe instead of set lookups.
  bool headerSeen(uint64_t hash) { return ranks.headerSeen(hash); }

  // What the finding rules matched on recent lines, by the line's text: the
  // rules are pure functions of the line, identical lines (an error or
  // traceback every rank prints) are common, and running every rule on a
  // line costs as much as a few hundred routine lines.
  struct RuleMatch {
    size_t rule;
    std::string detail, subject;
  };
  struct MatchMemo {
    uint64_t hash = 0;  // 0: empty
    LineLevel level = LineLevel::kNone;
    std::string text;                // the body
    std::vector<RuleMatch> matches;  // of the rules that read only body and level
  };
  std::array<MatchMemo, 16> match_memo;  // by body and level, the body-only rules
  std::array<MatchMemo, 8> text_memo;    // by whole text and level, every rule
  size_t text_memo_next = 0;
  size_t match_memo_next = 0;
  MatchMemo match_scratch;  // lines too long to remember

  struct Scanner {
    std::string ansi_buf, key_buf, detail, subject;
    std::vector<RuleMatch> matches;  // body-rule matches merged with whole-text ones
    NcclLine line{};                 // reused: classifyLine sets every field, so no per-line reset
    HeaderMemo header_memo;          // feedLine's: the lines it classifies itself
  } scan;
};

// INFO line facts, and the per-rank view's (state.ranks) from the same
// dispatch on the body; `header_hash` as RankCollector takes it. Returns
// true when the line was fully consumed (a routine line the finding rules
// need not see).
bool recordInfoFacts(AnalyzerState& state, const NcclLine& line, uint64_t line_number, uint64_t header_hash);
// Facts any line may carry (NCCL version in tracebacks and banners). True
// when the line gave a new fact.
bool recordCommonFacts(AnalyzerState& state, const NcclLine& line, uint64_t line_number);

}  // namespace railkit::logs::nccl
