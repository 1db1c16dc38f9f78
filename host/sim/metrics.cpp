#include "host/sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vkphys {

namespace {

std::int64_t cell_key(glm::ivec3 c) {
  auto u = [](int v) { return static_cast<std::int64_t>(v) & 0x1FFFFF; };
  return (u(c.x) << 42) | (u(c.y) << 21) | u(c.z);
}

}  // namespace

Metrics measure(const Scene& scene, const Particles& state) {
  Metrics m;
  const glm::dvec3 g(scene.settings.gravity);
  float max_r = 0.0f;
  for (std::size_t i = 0; i < state.size(); ++i) {
    glm::dvec4 x(state.pos_radius[i]);
    glm::dvec4 v(state.vel_invmass[i]);
    max_r = std::max(max_r, state.pos_radius[i].w);
    if (!std::isfinite(x.x + x.y + x.z + v.x + v.y + v.z)) m.finite = false;
    if (v.w <= 0.0) continue;
    double mass = 1.0 / v.w;
    glm::dvec3 vel(v);
    m.kinetic += 0.5 * mass * glm::dot(vel, vel);
    m.potential -= mass * glm::dot(g, glm::dvec3(x));
    m.momentum += mass * vel;
    m.max_speed = std::max(m.max_speed, glm::length(vel));
  }
  for (std::size_t i = 0; i < state.size(); ++i) {
    glm::vec4 p = state.pos_radius[i];
    for (const Plane& pl : scene.planes) {
      double gap = glm::dot(glm::dvec3(pl.normal), glm::dvec3(p)) - double(pl.offset) - double(p.w);
      m.max_penetration = std::max(m.max_penetration, -gap);
    }
  }
  if (!m.finite || state.size() < 2) return m;
  // Pairwise overlaps through a hash grid of cell 2 r_max: each pair is in adjacent cells.
  const float cell = 2.0f * max_r;
  std::unordered_map<std::int64_t, std::vector<std::uint32_t>> grid;
  auto cell_of = [&](std::size_t i) {
    return glm::ivec3(glm::floor(glm::vec3(state.pos_radius[i]) / cell));
  };
  for (std::size_t i = 0; i < state.size(); ++i) {
    grid[cell_key(cell_of(i))].push_back(static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < state.size(); ++i) {
    glm::ivec3 c = cell_of(i);
    glm::dvec4 a(state.pos_radius[i]);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          auto it = grid.find(cell_key(c + glm::ivec3(dx, dy, dz)));
          if (it == grid.end()) continue;
          for (std::uint32_t j : it->second) {
            if (j <= i) continue;
            glm::dvec4 b(state.pos_radius[j]);
            double depth = a.w + b.w - glm::length(glm::dvec3(b) - glm::dvec3(a));
            m.max_penetration = std::max(m.max_penetration, depth);
          }
        }
  }
  return m;
}

}  // namespace vkphys
