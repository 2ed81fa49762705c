// The JSON of one input (docs/logs.md documents every key). Units are in the
// key names; a value the output did not show is null, never a guess.
#include <nlohmann/json.hpp>

#include "core/bandwidth_row.h"
#include "logs/input.h"

namespace railkit::logs {
namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

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
  return {{"rows", rows},
          {"peak_busbw_gbs", opt(t.peak_busbw_gbs)},
          {"avg_busbw_gbs", opt(t.avg_busbw_gbs)},
          {"largest_size_bytes", largest_size},
          {"largest_busbw_gbs", opt(t.largest_busbw_gbs)},
          {"wrong_total", opt(t.wrong_total)},
          {"out_of_bounds", opt(t.out_of_bounds)},
          {"old_layout", t.old_layout},
          {"rows_not_kept", t.rows_not_kept},
          {"test_op", t.op.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.op)},
          {"test_ranks", t.ranks.size()},
          {"test_hosts", t.hosts},
          {"test_header",
           {{"nthread", opt(t.nthread)},
            {"ngpus", opt(t.ngpus)},
            {"min_bytes", opt(t.min_bytes)},
            {"max_bytes", opt(t.max_bytes)},
            {"iters", opt(t.iters)}}}};
}

nlohmann::json perftestJson(const PerftestResult& p) {
  nlohmann::json rows = nlohmann::json::array();
  std::optional<double> best, largest;
  double largest_bytes = -1;
  for (const auto& r : p.rows) {
    nlohmann::json row{{"bytes", r.bytes}, {"iterations", opt(r.iterations)}, {"line", r.line}};
    if (p.latency) {
      row["t_min_us"] = opt(r.t_min_us);
      row["t_max_us"] = opt(r.t_max_us);
      row["t_typical_us"] = opt(r.t_typical_us);
      row["t_avg_us"] = opt(r.t_avg_us);
      row["t_stdev_us"] = opt(r.t_stdev_us);
      row["p99_us"] = opt(r.p99_us);
      row["p999_us"] = opt(r.p999_us);
    } else {
      row["bw_peak_gbps"] = opt(r.bw_peak_gbps);
      row["bw_avg_gbps"] = opt(r.bw_avg_gbps);
      row["msg_rate_mpps"] = opt(r.msg_rate_mpps);
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
    nlohmann::json item{{"text", e.text}, {"line", e.line}, {"wc_status", opt(e.wc_status)}};
    if (e.wc_status) item["wc_status_name"] = wcStatusName(*e.wc_status);
    errors.push_back(std::move(item));
  }
  auto text = [](const std::string& s) -> nlohmann::json {
    if (s.empty()) return nullptr;
    return s;
  };
  return {{"test", text(p.test)},
          {"tool", text(p.tool)},
          {"latency", p.latency},
          {"device", text(p.device)},
          {"link_type", text(p.link_type)},
          {"transport_type", text(p.transport_type)},
          {"connection_type", text(p.connection_type)},
          {"qps", opt(p.qps)},
          {"mtu_bytes", opt(p.mtu_bytes)},
          {"gid_index", opt(p.gid_index)},
          {"tx_depth", opt(p.tx_depth)},
          {"rdma_cm_qps", text(p.rdma_cm_qps)},
          {"data_exchange", text(p.data_exchange)},
          {"settings", settings},
          {"bw_unit", text(p.bw_unit)},
          {"bw_peak_measured", !p.peak_not_measured},
          {"rows", rows},
          {"rows_not_kept", p.rows_not_kept},
          {"bw_avg_max_gbps", opt(best)},
          {"bw_avg_largest_gbps", opt(largest)},
          {"errors", errors},
          {"error_lines", p.error_lines}};
}

}  // namespace

nlohmann::json inputToJson(const InputReport& input) {
  nlohmann::json out{
      {"file", input.file},           {"kind", inputKindName(input.kind)},
      {"bytes", input.stats.bytes},   {"lines", input.stats.lines},
      {"binary", input.stats.binary}, {"truncated_lines", input.stats.truncated_lines},
      {"notes", input.notes},         {"nccl_lines", 0}};  // the NCCL facts replace it with their count
  if (input.nccl) out.update(factsToJson(*input.nccl));
  if (input.table) out.update(tableJson(*input.table));
  if (input.perftest) out.update(perftestJson(*input.perftest));
  return out;
}

}  // namespace railkit::logs
