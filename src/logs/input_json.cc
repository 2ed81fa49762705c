// The JSON of one input (docs/logs.md documents every key). Units are in the
// key names; a value the output did not show is null, never a guess.
#include <nlohmann/json.hpp>

#include "core/bandwidth_row.h"
#include "core/json_util.h"
#include "logs/input.h"

namespace railkit::logs {
namespace {

// nccl-tests prints sizes and counts as integers; the parser keeps doubles.
uint64_t wholeNumber(double value) {
  return value > 0 && value < 1.8e19 ? static_cast<uint64_t>(value + 0.5) : 0;
}

nlohmann::json tableJson(const NcclTestsTable& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : t.rows) {
    // The row as bench writes one (core/bandwidth_row.h), plus its line.
    nlohmann::json row = BandwidthRow{t.op,
                                      wholeNumber(r.size_bytes),
                                      wholeNumber(r.count),
                                      r.type,
                                      r.redop,
                                      r.root,
                                      {r.oop_time_us, r.oop_algbw_gbs, r.oop_busbw_gbs, r.oop_wrong},
                                      {r.ip_time_us, r.ip_algbw_gbs, r.ip_busbw_gbs, r.ip_wrong}};
    row["line"] = r.line;
    rows.push_back(std::move(row));
  }
  nlohmann::json largest_size = nullptr;
  if (!t.rows.empty()) {
    double size = -1;
    for (const auto& r : t.rows) size = std::max(size, r.size_bytes);
    largest_size = size;
  }
  // Built without `rows` and given it by move: an initializer list copies
  // every value, and a big log's table holds up to kMaxTableRows rows.
  nlohmann::json out = {{"peak_busbw_gbs", jsonOpt(t.peak_busbw_gbs)},
                        {"avg_busbw_gbs", jsonOpt(t.avg_busbw_gbs)},
                        {"largest_size_bytes", largest_size},
                        {"largest_busbw_gbs", jsonOpt(t.largest_busbw_gbs)},
                        {"wrong_total", jsonOpt(t.wrong_total)},
                        {"out_of_bounds", jsonOpt(t.out_of_bounds)},
                        {"old_layout", t.old_layout},
                        {"rows_not_kept", t.rows_not_kept},
                        {"test_op", jsonOpt(t.op)},
                        {"test_ranks", t.ranks.size()},
                        {"test_hosts", t.hosts},
                        {"test_header",
                         {{"nthread", jsonOpt(t.nthread)},
                          {"ngpus", jsonOpt(t.ngpus)},
                          {"min_bytes", jsonOpt(t.min_bytes)},
                          {"max_bytes", jsonOpt(t.max_bytes)},
                          {"iters", jsonOpt(t.iters)}}}};
  out["rows"] = std::move(rows);
  return out;
}

nlohmann::json perftestJson(const PerftestResult& p) {
  nlohmann::json rows = nlohmann::json::array();
  std::optional<double> best, largest;
  double largest_bytes = -1;
  for (const auto& r : p.rows) {
    nlohmann::json row{{"bytes", r.bytes}, {"iterations", jsonOpt(r.iterations)}, {"line", r.line}};
    if (p.latency) {
      row["t_min_us"] = jsonOpt(r.t_min_us);
      row["t_max_us"] = jsonOpt(r.t_max_us);
      row["t_typical_us"] = jsonOpt(r.t_typical_us);
      row["t_avg_us"] = jsonOpt(r.t_avg_us);
      row["t_stdev_us"] = jsonOpt(r.t_stdev_us);
      row["p99_us"] = jsonOpt(r.p99_us);
      row["p999_us"] = jsonOpt(r.p999_us);
    } else {
      row["bw_peak_gbps"] = jsonOpt(r.bw_peak_gbps);
      row["bw_avg_gbps"] = jsonOpt(r.bw_avg_gbps);
      row["msg_rate_mpps"] = jsonOpt(r.msg_rate_mpps);
      if (r.bw_avg_gbps && (!best || *r.bw_avg_gbps > *best)) best = r.bw_avg_gbps;
      if (r.bw_avg_gbps && r.bytes >= largest_bytes) {
        largest_bytes = r.bytes;
        largest = r.bw_avg_gbps;
      }
    }
    rows.push_back(std::move(row));
  }
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : p.settings) settings[k] = v;
  nlohmann::json errors = nlohmann::json::array();
  for (const auto& e : p.errors) {
    nlohmann::json item{{"text", e.text}, {"line", e.line}, {"wc_status", jsonOpt(e.wc_status)}};
    if (e.wc_status) item["wc_status_name"] = wcStatusName(*e.wc_status);
    errors.push_back(std::move(item));
  }
  nlohmann::json out = {{"test", jsonOpt(p.test)},
                        {"tool", jsonOpt(p.tool)},
                        {"latency", p.latency},
                        {"device", jsonOpt(p.device)},
                        {"link_type", jsonOpt(p.link_type)},
                        {"transport_type", jsonOpt(p.transport_type)},
                        {"connection_type", jsonOpt(p.connection_type)},
                        {"qps", jsonOpt(p.qps)},
                        {"mtu_bytes", jsonOpt(p.mtu_bytes)},
                        {"gid_index", jsonOpt(p.gid_index)},
                        {"tx_depth", jsonOpt(p.tx_depth)},
                        {"rdma_cm_qps", jsonOpt(p.rdma_cm_qps)},
                        {"data_exchange", jsonOpt(p.data_exchange)},
                        {"settings", settings},
                        {"bw_unit", jsonOpt(p.bw_unit)},
                        {"bw_peak_measured", !p.peak_not_measured},
                        {"rows_not_kept", p.rows_not_kept},
                        {"bw_avg_max_gbps", jsonOpt(best)},
                        {"bw_avg_largest_gbps", jsonOpt(largest)},
                        {"errors", errors},
                        {"error_lines", p.error_lines}};
  out["rows"] = std::move(rows);
  return out;
}

}  // namespace

nlohmann::json inputToJson(const InputReport& input) {
  nlohmann::json out{
      {"file", input.file},           {"kind", inputKindName(input.kind)},
      {"bytes", input.stats.bytes},   {"lines", input.stats.lines},
      {"binary", input.stats.binary}, {"truncated_lines", input.stats.truncated_lines},
      {"notes", input.notes},         {"nccl_lines", 0}};  // the NCCL facts replace it with their count
  if (input.nccl) mergeMoved(out, factsToJson(*input.nccl));
  if (input.table) mergeMoved(out, tableJson(*input.table));
  if (input.perftest) mergeMoved(out, perftestJson(*input.perftest));
  return out;
}

}  // namespace railkit::logs
