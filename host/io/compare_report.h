// The compare report: one self-contained HTML page (inline SVG figures, no scripts, no external
// files) beside `vkphys compare`'s terminal table. It holds the verdict and the first
// divergence with the stage it was traced to, the GPU-CPU difference over time per body kind
// against the rounding envelope and the limit, the energy and momentum of both backends, and the
// scene's settings and devices.
#pragma once

#include <string>

#include "host/sim/compare.h"
#include "vkphys/scene.h"

namespace vkphys::io {

struct CompareReport {
  const Scene* scene = nullptr;  // as both backends ran it
  std::string scene_file;
  std::string backend_a, backend_b;  // names (with the device)
  std::string note;                  // e.g. that the GPU backend ran on a CPU Vulkan driver
  CompareOptions options;
  const CompareResult* result = nullptr;
};

// The report as HTML text.
std::string compare_report_html(const CompareReport& report);

// Writes it to `path` (creating its folder); throws std::runtime_error naming the path if it
// cannot.
void write_compare_report(const std::string& path, const CompareReport& report);

}  // namespace vkphys::io
