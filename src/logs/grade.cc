#include "logs/grade.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_util.h"

namespace railkit::logs {
namespace {

std::optional<double> typeBytes(std::string_view type) {
  if (type == "int8" || type == "uint8" || type == "char" || type == "f8e4m3" || type == "f8e5m2") return 1;
  if (type == "half" || type == "bfloat16" || type == "float16") return 2;
  if (type == "float" || type == "int32" || type == "uint32" || type == "int") return 4;
  if (type == "double" || type == "int64" || type == "uint64") return 8;
  return std::nullopt;
}

bool near(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(b));
}

// The row that grading reads: the largest size (the last of equal sizes).
const NcclTestsRow* largestRow(const NcclTestsTable& table) {
  const NcclTestsRow* best = nullptr;
  for (const auto& r : table.rows)
    if (best == nullptr || r.size_bytes >= best->size_bytes) best = &r;
  return best;
}

std::string number(double v) {
  return fmt::format("{:.6g}", v);
}

}  // namespace

const char* gradeStatusName(GradeStatus status) {
  switch (status) {
    case GradeStatus::kPass: return "pass";
    case GradeStatus::kFail: return "fail";
    case GradeStatus::kNoBound: return "no-bound";
    case GradeStatus::kUngradable: return "ungradable";
  }
  return "ungradable";
}

std::optional<OpGuess> guessCollective(const NcclTestsTable& table, std::optional<int> ranks) {
  if (!table.op.empty()) {
    if (auto op = collectiveFromName(table.op))
      return OpGuess{*op, fmt::format("command line {} names {}_perf", table.op_line, table.op)};
  }
  const NcclTestsRow* row = largestRow(table);
  if (row == nullptr || row->size_bytes <= 0) return std::nullopt;
  if (row->root && *row->root >= 0)
    return OpGuess{row->redop == "none" ? CollectiveOp::kBroadcast : CollectiveOp::kReduce,
                   "table: a root column >= 0"};
  auto bytes = typeBytes(row->type);
  if (!bytes) return std::nullopt;
  double share = row->count * *bytes / row->size_bytes;  // 1: every rank holds the whole buffer
  double algbw = std::max(row->oop_algbw_gbs, row->ip_algbw_gbs);
  double busbw = std::max(row->oop_busbw_gbs, row->ip_busbw_gbs);
  std::optional<double> ratio;
  if (algbw > 0.05) ratio = busbw / algbw;
  if (share < 0.9) {
    return OpGuess{
        row->redop == "none" || row->redop.empty() ? CollectiveOp::kAllGather : CollectiveOp::kReduceScatter,
        "table: count is a per-rank share of size"};
  }
  if (ratio && near(*ratio, 1.0, 0.02) && ranks && *ranks > 2)
    return OpGuess{CollectiveOp::kSendRecv, fmt::format("table: busbw = algbw with {} ranks", *ranks)};
  if (ratio && ranks && near(*ratio, busFactor(CollectiveOp::kAllReduce, *ranks), 0.03))
    return OpGuess{CollectiveOp::kAllReduce,
                   fmt::format("table: busbw/algbw = 2(n-1)/n for {} ranks", *ranks)};
  if (row->redop == "none")
    return OpGuess{CollectiveOp::kSendRecv, "table: whole buffer per rank, no reduction"};
  return OpGuess{CollectiveOp::kAllReduce, "table: whole buffer per rank with a reduction"};
}

