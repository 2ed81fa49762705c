#pragma once
// One rank's whole bench run: bootstrap, transport, the sweep of one op (or
// every collective for "all"), the text stream on rank 0, and the verdict
// (wrong elements, missed bandwidth expectation). The CLI builds a
// BenchConfig from flags and environment and maps the outcome to an exit
// status; --local forks ranks and calls this in each child.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/harness.h"
#include "bench/transport.h"

namespace railkit::bench {

struct BenchConfig {
  std::string op = "all_reduce";  // a collective name, or "all" for every collective
  std::string backend = "tcp";
  std::string bootstrap = "env";  // env, local, mpi
  BootstrapOptions bootstrap_options;
  TransportOptions transport_options;
  std::string control_interface;  // for messages and JSON
  SweepOptions sweep;
  std::uint64_t min_bytes = 0, max_bytes = 0, factor = 2, step = 0;
  std::optional<double> expect_busbw;      // GB/s
  std::optional<double> expect_line_rate;  // fraction F
  std::optional<double> nic_gbps;          // per-node NIC rate (Gb/s)
  std::string nic_rate_source;             // where nic_gbps came from, or why it is unknown
  int nodes = 0;                           // distinct hosts; 0 = count from the bootstrap
  bool print_text = true;                  // rank 0 streams the nccl-tests text
  bool pairs_one_way = false;              // pairs: a -> b only (default both ways at once)
  std::vector<std::string> environment;    // KEY=VALUE recorded in JSON
};

struct BenchOutcome {
  std::uint64_t wrong = 0;
  std::vector<std::string> failures;  // missed expectations, one line each
  nlohmann::json document;            // filled on rank 0
  bool is_root = false;
};

Result<BenchOutcome> runBench(const BenchConfig& config, std::ostream& text);

// The bootstrap the config names (env/local over TCP, or mpi).
Result<std::unique_ptr<Bootstrap>> makeBootstrap(const BenchConfig& config);

struct CollectivesOutcome {
  std::uint64_t wrong = 0;
  std::vector<std::string> failures;  // missed expectations (meaningful on rank 0)
  int nodes = 0;                      // distinct hosts (config.nodes when set)
  nlohmann::json devices;             // [{rank, pid, host, interface, address}] (pids on rank 0 only)
  nlohmann::json results;             // [{op, rows, wrong, avg_busbw_gbs, expected_busbw_gbs?}]
};

// The sweep of each op in `ops` over a connected transport, graded as
// BenchConfig says (expect_busbw, expect_line_rate with nic_gbps); rank 0
// streams the nccl-tests text to `text` when it is not null. bench runs it
// for one op or "all"; validate for its phase 4.
Result<CollectivesOutcome> runCollectives(const BenchConfig& config, Transport& transport,
                                          Bootstrap& bootstrap, const std::vector<const Collective*>& ops,
                                          std::ostream* text);

}  // namespace railkit::bench
