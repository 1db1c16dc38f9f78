#include "host/sim/scene_builders.h"

#include <cmath>

#include "host/sim/splitmix.h"

namespace vkphys {

namespace {

// Uniform in [-1, 1) in steps of 2^-23: exact in double, so the cast does not round.
float uniform(SplitMix64& rng) {
  return static_cast<float>(2.0 * rng.unit() - 1.0);
}

}  // namespace

void add_box_planes(Scene& scene, glm::vec3 lo, glm::vec3 hi, std::uint32_t material,
                    bool open_top) {
  for (int axis = 0; axis < 3; ++axis) {
    glm::vec3 n(0.0f);
    n[axis] = 1.0f;
    scene.planes.push_back({n, lo[axis], material});
    if (axis == 1 && open_top) continue;
    scene.planes.push_back({-n, -hi[axis], material});
  }
}

Scene particle_box_scene(std::uint32_t count, std::uint64_t seed, float radius,
                         std::uint32_t layers) {
  Scene s;
  s.name = "particle box " + std::to_string(count);
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.contact_margin = 0.1f * radius;
  s.settings.solver.iterations = 32;
  s.settings.solver.contact_hertz = 0.0f;  // spheres have no redundant contact points to soften
  s.materials = {Material{"default", 0.0f, 0.3f, 1.0e6f, 4.0f}};
  auto side = static_cast<std::uint32_t>(
      std::ceil(std::sqrt(static_cast<double>(count) / static_cast<double>(layers))));
  const float spacing = 2.05f * radius;
  const float width = static_cast<float>(side) * spacing + 2.0f * radius;
  const float height = 4.0f * spacing * static_cast<float>(layers + 1);
  add_box_planes(s, glm::vec3(0.0f), glm::vec3(width, height, width), 0, false);
  SplitMix64 rng(seed);
  for (std::uint32_t i = 0; i < count; ++i) {
    glm::uvec3 c(i % side, i / (side * side), (i / side) % side);
    // Drawn z, y, x, as add_lattice (host/sim/mixed_scenes.cpp) says why.
    const float jz = uniform(rng), jy = uniform(rng), jx = uniform(rng);
    const glm::vec3 jitter(jx, jy, jz);
    glm::vec3 x = glm::vec3(1.03f * radius) + glm::vec3(c) * spacing + 0.02f * radius * jitter;
    s.particles.add(x, glm::vec3(0.0f), radius, 1.0f, 0);
  }
  return s;
}

}  // namespace vkphys