namespace {

// The rank count (the table's own Rank lines, else what the NCCL lines
// showed) and the node count, each with where it came from.
void deriveCounts(Grade& g, const NcclTestsTable& table, const GradeRequest& request, const JobHints& hints) {
  std::vector<long> ranks = table.ranks;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (!ranks.empty()) {
    g.ranks = static_cast<int>(ranks.size());
    g.ranks_source = "the table's Rank lines";
  } else if (hints.ranks) {
    g.ranks = hints.ranks;
    g.ranks_source = hints.ranks_source;
  }
  if (request.nodes) {
    g.nodes = request.nodes;
    g.nodes_source = "--nodes";
  } else if (!table.hosts.empty()) {
    g.nodes = static_cast<int>(table.hosts.size());
    g.nodes_source = "hosts of the table's Rank lines";
  } else if (hints.nodes) {
    g.nodes = hints.nodes;
    g.nodes_source = hints.nodes_source;
  }
}

// --collective, else the table's guess.
std::optional<OpGuess> chosenCollective(const NcclTestsTable& table, const GradeRequest& request,
                                        std::optional<int> ranks) {
  if (request.op.empty()) return guessCollective(table, ranks);
  if (auto named = collectiveFromName(request.op)) return OpGuess{*named, "--collective"};
  return std::nullopt;
}

// busbw = algbw * factor(n) solves for n unless the factor is constant.
void ranksFromBusbw(Grade& g, const NcclTestsRow& row, CollectiveOp op) {
  double algbw = std::max(row.oop_algbw_gbs, row.ip_algbw_gbs);
  double per_rank = op == CollectiveOp::kAllReduce ? 2.0 : 1.0;
  bool solvable = busFactor(op, 2) != busFactor(op, 3);
  double share = algbw > 0.05 ? *g.measured_busbw_gbs / algbw / per_rank : 0.0;  // (n-1)/n
  if (solvable && share > 0.0 && share < 0.999) {
    g.ranks = static_cast<int>(std::lround(1.0 / (1.0 - share)));
    g.ranks_source = "busbw/algbw at the largest size";
  }
}

// True, with the reason said, when an input of the line-rate bound is unknown.
bool saidWhatIsMissing(Grade& g, bool have_op) {
  std::vector<std::string> missing;
  if (!have_op) missing.push_back("the collective (--collective)");
  if (!g.ranks) missing.push_back("the rank count");
  if (!g.nodes) missing.push_back("the node count (--nodes)");
  if (!g.nic_gbps) missing.push_back("the NIC rate (--root or --nic-gbps)");
  if (missing.empty()) return false;
  std::string list;
  for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
  g.reason = "cannot derive the bound: unknown " + list;
  return true;
}

}  // namespace

Grade gradeTable(const NcclTestsTable& table, const std::string& file, const GradeRequest& request,
                 const JobHints& hints) {
  Grade g;
  g.file = file;
  g.method = request.expect_busbw_gbs ? "expect-busbw" : "expect-line-rate";
  g.fraction = request.fraction;
  const NcclTestsRow* row = largestRow(table);
  if (row == nullptr) {
    g.reason = "no nccl-tests results table to grade";
    return g;
  }
  g.size_bytes = row->size_bytes;
  g.line = row->line;
  g.measured_busbw_gbs = std::max(row->oop_busbw_gbs, row->ip_busbw_gbs);
  if (request.expect_busbw_gbs) {
    g.expected_busbw_gbs = *request.expect_busbw_gbs;
    bool pass = *g.measured_busbw_gbs >= *g.expected_busbw_gbs;
    g.status = pass ? GradeStatus::kPass : GradeStatus::kFail;
    g.reason = fmt::format("busbw {} GB/s at {} bytes (line {}) {} the expected {} GB/s",
                           number(*g.measured_busbw_gbs), fmt::format("{:.0f}", g.size_bytes), g.line,
                           pass ? "reaches" : "is below", number(*g.expected_busbw_gbs));
    return g;
  }
  deriveCounts(g, table, request, hints);
  std::optional<OpGuess> op = chosenCollective(table, request, g.ranks);
  if (op) {
    g.op = collectiveName(op->op);
    g.op_source = op->source;
  }
  if (!g.ranks && op) ranksFromBusbw(g, *row, op->op);
  g.nic_gbps = request.nic_gbps;
  g.nic_source = request.nic_source;
  if (g.nodes && *g.nodes == 1) {
    g.status = GradeStatus::kNoBound;
    g.reason = "one node: the traffic never crosses a NIC, so the line rate gives no bound";
    return g;
  }
  if (saidWhatIsMissing(g, op.has_value())) return g;
  g.bus_factor_ranks = busFactor(op->op, *g.ranks);
  g.bus_factor_nodes = busFactor(op->op, *g.nodes);
  g.expected_busbw_gbs = expectedBusbwFromLineRate(op->op, *g.ranks, *g.nodes, *g.nic_gbps, g.fraction);
  if (!g.expected_busbw_gbs) {
    g.reason = "no NIC bound for this rank/node count";
    g.status = GradeStatus::kNoBound;
    return g;
  }
  bool pass = *g.measured_busbw_gbs >= *g.expected_busbw_gbs;
  g.status = pass ? GradeStatus::kPass : GradeStatus::kFail;
  g.reason = fmt::format(
      "{}: busbw {} GB/s at {} bytes (line {}) {} {} x ({} Gb/s / 8) x busfactor({}) {} / busfactor({}) {} = "
      "{} GB/s",
      g.op, number(*g.measured_busbw_gbs), fmt::format("{:.0f}", g.size_bytes), g.line,
      pass ? "reaches" : "is below", number(g.fraction), number(*g.nic_gbps), *g.ranks,
      number(*g.bus_factor_ranks), *g.nodes, number(*g.bus_factor_nodes), number(*g.expected_busbw_gbs));
  return g;
}

