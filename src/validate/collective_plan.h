#pragma once
// Phase 4's sizes, fitted to a time budget (--collectives-budget) from the
// slowest link phase 3 measured. A collective over n nodes runs no faster
// than its slowest link lets it: each run of size S puts about
// busFactor(op, n) x S bytes through every link, so a node throttled to
// 1/30 of the others makes the default sweep (1M-64M, 2 placements x
// (warm-up + iterations + check) runs) take minutes instead of a second.
// The plan keeps the smallest sizes whose estimated time fits the budget; if
// even the smallest does not, it runs that one alone with fewer iterations.
// The estimate leaves out latency, which a link slow enough to be capped
// dwarfs.

#include <cstdint>
#include <string>
#include <vector>

#include "core/collective_factors.h"

namespace railkit::validate {

// The sweep phase 4 was asked for.
struct SweepRequest {
  std::vector<std::uint64_t> sizes;  // ascending, as bench::sweepSizes makes them
  int iters = 1;
  int warmup = 0;
  bool check = true;  // one more run per placement, checked
  std::vector<CollectiveOp> ops;
  int ranks = 1;
};

struct CollectivePlan {
  std::vector<std::uint64_t> sizes;  // what phase 4 runs
  int iters = 1;
  int warmup = 0;
  double estimated_seconds = 0;  // at the link's rate; 0 when it is unknown
  bool capped = false;           // sizes or iterations were cut to fit
};

// Seconds the runs of one size take with every op of `r`, at `link_gbps`
// (Gb/s per direction) on the slowest link.
double estimateSizeSeconds(const SweepRequest& r, std::uint64_t size, int iters, int warmup,
                           double link_gbps);

// The request as is when the link rate is unknown (no pairs ran, or a
// measurement of 0), otherwise cut to fit `budget_seconds`.
CollectivePlan planCollectives(const SweepRequest& r, double link_gbps, double budget_seconds);

// "4M", "64K" or "1000 bytes", for the line that says what was cut.
std::string sizeText(std::uint64_t bytes);

}  // namespace railkit::validate
