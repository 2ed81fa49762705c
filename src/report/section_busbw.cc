// Bus bandwidth against message size, one chart per collective, every run
// that measured it overlaid: validate's collectives, bench's results and the
// nccl-tests tables the logs reader found. Out-of-place solid, in-place
// dashed; the NIC bound and the graded fraction as horizontal lines.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "report/chart.h"
#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

struct Row {
  double size = 0, oop = 0, ip = 0;
  bool has_ip = false;
};

struct Run {
  std::string label;
  std::string op;
  std::vector<Row> rows;
  std::optional<double> avg, expected, bound, fraction;
};

std::optional<double> optNumber(const nlohmann::json& o, const char* key) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_number()) return std::nullopt;
  return o[key].get<double>();
}

std::vector<Row> rowsOf(const nlohmann::json& rows) {
  std::vector<Row> out;
  if (!rows.is_array()) return out;
  for (const auto& r : rows) {
    Row row;
    row.size = numberAt(r, "size_bytes");
    if (!(row.size > 0)) continue;
    row.oop = numberAt(objectAt(r, "out_of_place"), "busbw_gbs");
    if (r.contains("in_place") && r["in_place"].is_object()) {
      row.ip = numberAt(r["in_place"], "busbw_gbs");
      row.has_ip = true;
    }
    out.push_back(row);
  }
  std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) { return a.size < b.size; });
  return out;
}

// validate's collectives[] and bench's results[] share a shape.
void addResults(const Document& doc, const nlohmann::json& results, std::vector<Run>& runs) {
  if (!results.is_array()) return;
  auto fraction = optNumber(objectAt(doc.json, "line_rate"), "fraction");
  for (const auto& r : results) {
    Run run;
    run.label = fmt::format("{} ({})", doc.source, shortKind(doc.kind));
    run.op = textAt(r, "op");
    run.rows = rowsOf(arrayAt(r, "rows"));
    run.avg = optNumber(r, "avg_busbw_gbs");
    run.expected = optNumber(r, "expected_busbw_gbs");
    run.fraction = fraction;
    run.bound = optNumber(r, "nic_bound_busbw_gbs");
    if (!run.bound && run.expected && fraction && *fraction > 0) run.bound = *run.expected / *fraction;
    if (!run.rows.empty()) runs.push_back(std::move(run));
  }
}

void addLogTables(const Document& doc, std::vector<Run>& runs) {
  const auto& inputs = arrayAt(doc.json, "inputs");
  const auto& grades = arrayAt(objectAt(doc.json, "job"), "grades");
  for (const auto& in : inputs) {
    if (textAt(in, "kind") != "nccl-tests") continue;
    Run run;
    run.label = textAt(in, "file");
    run.rows = rowsOf(arrayAt(in, "rows"));
    if (run.rows.empty()) continue;
    run.op = textAt(in, "test_op");
    if (run.op.empty()) run.op = textAt(in["rows"][0], "op");
    if (run.op.empty()) run.op = "unnamed collective";
    run.avg = optNumber(in, "avg_busbw_gbs");
    for (const auto& g : grades) {
      if (textAt(g, "file") != run.label) continue;
      run.expected = optNumber(g, "expected_busbw_gbs");
      run.fraction = optNumber(g, "fraction");
      if (run.expected && run.fraction && *run.fraction > 0) run.bound = *run.expected / *run.fraction;
    }
    runs.push_back(std::move(run));
  }
}

