// Line plots as standalone SVG text (no dependencies): for the compare report's inline figures
// and `vkphys plot`. Linear or logarithmic y axis, a legend, optional vertical markers.
#pragma once

#include <string>
#include <vector>

namespace vkphys::io {

struct PlotSeries {
  std::string label;
  std::vector<double> x, y;  // same length; non-finite points are left out
  std::string color = "#1f77b4";
  bool dashed = false;
};

struct PlotMarker {
  double x = 0;
  std::string label;
  std::string color = "#d62728";
};

struct Plot {
  std::string title, x_label, y_label;
  bool log_y = false;  // values <= 0 sit on the axis' floor
  bool log_x = false;  // values <= 0 are left out
  std::vector<PlotSeries> series;
  std::vector<PlotMarker> markers;
  int width = 640, height = 300;
};

// The plot as an <svg> element (its own xmlns, so it is also a valid .svg file).
std::string svg_plot(const Plot& plot);

// Text with &, <, > and " escaped for XML and HTML.
std::string xml_escape(const std::string& text);

// A colour per series index from a fixed palette.
const char* plot_color(std::size_t i);

}  // namespace vkphys::io
