#include "tools/plot/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "model/common/input_error.h"

namespace marlin::plot {
namespace {

constexpr double kWidth = 900;
constexpr double kHeight = 440;
constexpr double kLeft = 80;
constexpr double kRight = 300;  // room for the legend
constexpr double kTop = 40;
constexpr double kBottom = 100;  // room for rotated bar labels
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                               "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_tick(double value) {
  if (value != 0 && (std::fabs(value) >= 1e5 || std::fabs(value) < 1e-2)) {
    return fmt::format("{:.0e}", value);
  }
  return fmt::format("{:g}", value);
}

// One axis: maps data values to pixels, linear or logarithmic.
struct Axis {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double pixel_lo = 0;
  double pixel_hi = 1;

  double map(double v) const {
    const double a = log ? std::log10(v) : v;
    const double b = log ? std::log10(lo) : lo;
    const double c = log ? std::log10(hi) : hi;
    return pixel_lo + (a - b) / (c - b) * (pixel_hi - pixel_lo);
  }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double t = std::pow(10.0, std::floor(std::log10(lo))); t <= hi * 1.0001; t *= 10) {
        if (t >= lo * 0.9999) out.push_back(t);
      }
      return out;
    }
    const double step0 = (hi - lo) / 5;
    const double magnitude = std::pow(10.0, std::floor(std::log10(step0)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * magnitude >= step0) {
        step = m * magnitude;
        break;
      }
    }
    for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
      out.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    }
    return out;
  }
};

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

Axis make_axis(std::vector<double> values, bool log, double pixel_lo, double pixel_hi) {
  Axis axis;
  axis.log = log;
  axis.pixel_lo = pixel_lo;
  axis.pixel_hi = pixel_hi;
  if (values.empty()) return axis;
  axis.lo = *std::min_element(values.begin(), values.end());
  axis.hi = *std::max_element(values.begin(), values.end());
  if (log) {
    axis.lo = std::pow(10.0, std::floor(std::log10(axis.lo)));
    axis.hi = std::pow(10.0, std::ceil(std::log10(axis.hi)));
    if (axis.hi <= axis.lo) axis.hi = axis.lo * 10;
  } else {
    if (axis.lo > 0) axis.lo = 0;
    axis.hi += (axis.hi - axis.lo) * 0.05;  // headroom above the largest value
    if (axis.hi <= axis.lo) axis.hi = axis.lo + 1;
  }
  return axis;
}

std::string header(const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">{3}</text>\n",
      kWidth, kHeight, (kLeft + kWidth - kRight) / 2, escape(title));
}

std::string axes(const Axis& x, const Axis& y, const std::string& x_label,
                 const std::string& y_label, bool x_ticks) {
  std::string svg = fmt::format(
      "<g stroke=\"#444\" fill=\"none\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>"
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{3}\"/></g>\n",
      kLeft, kHeight - kBottom, kWidth - kRight, kTop);
  if (x_ticks) {
    for (const double t : x.ticks()) {
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x.map(t),
                         kHeight - kBottom + 16, format_tick(t));
    }
  }
  for (const double t : y.ticks()) {
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, y.map(t), kWidth - kRight, kLeft - 6, y.map(t) + 4, format_tick(t));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (kLeft + kWidth - kRight) / 2, kHeight - kBottom + 40, escape(x_label));
  svg += fmt::format(
      "<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0})\">{1}"
      "</text>\n",
      (kTop + kHeight - kBottom) / 2, escape(y_label));
  return svg;
}

std::string no_data(const std::string& title) {
  return header(title) + fmt::format(
                             "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data"
                             "</text>\n</svg>\n",
                             kWidth / 2, kHeight / 2);
}

}  // namespace

