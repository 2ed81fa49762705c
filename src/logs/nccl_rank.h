#pragma once
// One rank of an NCCL job as its log lines show it. NCCL prints, per rank,
// the communicator it joined (`ncclCommInitRank ... rank R nranks N cudaDev D
// busId B`), the network it chose (`Using network IB`), the NICs its process
// opened (`NET/IB : Using [0]mlx5_0:1/IB ...`), and one line per channel
// connection (`Channel 01/1 : 3[3] -> 4[0] [send] via NET/IB/1/GDRDMA`).
// A job that is slow or falls back to sockets on *some* ranks only shows it
// here: the job-wide facts say what the job used somewhere, this says where.
// Kept apart from NcclLogFacts' lists so the per-rank view can be capped on
// its own (kMaxRanksKept entries per input and per job).

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace railkit::logs {

struct NcclRank {
  std::optional<uint64_t> rank;    // null when no comm or channel line named it
  std::optional<uint64_t> nranks;  // of the communicator the rank comes from
  std::string host;                // host of `host:pid:tid [dev]`
  std::optional<uint64_t> pid;
  std::optional<uint64_t> dev;       // the `[dev]` of the header
  std::optional<uint64_t> cuda_dev;  // cudaDev printed at init
  std::string bus_id;                // busId printed at init (or in old channel lines), "" when not shown
  std::string network;               // `Using network X` of the rank (or its process)
  std::string net_plugin;            // its process' net plugin ("internal", "aws-ofi-nccl", a .so)
  std::string transport;          // NET transport of its channel lines: "NET/IB", "NET/Socket", ...; "" none
  std::vector<std::string> nics;  // HCAs (or socket interfaces) its process opened
  std::vector<uint32_t> net_devices;  // NET device indices in its channel lines (NET/IB/<n>)
  std::optional<bool> gdr;            // GPUDirect RDMA on its NET channels (or as NCCL said for it)
  uint64_t net_channels = 0, p2p_channels = 0, shm_channels = 0, other_channels = 0;
  uint64_t line = 0;  // first line of it
};

// Per input and per job; past it the rest are counted, not kept.
inline constexpr size_t kMaxRanksKept = 4096;

struct NcclRanks {
  std::vector<NcclRank> ranks;  // by rank, those without a rank last (first-seen order)
  uint64_t not_kept = 0;        // distinct rank headers seen past kMaxRanksKept (lower bound)
};

// "per_rank": [...] entries, "per_rank_not_kept": N; docs/logs.md.
nlohmann::json ranksToJson(const NcclRanks& ranks);

// The job's view over several inputs: every input's ranks, by rank, capped.
NcclRanks mergeRanks(const std::vector<const NcclRanks*>& inputs);

}  // namespace railkit::logs
