// The all-pairs matrix (validate's links phase, bench pairs): each cell is
// one link's bandwidth as a fraction of the median, slow links outlined,
// suspect nodes marked. Past kHeatmapMaxNodes a matrix stops being readable
// (and a 1024-node one is 10^6 cells), so each node gets one bar, the median
// of its links, and the slowest links are listed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/pair_links.h"
#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

// Ranks past this are not believed (a hand-edited document): 65536 bars is
// the most a page draws.
constexpr int kMaxRanks = 1 << 16;

struct Link {
  int a = 0, b = 0;
  double gbps = 0;
  bool slow = false;
};

struct Pairs {
  std::string label;
  std::vector<std::string> names;  // by rank
  std::vector<Link> links;
  std::set<int> suspects;
  double median = 0, threshold = 0;
  std::string error;  // the links could not be read
};

// Viridis in six steps of the fraction of the median: dark is slow.
int step(double fraction) {
  constexpr double kEdges[] = {0.5, 0.8, 0.9, 1.0, 1.1};
  int s = 0;
  while (s < 5 && fraction >= kEdges[s]) ++s;
  return s;
}

// The steps are fixed; what counts as slow is the run's own threshold
// (--slow-fraction), so the outline, not a colour, marks a slow link.
std::string stepLegend(double threshold) {
  static const char* kNames[] = {"&lt; 50%", "50-80%", "80-90%", "90-100%", "100-110%", "&ge; 110%"};
  std::string out = "<ul class=\"legend\">";
  for (int i = 0; i < 6; ++i)
    out += fmt::format("<li><span class=\"chip h{}\"></span>{} of the median</li>", i, kNames[i]);
  return out + fmt::format(
                   "<li><span class=\"chip slow-chip\"></span>slow link (outlined): below {} Gb/s</li>"
                   "<li><b class=\"suspect\">&#9650; r</b> suspect node</li></ul>\n",
                   label(threshold));
}

Pairs readPairs(const std::string& label, const nlohmann::json& p) {
  Pairs out;
  out.label = label;
  out.median = numberAt(p, "median_gbps");
  out.threshold = numberAt(p, "threshold_gbps");
  for (const auto& n : arrayAt(p, "nodes")) {
    int rank = intAt(n, "rank", -1);
    if (rank < 0 || rank >= kMaxRanks) continue;
    if (static_cast<size_t>(rank) >= out.names.size()) out.names.resize(rank + 1);
    out.names[rank] = textAt(n, "host");
    std::string addr = textAt(n, "address");
    if (!addr.empty()) out.names[rank] += " " + addr;
  }
  // Either form: bench's link objects or validate's rows (core/pair_links.h).
  auto links = readPairLinks(p);
  if (!links) {
    out.error = links.error().message;
    return out;
  }
  for (const auto& l : *links) {
    Link link{l.a, l.b, l.gbps, l.slow};
    if (link.a < 0 || link.b < 0 || link.a >= kMaxRanks || link.b >= kMaxRanks || link.a == link.b) continue;
    size_t need = static_cast<size_t>(std::max(link.a, link.b)) + 1;
    if (out.names.size() < need) out.names.resize(need);
    out.links.push_back(link);
  }
  for (const auto& s : arrayAt(p, "suspect_nodes"))
    if (s.is_object() && s.contains("rank") && s["rank"].is_number_integer())
      out.suspects.insert(s["rank"].get<int>());
  return out;
}

std::string heatmap(const Pairs& p) {
  size_t n = p.names.size();
  double cell = std::clamp(640.0 / std::max<size_t>(n, 1), 8.0, 40.0);
  double left = 60, top = 40, size = cell * n;
  std::string out = fmt::format(
      "<svg class=\"heatmap\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "role=\"img\" "
      "aria-label=\"pairs bandwidth as a fraction of the median, {2} nodes\" data-nodes=\"{2}\">\n",
      left + size + 10, top + size + 10, n);
  for (size_t r = 0; r < n; ++r) {
    bool suspect = p.suspects.count(static_cast<int>(r)) > 0;
    std::string label = fmt::format("{}r{}", suspect ? "\u25B2 " : "", r);
    const char* css = suspect ? "tick suspect" : "tick";
    out += fmt::format(
        "<text class=\"{0}\" x=\"{1:.1f}\" y=\"{2:.1f}\" text-anchor=\"end\"><title>{3}</title>{4}</text>"
        "<text class=\"{0}\" x=\"{5:.1f}\" y=\"{6:.1f}\" text-anchor=\"start\" transform=\"rotate(-60 "
        "{5:.1f} {6:.1f})\">{4}</text>\n",
        css, left - 4, top + cell * (r + 0.5) + 4, esc(p.names[r]), label, left + cell * (r + 0.5), top - 4);
    if (suspect)
      out += fmt::format(
          "<rect class=\"suspect-band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>\n",
          left, top + cell * r, size, cell);
  }
  std::string slow;
  for (const auto& l : p.links) {
    double f = p.median > 0 ? l.gbps / p.median : 0;
    for (int k = 0; k < 2; ++k) {
      int row = k == 0 ? l.a : l.b, col = k == 0 ? l.b : l.a;
      std::string rect = fmt::format(
          "<rect class=\"cell h{}{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\">"
          "<title>r{} - r{}: {} Gb/s, {}% of the median</title></rect>\n",
          step(f), l.slow ? " slow" : "", left + cell * col, top + cell * row, cell, cell, row, col,
          num(l.gbps), num(f * 100, 0));
      (l.slow ? slow : out) += rect;  // slow cells last, so their outline is on top
    }
  }
  return out + slow + "</svg>\n";
}

