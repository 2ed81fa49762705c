#pragma once
// Grading an nccl-tests table: is the bus bandwidth at the largest size what
// this hardware should give? Either the user says the number
// (`--expect-busbw`), or the bound is derived from the NICs themselves
// (`--expect-line-rate[=F]`): n ranks on N nodes whose per-node RDMA NICs add
// up to R Gb/s should reach F * (R/8) * busFactor(n) / busFactor(N) GB/s,
// because the NICs carry the op's factor for the node count while busbw is
// normalised by the factor for the rank count. One node has no NIC on the
// path, so there is no bound; the grade says so rather than passing.
//
// Every number used travels in the Grade so the report can show its work.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/collective_factors.h"
#include "logs/nccl_tests_table.h"
#include "model/inventory.h"

namespace railkit::logs {

struct GradeRequest {
  std::optional<double> expect_busbw_gbs;  // --expect-busbw
  bool expect_line_rate = false;           // --expect-line-rate[=F]
  double fraction = 0.8;
  std::optional<double> nic_gbps;  // R: --nic-gbps, or summed from --root
  std::string nic_source;          // how R was obtained, for the report
  std::optional<int> nodes;        // --nodes
  std::string op;                  // --op, "" to read it from the output
  bool active() const { return expect_busbw_gbs.has_value() || expect_line_rate; }
};

// What the logs say about the job, used where the table itself is silent.
struct JobHints {
  std::optional<int> ranks;  // NCCL logs: ranks seen
  std::optional<int> nodes;  // NCCL logs: distinct hosts
  std::string ranks_source, nodes_source;
};

enum class GradeStatus { kPass, kFail, kNoBound, kUngradable };
const char* gradeStatusName(GradeStatus status);

struct Grade {
  std::string file;
  std::string method;  // "expect-busbw" or "expect-line-rate"
  GradeStatus status = GradeStatus::kUngradable;
  std::optional<double> measured_busbw_gbs;
  double size_bytes = 0;
  uint64_t line = 0;
  std::optional<double> expected_busbw_gbs;
  std::string op, op_source;
  std::optional<int> ranks, nodes;
  std::string ranks_source, nodes_source;
  std::optional<double> nic_gbps;
  std::string nic_source;
  double fraction = 0;
  std::optional<double> bus_factor_ranks, bus_factor_nodes;
  std::string reason;  // one sentence with the numbers
};

struct OpGuess {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::string source;
};

// The collective a table measured: from a `*_perf` command line in the output,
// else from the table (root column, count against size, busbw/algbw ratio).
std::optional<OpGuess> guessCollective(const NcclTestsTable& table, std::optional<int> ranks);

Grade gradeTable(const NcclTestsTable& table, const std::string& file, const GradeRequest& request,
                 const JobHints& hints);

nlohmann::json gradeToJson(const Grade& grade);

// R for --expect-line-rate from an inventory: the rates of the node's active
// RDMA ports, a VF left out when its PF is listed too (both are one link).
// When `hcas` is not empty only those devices count (what NCCL said it used).
struct NicSum {
  double gbps = 0;
  std::vector<std::string> parts;  // "mlx5_0:1 400"
};
std::optional<NicSum> sumNicRates(const model::Inventory& inventory, const std::vector<std::string>& hcas);

}  // namespace railkit::logs
