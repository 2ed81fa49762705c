#include "report/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.h"

namespace railkit::report {
namespace {

constexpr int kWidth = 760, kHeight = 360;
constexpr int kLeft = 64, kRight = 150, kTop = 16, kBottom = 52;  // margins; the right one holds line labels

struct Box {
  double x0, x1, y0, y1;         // plot box in pixels (y0 top)
  double lx_min, lx_max, y_max;  // log2 of the x range, the y range top
  double px(double x) const {
    double l = std::log2(std::max(x, 1.0));
    return lx_max == lx_min ? (x0 + x1) / 2 : x0 + (l - lx_min) / (lx_max - lx_min) * (x1 - x0);
  }
  double py(double y) const { return y1 - y / y_max * (y1 - y0); }
};

Box boxFor(const LineChart& chart) {
  double x_min = INFINITY, x_max = 0, y_max = 0;
  for (const auto& s : chart.series)
    for (const auto& p : s.points) {
      x_min = std::min(x_min, p.x);
      x_max = std::max(x_max, p.x);
      y_max = std::max(y_max, p.y);
    }
  for (const auto& l : chart.lines) y_max = std::max(y_max, l.y);
  if (!(x_max > 0)) x_min = x_max = 1;
  Box b{kLeft,
        kWidth - kRight,
        kTop,
        kHeight - kBottom,
        std::floor(std::log2(std::max(x_min, 1.0))),
        std::ceil(std::log2(std::max(x_max, 1.0))),
        niceCeil(y_max * 1.05)};
  return b;
}

std::string axes(const LineChart& chart, const Box& b) {
  std::string out;
  // y grid: five steps of the nice maximum, with the decimals a step needs.
  int digits = std::clamp(static_cast<int>(std::ceil(-std::log10(b.y_max / 5))) + 1, 0, 6);
  for (int i = 0; i <= 5; ++i) {
    double v = b.y_max * i / 5;
    double y = b.py(v);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        b.x0, y, b.x1, y, b.x0 - 6, y + 4, num(v, digits));
  }
  // x ticks at powers of 2, thinned to at most 12 labels.
  int span = static_cast<int>(b.lx_max - b.lx_min);
  int step = std::max(1, (span + 11) / 12);
  for (int e = static_cast<int>(b.lx_min); e <= static_cast<int>(b.lx_max); e += step) {
    double x = b.px(std::exp2(e));
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>"
        "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4}</text>\n",
        x, b.y0, b.y1, b.y1 + 16, sizeLabel(std::exp2(e)));
  }
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/>"
      "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{3:.1f}\" x2=\"{0:.1f}\" y2=\"{1:.1f}\"/>\n",
      b.x0, b.y1, b.x1, b.y0);
  out += fmt::format("<text class=\"axis-title\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (b.x0 + b.x1) / 2, kHeight - 12, esc(chart.x_title));
  out += fmt::format(
      "<text class=\"axis-title\" transform=\"translate(16 {:.1f}) rotate(-90)\" "
      "text-anchor=\"middle\">{}</text>\n",
      (b.y0 + b.y1) / 2, esc(chart.y_title));
  return out;
}

}  // namespace

double niceCeil(double v) {
  if (!(v > 0) || !std::isfinite(v)) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

std::string renderLineChart(const LineChart& chart) {
  Box b = boxFor(chart);
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\" "
      "data-plot=\"{3:.1f} {4:.1f} {5:.1f} {6:.1f}\" data-x-min=\"{7}\" data-x-max=\"{8}\" "
      "data-y-max=\"{9}\">\n",
      kWidth, kHeight, esc(chart.title), b.x0, b.y0, b.x1, b.y1, num(std::exp2(b.lx_min), 0),
      num(std::exp2(b.lx_max), 0), num(b.y_max, 6));
  out += axes(chart, b);
  for (const auto& l : chart.lines) {
    double y = b.py(l.y);
    out += fmt::format(
        "<line class=\"{0}\" data-value=\"{1}\" x1=\"{2:.1f}\" y1=\"{3:.2f}\" x2=\"{4:.1f}\" y2=\"{3:.2f}\"/>"
        "<text class=\"line-label\" x=\"{5:.1f}\" y=\"{6:.1f}\">{7}</text>\n",
        esc(l.css), num(l.y, 6), b.x0, y, b.x1, b.x1 + 4, y + 4, esc(l.name));
  }
  for (const auto& s : chart.series) {
    std::string points;
    for (const auto& p : s.points) points += fmt::format("{:.1f},{:.1f} ", b.px(p.x), b.py(p.y));
    if (!points.empty()) points.pop_back();
    out += fmt::format(
        "<g class=\"s{}\"><title>{}</title><polyline class=\"series{}\" data-points=\"{}\" points=\"{}\"/>",
        s.colour % 8, esc(s.name), s.dashed ? " dashed" : "", s.points.size(), points);
    for (const auto& p : s.points)
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\"/>", b.px(p.x), b.py(p.y));
    out += "</g>\n";
  }
  for (const auto& l : chart.labels) {
    double x = b.px(l.at.x), y = b.py(l.at.y);
    bool right_half = x > (b.x0 + b.x1) / 2;
    out += fmt::format(
        "<circle class=\"peak\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\"/>"
        "<text class=\"peak-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}</text>\n",
        x, y, right_half ? x - 8 : x + 8, std::max(y - 8, b.y0 + 10), right_half ? "end" : "start",
        esc(l.text));
  }
  out += "</svg>\n";
  return out;
}

std::string legendSwatch(int colour, bool dashed) {
  return fmt::format(
      "<svg class=\"swatch s{}\" width=\"28\" height=\"10\" aria-hidden=\"true\">"
      "<line class=\"series{}\" x1=\"0\" y1=\"5\" x2=\"28\" y2=\"5\"/></svg>",
      colour % 8, dashed ? " dashed" : "");
}

}  // namespace railkit::report