std::string render_line_chart(const LineChart& chart) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (usable(x, chart.log_x) && usable(y, chart.log_y)) {
        xs.push_back(x);
        ys.push_back(y);
      }
    }
  }
  for (const Marker& m : chart.markers) {
    if (usable(m.x, chart.log_x) && usable(m.y, chart.log_y)) {
      xs.push_back(m.x);
      ys.push_back(m.y);
    }
  }
  if (xs.empty()) return no_data(chart.title);
  const Axis x = make_axis(xs, chart.log_x, kLeft, kWidth - kRight);
  const Axis y = make_axis(ys, chart.log_y, kHeight - kBottom, kTop);
  std::string svg = header(chart.title) + axes(x, y, chart.x_label, chart.y_label, true);
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    const char* color = kColors[i % std::size(kColors)];
    std::string points;
    for (const auto& [px, py] : s.points) {
      if (!usable(px, chart.log_x) || !usable(py, chart.log_y)) continue;
      points += fmt::format("{:.1f},{:.1f} ", x.map(px), y.map(py));
      if (!s.line) {
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", x.map(px),
                           y.map(py), color);
      }
    }
    if (s.line && !points.empty()) {
      svg +=
          fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
                      color, points);
    }
    svg += fmt::format(
        "<rect x=\"{0}\" y=\"{1}\" width=\"12\" height=\"12\" fill=\"{2}\"/>"
        "<text x=\"{3}\" y=\"{4}\">{5}</text>\n",
        kWidth - kRight + 12, kTop + 18.0 * static_cast<double>(i), color, kWidth - kRight + 30,
        kTop + 10 + 18.0 * static_cast<double>(i), escape(s.name));
  }
  // Labels of neighbouring markers are staggered in height so they do not overlap.
  for (std::size_t i = 0; i < chart.markers.size(); ++i) {
    const Marker& m = chart.markers[i];
    if (!usable(m.x, chart.log_x) || !usable(m.y, chart.log_y)) continue;
    const double lift = 7 + 13 * static_cast<double>(i % 6);
    svg += fmt::format(
        "<circle cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"5\" fill=\"black\"/>"
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{3:.1f}\" stroke=\"#999\"/>"
        "<text x=\"{2:.1f}\" y=\"{3:.1f}\" font-size=\"11\">{4}</text>\n",
        x.map(m.x), y.map(m.y), x.map(m.x) + 7, y.map(m.y) - lift, escape(m.label));
  }
  return svg + "</svg>\n";
}

std::string render_bar_chart(const BarChart& chart) {
  std::vector<double> values;
  for (const auto& [label, value] : chart.bars) {
    if (std::isfinite(value)) values.push_back(std::max(0.0, value));
  }
  if (values.empty()) return no_data(chart.title);
  values.push_back(0);
  const Axis y = make_axis(values, false, kHeight - kBottom, kTop);
  Axis x;
  std::string svg = header(chart.title) + axes(x, y, "", chart.y_label, false);
  const double slot = (kWidth - kRight - kLeft) / static_cast<double>(chart.bars.size());
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const auto& [label, value] = chart.bars[i];
    const double v = std::isfinite(value) ? std::max(0.0, value) : 0.0;
    const double left = kLeft + slot * static_cast<double>(i) + slot * 0.15;
    svg += fmt::format(
        "<rect x=\"{0:.1f}\" y=\"{1:.1f}\" width=\"{2:.1f}\" height=\"{3:.1f}\" fill=\"{4}\"/>"
        "<text x=\"{5:.1f}\" y=\"{6}\" text-anchor=\"end\" font-size=\"10\" "
        "transform=\"rotate(-30 {5:.1f} {6})\">{7}</text>\n",
        left, y.map(v), slot * 0.7, y.map(0) - y.map(v), kColors[i % std::size(kColors)],
        left + slot * 0.35, kHeight - kBottom + 14, escape(label));
  }
  return svg + "</svg>\n";
}

void write_svg(const std::string& dir, const std::string& name, const std::string& svg) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::filesystem::path path = std::filesystem::path(dir) / name;
  std::ofstream file(path);
  if (!file || !(file << svg)) {
    throw InputError(fmt::format("--plot: cannot write '{}'", path.string()));
  }
}

}  // namespace marlin::plot
