// The public SVG plots (vkphys/plot.h) and the private xml_escape (host/io/svg_plot.h).
#include "host/io/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace vkphys::io {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
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

}  // namespace vkphys::io

namespace vkphys {

const char* plot_color(std::size_t i) {
  static const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[i % (sizeof palette / sizeof palette[0])];
}

namespace {

// One axis: the data range mapped onto [lo_px, hi_px], linear or log10.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double px0 = 0, px1 = 1;
  double map(double v) const {
    const double t =
        log ? (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
            : (v - lo) / (hi - lo);
    return px0 + t * (px1 - px0);
  }
  // Tick values: decades on a log axis, 5 or so round steps on a linear one.
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      const double step = std::max(1.0, std::ceil((std::log10(hi) - std::log10(lo)) / 8.0));
      for (double e = std::ceil(std::log10(lo)); e <= std::log10(hi) + 1e-9; e += step) {
        t.push_back(std::pow(10.0, e));
      }
      if (t.size() < 2) t = {lo, hi};  // within one decade: label the ends
      return t;
    }
    const double raw = (hi - lo) / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) {
      t.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
    }
    return t;
  }
};

// The range of the finite values (positive ones only on a log axis), padded when empty or flat.
Axis fit(const std::vector<const std::vector<double>*>& values, bool log) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto* v : values) {
    for (double x : *v) {
      if (!std::isfinite(x) || (log && x <= 0.0)) continue;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  Axis a;
  a.log = log;
  if (!(lo <= hi)) {
    lo = log ? 1e-12 : 0.0;
    hi = log ? 1.0 : 1.0;
  }
  if (log) {
    if (hi <= lo) hi = lo * 10.0;
  } else if (hi <= lo) {
    const double pad = lo == 0.0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  a.lo = lo;
  a.hi = hi;
  return a;
}

// A tick value with enough significant digits to tell neighbouring ticks apart (a range of
// 2400.1 to 2400.5 J needs five).
std::string tick_label(double v, const Axis& axis) {
  const std::vector<double> t = axis.ticks();
  int digits = 3;
  if (!axis.log && t.size() > 1) {
    const double step = t[1] - t[0];
    const double big = std::max(std::abs(axis.lo), std::abs(axis.hi));
    digits = std::max(3, static_cast<int>(std::ceil(std::log10(big / step))) + 1);
  }
  return fmt::format("{:.{}g}", v, digits);
}

}  // namespace

std::string svg_plot(const Plot& plot) {
  const double left = 70, right = 12, top = 28, bottom = 42;
  const double w = plot.width, h = plot.height;
  std::vector<const std::vector<double>*> xs, ys;
  for (const PlotSeries& s : plot.series) {
    xs.push_back(&s.x);
    ys.push_back(&s.y);
  }
  Axis ax = fit(xs, plot.log_x);
  Axis ay = fit(ys, plot.log_y);
  ax.px0 = left;
  ax.px1 = w - right;
  ay.px0 = h - bottom;
  ay.px1 = top;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
      w, h, w, h, w, h, w / 2, io::xml_escape(plot.title));
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", left,
      top, w - left - right, h - top - bottom);
  for (double t : ax.ticks()) {
    const double px = ax.map(t);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        px, top, h - bottom, h - bottom + 14, tick_label(t, ax));
  }
  for (double t : ay.ticks()) {
    const double py = ay.map(t);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        left, py, w - right, left - 4, py + 4, tick_label(t, ay));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (left + w - right) / 2, h - 8, io::xml_escape(plot.x_label));
  out += fmt::format(
      "<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      "{0})\">{1}</text>\n",
      (top + h - bottom) / 2, io::xml_escape(plot.y_label));
  for (const PlotMarker& m : plot.markers) {
    const double px = ax.map(m.x);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" "
        "stroke-dasharray=\"2,2\"/><text x=\"{4:.1f}\" y=\"{5}\" fill=\"{3}\">{6}</text>\n",
        px, top, h - bottom, m.color, px + 3, h - bottom - 4, io::xml_escape(m.label));
  }
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& s = plot.series[i];
    std::string points;
    for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
      if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k])) continue;
      if (plot.log_x && s.x[k] <= 0.0) continue;
      points += fmt::format("{:.1f},{:.1f} ", ax.map(s.x[k]), ay.map(s.y[k]));
    }
    out += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>\n", s.color,
        s.dashed ? " stroke-dasharray=\"5,3\"" : "", points);
    const double ly = top + 14 + 14 * static_cast<double>(i);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
        "<text x=\"{5}\" y=\"{6}\">{7}</text>\n",
        left + 8, ly - 4, left + 28, s.color, s.dashed ? " stroke-dasharray=\"5,3\"" : "",
        left + 32, ly, io::xml_escape(s.label));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace vkphys