nlohmann::json gradeToJson(const Grade& g) {
  nlohmann::json out{{"file", g.file},
                     {"method", g.method},
                     {"status", gradeStatusName(g.status)},
                     {"pass", g.status == GradeStatus::kPass   ? nlohmann::json(true)
                              : g.status == GradeStatus::kFail ? nlohmann::json(false)
                                                               : nlohmann::json(nullptr)},
                     {"measured_busbw_gbs", jsonOpt(g.measured_busbw_gbs)},
                     {"size_bytes", g.size_bytes},
                     {"line", g.line},
                     {"expected_busbw_gbs", jsonOpt(g.expected_busbw_gbs)},
                     {"reason", g.reason}};
  if (g.method == "expect-line-rate") {
    out["fraction"] = g.fraction;
    out["op"] = jsonOpt(g.op);
    out["op_source"] = jsonOpt(g.op_source);
    out["ranks"] = jsonOpt(g.ranks);
    out["ranks_source"] = jsonOpt(g.ranks_source);
    out["nodes"] = jsonOpt(g.nodes);
    out["nodes_source"] = jsonOpt(g.nodes_source);
    out["nic_gbps"] = jsonOpt(g.nic_gbps);
    out["nic_source"] = jsonOpt(g.nic_source);
    out["bus_factor_ranks"] = jsonOpt(g.bus_factor_ranks);
    out["bus_factor_nodes"] = jsonOpt(g.bus_factor_nodes);
  }
  return out;
}

std::optional<NicSum> sumNicRates(const model::Inventory& inventory, const std::vector<std::string>& hcas) {
  std::vector<std::string> pf_addresses;
  for (const auto& d : inventory.rdma_devices)
    if (d.pci && d.sriov.physfn.empty()) pf_addresses.push_back(d.pci->address);
  NicSum sum;
  bool any = false;
  for (const auto& d : inventory.rdma_devices) {
    if (!hcas.empty() && std::find(hcas.begin(), hcas.end(), d.name) == hcas.end()) continue;
    if (!d.sriov.physfn.empty() &&
        std::find(pf_addresses.begin(), pf_addresses.end(), d.sriov.physfn) != pf_addresses.end())
      continue;
    for (const auto& p : d.ports) {
      if (!p.rate_gbps || (p.state != "ACTIVE" && !p.state.empty())) continue;
      sum.gbps += *p.rate_gbps;
      sum.parts.push_back(fmt::format("{}:{} {}", d.name, p.port, number(*p.rate_gbps)));
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace railkit::logs
