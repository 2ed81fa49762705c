#pragma once
// Runs one collective over a size sweep: for each size it allocates and seeds
// buffers, warms up (-w), times -n iterations out of place and in place,
// aggregates times across ranks (-a), checks every element (-c) and hands
// the finished row to `on_row` at once so output streams.

#include <cstdint>
#include <functional>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/collective_engine.h"
#include "bench/collectives/collective.h"
#include "bench/report.h"
#include "bench/transport.h"

namespace railkit::bench {

struct SweepOptions {
  std::vector<std::uint64_t> sizes;
  int iters = 20;
  int warmup = 5;
  bool check = true;
  int average = 1;  // 0 rank 0, 1 mean, 2 min, 3 max (nccl-tests -a)
  DataType type = DataType::kFloat;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  std::size_t chunk_bytes = 1 << 20;
  std::uint32_t seed = 1;
  // A backend that runs whole collectives (nccl); null runs railkit's own
  // algorithms over the transport.
  CollectiveEngine* engine = nullptr;
};

struct SweepResult {
  std::vector<Row> rows;
  std::uint64_t wrong = 0;  // summed over rows, both placements, all ranks
  double avg_busbw = 0;
};

Result<SweepResult> runSweep(const Collective& coll, Transport& transport, Bootstrap& bootstrap,
                             const SweepOptions& options, const std::function<void(const Row&)>& on_row);

}  // namespace railkit::bench
