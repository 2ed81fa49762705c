// Point-to-point bandwidth against message size, in Gb/s as perftest and
// link rates print it: bench p2p runs and the perftest outputs the logs
// reader found (ib_write_bw and friends), overlaid, with the table below.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/chart.h"
#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

struct P2pRun {
  std::string label;
  std::vector<ChartPoint> points;  // bytes, average Gb/s
};

std::vector<ChartPoint> pointsOf(const nlohmann::json& rows) {
  std::vector<ChartPoint> out;
  for (const auto& r : rows) {
    double bytes = numberAt(r, "bytes"), bw = numberAt(r, "bw_avg_gbps", -1);
    if (bytes > 0 && bw >= 0) out.push_back({bytes, bw});
  }
  std::sort(out.begin(), out.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
  return out;
}

}  // namespace

std::string renderP2p(const Documents& docs) {
  std::vector<P2pRun> runs;
  for (const auto& doc : docs) {
    if (doc.kind == "railkit.bench/v1") {
      auto pts = pointsOf(arrayAt(objectAt(doc.json, "p2p"), "bandwidth"));
      if (!pts.empty()) runs.push_back({fmt::format("{} (bench p2p)", doc.source), std::move(pts)});
    }
    if (doc.kind == "railkit.logs/v1")
      for (const auto& in : arrayAt(doc.json, "inputs")) {
        if (textAt(in, "kind") != "perftest") continue;
        auto pts = pointsOf(arrayAt(in, "rows"));
        std::string tool = textAt(in, "tool"), device = textAt(in, "device");
        if (!pts.empty())
          runs.push_back({fmt::format("{} ({}{}{})", textAt(in, "file"), tool.empty() ? "perftest" : tool,
                                      device.empty() ? "" : " on ", device),
                          std::move(pts)});
      }
  }
  if (runs.empty()) return "";
  LineChart chart;
  chart.title = "point-to-point bandwidth against message size";
  chart.x_title = "message size (bytes, log2)";
  chart.y_title = "bandwidth, average (Gb/s)";
  std::string legend = "<ul class=\"legend\">";
  std::set<double> sizes;
  for (size_t i = 0; i < runs.size(); ++i) {
    chart.series.push_back({runs[i].label, static_cast<int>(i), false, runs[i].points});
    double best = 0;
    for (const auto& p : runs[i].points) best = std::max(best, p.y), sizes.insert(p.x);
    legend += fmt::format("<li>{} <b>{}</b>: best average {} Gb/s</li>", legendSwatch(i, false),
                          esc(runs[i].label), label(best));
  }
  legend += "</ul>\n";
  std::string table =
      "<table class=\"numbers\"><caption>average bandwidth (Gb/s)</caption><thead><tr><th>size (bytes)</th>";
  for (const auto& r : runs) table += "<th>" + esc(r.label) + "</th>";
  table += "</tr></thead><tbody>\n";
  for (double size : sizes) {
    table += fmt::format("<tr><td>{}</td>", num(size, 0));
    for (const auto& r : runs) {
      auto it =
          std::find_if(r.points.begin(), r.points.end(), [&](const ChartPoint& p) { return p.x == size; });
      table += it == r.points.end() ? "<td></td>" : "<td>" + label(it->y) + "</td>";
    }
    table += "</tr>\n";
  }
  table += "</tbody></table>\n";
  return section("p2p", "Point-to-point bandwidth vs message size",
                 "<figure>" + renderLineChart(chart) + legend + "</figure>\n" + table);
}

}  // namespace railkit::report
