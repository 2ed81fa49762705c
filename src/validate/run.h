#pragma once
// One rank of `railkit validate`: the whole cluster's RDMA fabric in one
// launch, one rank per node, over bench's bootstrap and transports.
//   1. node         each rank checks its own node (doctor rules, expected
//                   NIC and GPU counts) and sends rank 0 a report: findings,
//                   counts, its attributes, its inventory and its LLDP
//                   neighbours (a gather, so rank 0 alone receives n
//                   reports); rank 0 checks the Ethernet fabric the
//                   neighbours show (fabric_lldp.h).
//   2. consistency  rank 0 names the outliers, attribute by attribute.
//   3. links        bench's pairs matrix (n-1 rounds of disjoint pairs).
//   4. collectives  each op swept and graded against the NIC bound, the
//                   slowest node's data NIC rate read in phase 1 unless
//                   --nic-gbps says otherwise. It starts once every rank
//                   has left phase 3, with the sweep cut to fit
//                   --collectives-budget at the slowest link phase 3
//                   measured (collective_plan.h).
// A node that fails phase 1 still takes part in 3 and 4, so one run shows
// everything (--fail-fast stops after phase 2). A peer lost in phase 3 or 4
// leaves rank 0 with what it has: the verdict is "incomplete" and the
// document says which phase and rank.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/pairs.h"
#include "bench/run.h"
#include "model/inventory.h"
#include "validate/node_check.h"
#include "validate/node_lldp.h"

namespace railkit::validate {

struct ValidateConfig {
  bench::BenchConfig bench;  // launcher, transport, sweep sizes and grading (bench.op is unused)
  std::vector<std::string> ops{"all_reduce"};
  bench::PairsOptions pairs;
  bool fail_fast = false;
  // Phase 4 keeps the sizes whose runs fit this many seconds at the slowest
  // link's measured rate (collective_plan.h).
  double collectives_budget_seconds = 60;
  bool print_text = true;  // rank 0 streams progress and the verdict
};

// What this rank checks in phase 1.
struct NodeInput {
  model::Inventory inventory;
  NodeExpectations expect;
  std::string host;                // this node's host name
  std::optional<double> nic_gbps;  // its data NICs' rate, when readable
  std::string nic_rate_source;     // where nic_gbps came from, or why it is unknown
  NodeLldp lldp;                   // its switch ports as lldpd heard them (--lldpctl)
};

struct ValidateOutcome {
  bool is_root = false;
  std::string verdict;                // "pass", "fail" or "incomplete" (rank 0)
  std::vector<std::string> failures;  // one line each (rank 0)
  nlohmann::json document;            // rank 0
};

// Errors: the rendezvous could not complete (every rank), or, on ranks
// other than 0, a lost peer. Rank 0 turns a lost peer after phase 2 into an
// "incomplete" outcome instead, so its report is never lost.
Result<ValidateOutcome> runValidate(const ValidateConfig& config, const NodeInput& node, std::ostream& text);

}  // namespace railkit::validate
