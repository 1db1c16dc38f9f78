// XML escaping for the SVG plots (vkphys/plot.h) and the compare report's HTML.
#pragma once

#include <string>

#include "vkphys/plot.h"

namespace vkphys::io {

// The plots themselves are public (vkphys/plot.h): Plot, PlotSeries, PlotMarker, svg_plot,
// plot_color.

// Text with &, <, > and " escaped for XML and HTML.
std::string xml_escape(const std::string& text);

}  // namespace vkphys::io
