// What the particle generators (host/sim/cloth.cpp, soft_body.cpp) share: each generated body
// (a cloth, a soft box) takes a particle collision group of its own, so its particles collide
// with everything but each other, and its radius stays below half its particles' spacing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glm/glm.hpp>
#include <stdexcept>
#include <string>

#include "vkphys/scene.h"

namespace vkphys {

// One more than the largest group so far (at least 1: group 0 collides with everything).
inline std::uint32_t next_particle_group(const Particles& p) {
  std::uint32_t group = 1;
  for (std::uint32_t g : p.group) group = std::max(group, g + 1u);
  return group;
}

inline void add_grouped_particle(Particles& p, glm::vec3 x, float radius, float mass,
                                 std::uint32_t material, std::uint32_t group) {
  p.add(x, glm::vec3(0.0f), radius, mass, material);
  p.group.resize(p.size(), 0u);  // add() keeps the list only once it is in use
  p.group.back() = group;
}

// `radius`, or a quarter of `spacing` when 0; throws std::invalid_argument ("<who>: radius ...
// must be below half the <noun> spacing ...") unless it is below half the spacing.
inline float generated_radius(float radius, float spacing, const std::string& who,
                              const std::string& noun) {
  const float r = radius > 0.0f ? radius : 0.25f * spacing;
  if (!(std::isfinite(r) && r < 0.5f * spacing)) {
    throw std::invalid_argument(who + ": radius " + std::to_string(r) +
                                " m must be below half the " + noun + " spacing " +
                                std::to_string(spacing) + " m (neighbours would overlap)");
  }
  return r;
}

}  // namespace vkphys
