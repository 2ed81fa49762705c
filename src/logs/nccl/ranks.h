#pragma once
// The per-rank view (logs/nccl_rank.h) gathered while lines stream past. A
// rank is known by the header NCCL puts on its lines (`host:pid:tid [dev]`:
// one process may drive several GPUs, one per `[dev]`); what its process
// prints once (the NICs it opened, its net plugin) is kept per process and
// given to each of its ranks at the end. The common line (a rank seen the
// line before) costs one compare to find its entry; memory is bounded by
// kMaxRanksKept entries of small, capped fields.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "logs/nccl/hca_list.h"
#include "logs/nccl/key_index.h"
#include "logs/nccl/line.h"
#include "logs/nccl_rank.h"

namespace railkit::logs::nccl {

inline constexpr size_t kMaxNotKeptTracked = size_t{1} << 16;  // distinct headers counted past the cap

class RankCollector {
 public:
  // The INFO lines it reads, each found by the analyser's one dispatch on
  // the body (facts.cc), which reads them too. `header_hash` identifies
  // host:pid + dev (the analyser's own hash of it, never 0 for a line with
  // a header); lines without a header are ignored.
  // `Channel ...` / `Ring ...` with ` via ` at `via_at` in the body.
  void channelLine(const NcclLine& line, uint64_t header_hash, uint64_t line_number, size_t via_at);
  void connectedLine(const NcclLine& line, uint64_t header_hash,
                     uint64_t line_number);  // `Connected all ...`
  // `comm ...`, `ncclCommInitRank ...`, `ncclCommSplit ...`, 2.3's `rank N nranks M`.
  void commLine(const NcclLine& line, uint64_t header_hash, uint64_t line_number);
  void netLine(const NcclLine& line, uint64_t header_hash, uint64_t line_number);  // `NET/...`
  // `Using network NAME` (`name`, trimmed).
  void networkLine(const NcclLine& line, uint64_t header_hash, uint64_t line_number, std::string_view name);
  NcclRanks result() const;

  // Whether `header_hash` was asked about before (every header is; the
  // analyser records a header's host and process once). It shares the
  // table of the per-rank entries: a change of rank probes one slot, which
  // feed() then finds in the cache. False once the table is full.
  bool headerSeen(uint64_t header_hash);

 private:
  struct Process {
    uint32_t nics = 0;  // index into nic_lists_ (0: none yet)
    std::vector<std::string> socket_ifs;
    std::string plugin, network;
  };
  struct Entry {
    NcclRank rank;
    size_t process = 0;
    uint64_t comm_size = 0;  // nranks of the communicator `rank` came from; 0: from a channel line
    uint64_t gdr_channels = 0, plain_channels = 0, socket_channels = 0;
    uint64_t net_devices = 0;  // bit per NET device index < 64
    bool gdr_said = false, no_gdr_said = false;
  };

  Entry* entry(const NcclLine& line, uint64_t header_hash, uint64_t line_number);
  uint32_t newEntry(const NcclLine& line, uint64_t line_number);  // an index value for by_header_
  void channel(Entry& e, std::string_view body, size_t via_at);
  void comm(Entry& e, std::string_view body);
  void net(Entry& e, Process& p, std::string_view body);
  uint32_t nicList(std::string_view list);  // the index in nic_lists_ of `[0]mlx5_0:1/IB ...; OOB ...`

  static constexpr uint32_t kSeen = uint32_t{1} << 31;  // by_header_: headerSeen() asked
  static constexpr uint32_t kNotKept = kSeen - 1;       // by_header_: past the cap of kept entries

  std::vector<Entry> entries_;
  // Header hash -> entry index + 1, kNotKept for a header past the cap, or
  // 0 for none yet; kSeen or'ed in by headerSeen(). Room for every header
  // the analyser's lists can hold (its process list's cap): a job of more
  // headers than the table holds sends each one past it through the
  // analyser's set lookups again.
  KeyIndex by_header_{size_t{3} << 15};
  std::vector<Process> processes_;
  // The HCA lists processes opened, [0] empty: a job's processes mostly
  // print one list, and the text of the lists parsed last (up to the `;`)
  // finds its index without parsing it again.
  std::vector<std::vector<std::string>> nic_lists_{1};
  RecentHcaLists<uint32_t> recent_nic_lists_;
  std::unordered_map<uint64_t, size_t> by_process_;
  size_t not_kept_ = 0;  // distinct headers past the cap, themselves capped
  uint64_t last_hash_ = 0;
  uint32_t last_value_ = 0;  // by_header_'s value for last_hash_
};

}  // namespace railkit::logs::nccl