// One bar per node: the median of its links, as a fraction of the median.
std::string nodeBars(const Pairs& p, std::vector<std::pair<double, int>>& per_node) {
  size_t n = p.names.size();
  std::vector<std::vector<double>> bw(n);
  for (const auto& l : p.links) {
    bw[l.a].push_back(l.gbps);
    bw[l.b].push_back(l.gbps);
  }
  double width = 900, height = 200, left = 60, top = 16, bar = width / std::max<size_t>(n, 1);
  double y_max = 1.25;
  std::string out = fmt::format(
      "<svg class=\"bars\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" role=\"img\" "
      "aria-label=\"median link bandwidth per node as a fraction of the median\" data-nodes=\"{2}\">\n",
      left + width + 10, top + height + 40, n);
  for (double v : {0.0, 0.5, 0.8, 1.0, 1.25}) {
    double y = top + height - v / y_max * height;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}%</text>\n",
        left, y, left + width, y, left - 4, y + 4, num(v * 100, 0));
  }
  for (size_t r = 0; r < n; ++r) {
    auto& v = bw[r];
    double med = 0;
    if (!v.empty()) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      med = v[v.size() / 2];
    }
    double f = p.median > 0 ? med / p.median : 0;
    per_node.push_back({f, static_cast<int>(r)});
    double h = std::min(f, y_max) / y_max * height;
    out +=
        fmt::format("<rect class=\"bar h{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\"/>",
                    step(f), left + bar * r, top + height - h, std::max(bar - (bar > 3 ? 1 : 0), 0.5), h);
    if (p.suspects.count(static_cast<int>(r)))
      out += fmt::format(
          "<text class=\"suspect\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">&#9650;</text>",
          left + bar * (r + 0.5), top + height + 14);
  }
  out += fmt::format(
      "\n<text class=\"axis-title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">node (rank 0 .. "
      "{})</text>\n",
      left + width / 2, top + height + 32, n - 1);
  return out + "</svg>\n";
}

std::string linkTable(const Pairs& p, size_t limit) {
  std::vector<Link> links = p.links;
  std::sort(links.begin(), links.end(), [](const Link& x, const Link& y) { return x.gbps < y.gbps; });
  std::string out = fmt::format(
      "<table class=\"numbers\"><caption>links, slowest first{}</caption>\n"
      "<thead><tr><th>a</th><th>b</th><th>bandwidth (Gb/s)</th><th>% of median</th>"
      "<th>slow</th></tr></thead><tbody>\n",
      links.size() > limit ? fmt::format(" (the {} slowest of {})", limit, links.size()) : "");
  for (size_t i = 0; i < links.size() && i < limit; ++i) {
    const auto& l = links[i];
    out +=
        fmt::format("<tr{}><td>r{} {}</td><td>r{} {}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    l.slow ? " class=\"bad\"" : "", l.a, esc(p.names[l.a]), l.b, esc(p.names[l.b]),
                    num(l.gbps), p.median > 0 ? num(l.gbps / p.median * 100, 0) : "", l.slow ? "slow" : "");
  }
  return out + "</tbody></table>\n";
}

std::string onePairs(const Pairs& p) {
  std::string out = fmt::format(
      "<h3>{}</h3>\n<p>{} nodes, {} links, median {} Gb/s per direction, slow below {} Gb/s; "
      "{} slow link(s), {} suspect node(s).</p>\n",
      esc(p.label), p.names.size(), p.links.size(), num(p.median), num(p.threshold),
      std::count_if(p.links.begin(), p.links.end(), [](const Link& l) { return l.slow; }), p.suspects.size());
  if (!p.suspects.empty()) {
    out += "<p class=\"bad\">suspect node(s):";
    for (int s : p.suspects)
      out += fmt::format(" <b>r{}</b> {};", s, esc(s < static_cast<int>(p.names.size()) ? p.names[s] : ""));
    out += "</p>\n";
  }
  if (p.names.size() <= kHeatmapMaxNodes)
    return out + "<figure>" + heatmap(p) + stepLegend(p.threshold) + "</figure>\n" + linkTable(p, 5000);
  std::vector<std::pair<double, int>> per_node;
  out += "<figure>" + nodeBars(p, per_node) + stepLegend(p.threshold) + "</figure>\n";
  std::sort(per_node.begin(), per_node.end());
  out +=
      "<table class=\"numbers\"><caption>the 20 nodes with the slowest median "
      "link</caption><thead><tr><th>node</th>"
      "<th>median link (% of the fleet median)</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < per_node.size() && i < 20; ++i)
    out += fmt::format("<tr><td>r{} {}</td><td>{}</td></tr>\n", per_node[i].second,
                       esc(p.names[per_node[i].second]), num(per_node[i].first * 100, 0));
  return out + "</tbody></table>\n" + linkTable(p, 50);
}

}  // namespace

std::string renderPairs(const Documents& docs) {
  std::string body;
  for (const auto& doc : docs) {
    const nlohmann::json* p = nullptr;
    if ((doc.kind == "railkit.validate/v1" || doc.kind == "railkit.bench/v1") && doc.json.contains("pairs") &&
        doc.json["pairs"].is_object())
      p = &doc.json["pairs"];
    if (p == nullptr) continue;
    Pairs pairs = readPairs(fmt::format("{} ({})", doc.source, shortKind(doc.kind)), *p);
    if (!pairs.error.empty()) body += "<p class=\"bad\">" + esc(pairs.label + ": " + pairs.error) + "</p>\n";
    if (!pairs.links.empty()) body += onePairs(pairs);
  }
  return body.empty() ? "" : section("pairs", "Pairs bandwidth", body);
}

}  // namespace railkit::report
