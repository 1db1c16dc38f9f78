/// \file
/// Line plots as standalone SVG text, with no dependencies: the figures of `vkphys plot`,
/// `vkphys bench --plot` and the compare report. A linear or logarithmic y axis, a legend and
/// optional vertical markers.
///
///   vkphys::Plot p{.title = "energy", .x_label = "time [s]", .y_label = "J"};
///   p.series.push_back({"energy", t, e, vkphys::plot_color(0)});
///   vkphys::write_file_atomic("energy.svg", vkphys::svg_plot(p));
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vkphys/export.h"

namespace vkphys {

/// One line of a Plot.
struct PlotSeries {
  std::string label;              ///< its legend entry
  std::vector<double> x, y;       ///< same length; non-finite points are left out
  std::string color = "#1f77b4";  ///< any SVG colour
  bool dashed = false;            ///< drawn dashed rather than solid
};

/// A vertical line across a Plot at `x`, labelled.
struct PlotMarker {
  double x = 0;                   ///< where, in the x axis' units
  std::string label;              ///< written beside the line
  std::string color = "#d62728";  ///< any SVG colour
};

/// What svg_plot draws.
struct Plot {
  std::string title, x_label, y_label;  ///< written above the plot and along its axes
  bool log_y = false;                   ///< a log10 y axis; values <= 0 sit on the axis' floor
  bool log_x = false;                   ///< a log10 x axis; values <= 0 are left out
  std::vector<PlotSeries> series;       ///< the lines, in legend order
  std::vector<PlotMarker> markers;      ///< vertical markers
  int width = 640, height = 300;        ///< [pixels]
};

/// The plot as an `<svg>` element with its own xmlns, so it is also a valid .svg file. Labels are
/// escaped for XML.
VKPHYS_API std::string svg_plot(const Plot& plot);

/// A colour per series index `i` from a fixed palette of ten (it repeats after them).
VKPHYS_API const char* plot_color(std::size_t i);

}  // namespace vkphys