std::string opSection(const std::string& op, const std::vector<const Run*>& runs) {
  LineChart chart;
  chart.title = "bus bandwidth of " + op + " against message size";
  chart.x_title = "message size (bytes, log2)";
  chart.y_title = "bus bandwidth (GB/s)";
  const Run* peak_run = nullptr;
  Row peak;
  std::string legend = "<ul class=\"legend\">";
  std::set<std::string> lines_seen;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = *runs[i];
    ChartSeries oop{run.label + " out-of-place", static_cast<int>(i), false, {}};
    ChartSeries ip{run.label + " in-place", static_cast<int>(i), true, {}};
    for (const auto& r : run.rows) {
      oop.points.push_back({r.size, r.oop});
      if (r.has_ip) ip.points.push_back({r.size, r.ip});
      double best = std::max(r.oop, r.has_ip ? r.ip : 0.0);
      if (peak_run == nullptr || best > std::max(peak.oop, peak.ip)) peak_run = &run, peak = r;
    }
    chart.series.push_back(oop);
    if (!ip.points.empty()) chart.series.push_back(ip);
    legend += fmt::format("<li>{} out-of-place {} in-place <b>{}</b>{}</li>", legendSwatch(i, false),
                          legendSwatch(i, true), esc(run.label),
                          run.avg ? fmt::format(": avg bus bandwidth {} GB/s", label(*run.avg)) : "");
    auto addLine = [&](const std::string& name, double y, const char* css) {
      if (lines_seen.insert(fmt::format("{}{}", css, num(y, 6))).second)
        chart.lines.push_back({name, y, css});
    };
    if (run.bound) addLine(fmt::format("NIC bound {} GB/s", num(*run.bound)), *run.bound, "bound");
    // The graded line is the fraction of the bound unless --expect-busbw
    // asked for more; then it is that expectation, named as such.
    bool of_bound =
        run.fraction && run.bound &&
        std::abs(*run.fraction * *run.bound - run.expected.value_or(0)) < 1e-9 * std::max(1.0, *run.bound);
    if (run.expected)
      addLine(of_bound ? fmt::format("{}x bound {} GB/s", num(*run.fraction), num(*run.expected))
                       : fmt::format("expected {} GB/s", num(*run.expected)),
              *run.expected, "graded");
  }
  legend += "</ul>\n";
  if (peak_run != nullptr) {
    double best = std::max(peak.oop, peak.ip);
    chart.labels.push_back(
        {{peak.size, best}, fmt::format("peak {} GB/s at {}", label(best), sizeLabel(peak.size))});
  }
  // The numbers: one row per size, two columns per run.
  std::set<double> sizes;
  for (const Run* run : runs)
    for (const auto& r : run->rows) sizes.insert(r.size);
  std::string table = "<table class=\"numbers\"><caption>bus bandwidth (GB/s) of " + esc(op) +
                      "</caption>\n<thead><tr><th rowspan=\"2\">size (bytes)</th>";
  std::string second;
  for (const Run* run : runs) {
    table += fmt::format("<th colspan=\"2\">{}</th>", esc(run->label));
    second += "<th>out-of-place</th><th>in-place</th>";
  }
  table += "</tr><tr>" + second + "</tr></thead><tbody>\n";
  for (double size : sizes) {
    table += fmt::format("<tr><td>{}</td>", num(size, 0));
    for (const Run* run : runs) {
      auto it =
          std::find_if(run->rows.begin(), run->rows.end(), [&](const Row& r) { return r.size == size; });
      if (it == run->rows.end())
        table += "<td></td><td></td>";
      else
        table += fmt::format("<td>{}</td><td>{}</td>", label(it->oop), it->has_ip ? label(it->ip) : "");
    }
    table += "</tr>\n";
  }
  table += "</tbody></table>\n";
  return fmt::format("<h3>{}</h3>\n<figure>{}{}</figure>\n{}", esc(op), renderLineChart(chart), legend,
                     table);
}

}  // namespace

std::string renderBusbw(const Documents& docs) {
  std::vector<Run> runs;
  for (const auto& doc : docs) {
    if (doc.kind == "railkit.validate/v1") addResults(doc, arrayAt(doc.json, "collectives"), runs);
    if (doc.kind == "railkit.bench/v1") addResults(doc, arrayAt(doc.json, "results"), runs);
    if (doc.kind == "railkit.logs/v1") addLogTables(doc, runs);
  }
  if (runs.empty()) return "";
  std::map<std::string, std::vector<const Run*>> by_op;
  for (const auto& run : runs) by_op[run.op].push_back(&run);
  std::string body;
  for (const auto& [op, list] : by_op) body += opSection(op, list);
  return section("busbw", "Bus bandwidth vs message size", body);
}

}  // namespace railkit::report
