#include "host/sim/step_params.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "host/sim/stages.h"

namespace vkphys {

const char* stage_name(Stage s) {
  static const char* names[kStageCount] = {"predict", "hash",     "sort",           "cell_ranges",
                                           "count",   "scan",     "write_contacts", "prepare",
                                           "solve",   "integrate"};
  return names[static_cast<std::size_t>(s)];
}

StepParams make_step_params(const Scene& scene, std::uint32_t contact_capacity) {
  const Settings& s = scene.settings;
  if (scene.planes.size() > VKPHYS_MAX_PLANES) {
    throw std::invalid_argument("scene has " + std::to_string(scene.planes.size()) +
                                " planes; the limit is " + std::to_string(VKPHYS_MAX_PLANES));
  }
  if (scene.materials.empty() || scene.materials.size() > VKPHYS_MAX_MATERIALS) {
    throw std::invalid_argument("scene has " + std::to_string(scene.materials.size()) +
                                " materials; 1 to " + std::to_string(VKPHYS_MAX_MATERIALS) +
                                " are allowed");
  }
  float max_radius = 0.0f;
  for (const glm::vec4& p : scene.particles.pos_radius) max_radius = std::max(max_radius, p.w);
  if (max_radius <= 0.0f) max_radius = 1.0f;
  float margin = s.contact_margin >= 0.0f ? s.contact_margin : 0.05f * max_radius;
  float cell = s.cell_size > 0.0f ? s.cell_size : 2.0f * max_radius + margin;
  if (cell < 2.0f * max_radius + margin) {
    throw std::invalid_argument("cell_size " + std::to_string(cell) +
                                " is smaller than the largest contact reach 2 r_max + margin = " +
                                std::to_string(2.0f * max_radius + margin));
  }
  auto n = static_cast<std::uint32_t>(scene.particles.size());
  std::uint32_t table = std::bit_ceil(std::max<std::uint32_t>(64u, 2u * n));

  StepParams p{};
  p.gravity_dt = glm::vec4(s.gravity, s.time_step);
  p.grid = glm::vec4(cell, 1.0f / cell, margin, s.drag);
  p.solver = glm::vec4(s.solver.relaxation, s.solver.restitution_threshold,
                       s.solver.friction ? 1.0f : 0.0f, s.solver.warm_start);
  p.counts =
      glm::uvec4(n, static_cast<std::uint32_t>(scene.planes.size()), table, contact_capacity);
  for (std::size_t i = 0; i < scene.planes.size(); ++i) {
    p.planes[i] = glm::vec4(scene.planes[i].normal, scene.planes[i].offset);
    p.plane_material[i] = glm::uvec4(scene.planes[i].material, 0u, 0u, 0u);
  }
  for (std::size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    p.materials[i] = glm::vec4(m.restitution, m.friction, m.spook_k, m.spook_d);
  }
  return p;
}

std::uint32_t default_contact_capacity(std::size_t particles) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(1024, particles * 8));
}

std::uint32_t grown_contact_capacity(std::uint32_t wanted) {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(0xFFFFFFF0u, std::uint64_t{wanted} * 3 / 2 + 64));
}

}  // namespace vkphys
