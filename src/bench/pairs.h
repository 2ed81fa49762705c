#pragma once
// `bench pairs`: the bandwidth of every pair of nodes, to find a bad node or
// cable. Pairs are measured in n-1 rounds (n rounded up to even; with an odd
// n one rank sits out each round) of disjoint pairs that run at the same
// time, as a round-robin tournament schedules them, so the whole matrix costs
// n-1 measurements instead of n(n-1)/2 and every link is loaded while its
// neighbours are. Each pair moves `bytes` x `iters` in both directions at
// once (the load a ring puts on a link) or one way, and the slower of the two
// ranks' clocks counts. Links below `fraction` x the median are named; a rank
// with more than half of its links slow (n >= 3) is named as the suspect
// node, otherwise each slow link is a suspect cable. One rank per node.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/transport.h"

namespace railkit::bench {

struct PairsOptions {
  std::uint64_t bytes = 32 << 20;
  int iters = 20;
  int warmup = 2;
  bool bidirectional = true;
  double fraction = 0.8;  // slow = below fraction x median
};

using PairsRound = std::vector<std::pair<int, int>>;  // (a, b) with a < b

// Round-robin ("circle method") schedule: every pair exactly once, pairs of a
// round disjoint; n-1 rounds for even n, n rounds for odd n (one bye each).
std::vector<PairsRound> roundRobinSchedule(int n);

struct PairLink {
  int a = 0, b = 0;
  double gbps = 0;  // per direction, Gb/s
  double time_us = 0;
};

struct SuspectNode {
  int rank = 0;
  int slow_links = 0;
  int links = 0;
};

struct PairsAnalysis {
  double median_gbps = 0;
  double threshold_gbps = 0;
  std::vector<PairLink> slow;         // ascending bandwidth
  std::vector<SuspectNode> suspects;  // nodes with more than half their links slow
};

PairsAnalysis analysePairs(int n, const std::vector<PairLink>& links, double fraction);

// The human matrix: row and column labels are "r<rank>"; `labels` describe
// each rank (host and data address) in a legend.
std::string formatPairsMatrix(int n, const std::vector<std::string>& labels,
                              const std::vector<PairLink>& links);

// Runs the schedule on every rank; rank 0 prints (when `text`) and returns
// the document; `failures` receives one line per slow link or suspect node.
Result<nlohmann::json> runPairs(Transport& t, Bootstrap& boot, const PairsOptions& options,
                                std::ostream* text, std::vector<std::string>* failures);

}  // namespace railkit::bench
