// What the particle generators (host/sim/cloth.cpp, mesh_cloth.cpp, soft_body.cpp) share: each
// generated body (a cloth, a soft box) takes a particle collision group of its own, so its
// particles collide with everything but each other, its radius stays below half its particles'
// spacing, its springs start at their rest lengths, and a cloth's thickness (self-collision)
// stays below the nearest distance no spring holds.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glm/glm.hpp>
#include <stdexcept>
#include <string>

#include "vkphys/cloth.h"
#include "vkphys/scene.h"

namespace vkphys {

// One more than the largest group so far (at least 1: group 0 collides with everything).
inline std::uint32_t next_particle_group(const Particles& p) {
  std::uint32_t group = 1;
  for (std::uint32_t g : p.group) group = std::max(group, g + 1u);
  return group;
}

// A particle of the group; a thickness > 0 (a cloth's self-collision) goes on it too.
inline void add_grouped_particle(Particles& p, glm::vec3 x, float radius, float mass,
                                 std::uint32_t material, std::uint32_t group,
                                 float thickness = 0.0f) {
  p.add(x, glm::vec3(0.0f), radius, mass, material);
  p.group.resize(p.size(), 0u);  // add() keeps the lists only once they are in use
  p.group.back() = group;
  if (thickness > 0.0f) {
    p.thickness.resize(p.size(), 0.0f);
    p.thickness.back() = thickness;
  }
}

// A spring between particles a and b at their present distance.
inline void add_rest_spring(Scene& scene, std::uint32_t a, std::uint32_t b, float k, float d,
                            SpringModel model, float c) {
  const Particles& p = scene.particles;
  const float rest = glm::length(glm::vec3(p.pos_radius[b]) - glm::vec3(p.pos_radius[a]));
  scene.springs.push_back(Spring{a, b, rest, k, d, model, c});
}

// A cloth's thickness: 0 (no self-collision), or at least the vertex diameter and below
// `unjoined`, the rest distance of `pair` (by default the nearest two vertices no spring joins),
// or the flat cloth would push itself apart. Throws std::invalid_argument("<who>: thickness ...")
// otherwise.
inline void check_thickness(float thickness, float radius, float unjoined, const std::string& who,
                            const std::string& pair = "the nearest two vertices no spring joins") {
  if (thickness == 0.0f) return;
  if (!(std::isfinite(thickness) && thickness >= 2.0f * radius && thickness < unjoined)) {
    throw std::invalid_argument(
        who + ": thickness " + std::to_string(thickness) +
        " m must be 0 (no self-collision) or at least the vertex diameter " +
        std::to_string(2.0f * radius) + " m and below " + std::to_string(unjoined) +
        " m, the rest distance of " + pair);
  }
}

// A cloth's tethers (vkphys/cloth.h, add_tethers): a known mode, and a pin to hang from unless
// none. Throws std::invalid_argument("<who>: tethers ...") otherwise.
inline void check_tethers(ClothTethers mode, bool pinned, const std::string& who) {
  if (mode != ClothTethers::none && mode != ClothTethers::euclidean &&
      mode != ClothTethers::geodesic) {
    throw std::invalid_argument(who + ": tethers " +
                                std::to_string(static_cast<std::uint32_t>(mode)) +
                                " must be ClothTethers::none, ::euclidean or ::geodesic");
  }
  if (mode != ClothTethers::none && !pinned) {
    throw std::invalid_argument(who + ": tethers " +
                                (mode == ClothTethers::euclidean ? "euclidean" : "geodesic") +
                                " need at least one pin to hang from (pins is empty)");
  }
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
