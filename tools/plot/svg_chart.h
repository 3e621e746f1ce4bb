// SVG charts written by the project (no plotting library): line/scatter charts with linear or
// logarithmic axes and labelled markers, and bar charts. The output is a standalone SVG file a
// browser shows.
//
// Contract: render_* never throws for empty data (the chart says "no data"); non-finite
// points and, on a logarithmic axis, non-positive ones are skipped. Text is XML-escaped.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace marlin::plot {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in the given order
  bool line = true;                               // false: points only
};

struct Marker {
  double x = 0;
  double y = 0;
  std::string label;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  std::vector<Series> series;
  std::vector<Marker> markers;  // labelled points drawn over the series
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::pair<std::string, double>> bars;  // label, value (>= 0)
};

std::string render_line_chart(const LineChart& chart);
std::string render_bar_chart(const BarChart& chart);

// Writes `svg` to `dir`/`name`; throws InputError naming --plot when it cannot.
void write_svg(const std::string& dir, const std::string& name, const std::string& svg);

}  // namespace marlin::plot
