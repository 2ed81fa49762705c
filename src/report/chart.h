#pragma once
// A line chart in SVG, written with fmt: bandwidth against message size on a
// log-2 x axis and a linear y axis from 0. Series are polylines with a marker
// per point; horizontal reference lines (the NIC bound, the graded fraction)
// span the plot. The geometry is written into data-* attributes of the <svg>
// (plot box, axis ranges) so tests can check where things landed.
// Colours come from CSS classes (s0..s7: the Okabe-Ito palette, safe for
// colour-blind readers), so dark mode and print restyle the chart.

#include <string>
#include <vector>

namespace railkit::report {

struct ChartPoint {
  double x = 0, y = 0;
};

struct ChartSeries {
  std::string name;  // legend text
  int colour = 0;    // palette index 0..7
  bool dashed = false;
  std::vector<ChartPoint> points;
};

struct ChartLine {
  std::string name;  // label drawn at the line's right end
  double y = 0;
  std::string css;  // "bound" or "graded"
};

struct ChartLabel {  // a marked point with a note (the peak)
  ChartPoint at;
  std::string text;
};

struct LineChart {
  std::string title;    // aria-label
  std::string x_title;  // with its unit
  std::string y_title;
  std::vector<ChartSeries> series;
  std::vector<ChartLine> lines;
  std::vector<ChartLabel> labels;
};

// The smallest of 1, 2, 2.5, 5 x 10^k at or above v (v > 0); 1 for v <= 0.
double niceCeil(double v);

std::string renderLineChart(const LineChart& chart);

// The page's legend swatch for palette entry `colour` (a small inline SVG).
std::string legendSwatch(int colour, bool dashed);

}  // namespace railkit::report
