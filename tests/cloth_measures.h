// Measures of a cloth's state for the cloth tests (tests/test_cloth.cpp,
// tests/test_implicit_integrator.cpp, tests/test_cloth_self_collision.cpp): its springs'
// stretch, where two stacked cloths are, and its kinetic energy; the hanging cloth they share and
// the budget they run it at; a run to rest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <glm/glm.hpp>
#include <memory>
#include <utility>

#include "host/sim/backend.h"
#include "host/sim/spring_strain.h"
#include "vkphys/cloth.h"
#include "vkphys/scene.h"

namespace vkphys::test {

// The cloth tests' budget, the peers': 60 Hz with 4 substeps of 2 iterations, with a light
// linear drag (0.001 kg/s: 0.7 /s on a 1.4 g vertex) as the damping that lets a swinging cloth
// come to rest.
inline void at_cloth_budget(Scene& s) {
  s.settings.drag = 0.001f;
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 2;
}

// A 12 x 12 cloth, 1 m square, 2 m up, pinned at two corners.
inline ClothSpec hanging_cloth() {
  ClothSpec c;
  c.origin = {0.0f, 2.0f, 0.0f};
  c.u = {1.0f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.0f};
  c.nu = c.nv = 12;
  c.density = 0.2f;
  c.k_structural = 2000.0f;
  c.k_shear = 200.0f;
  c.k_bend = 20.0f;
  c.pins = {{0, 0}, {11, 0}};
  return c;
}

// Largest length over rest length of the springs with stiffness k.
inline double max_stretch(const Scene& s, const WorldState& st, float k) {
  return spring_strain(s, st, k).max_ratio;
}

// The highest particle y of [first, split) and the lowest of [split, end): the top of a lower
// cloth and the bottom of the one above it, to see whether the upper one rests on it.
inline std::pair<float, float> top_and_bottom(const WorldState& st, std::uint32_t first,
                                              std::uint32_t split) {
  float top = -1.0e30f;
  float bottom = 1.0e30f;
  for (std::uint32_t i = first; i < split; ++i) top = std::max(top, st.particles.pos_radius[i].y);
  for (std::uint32_t i = split; i < st.particles.size(); ++i) {
    bottom = std::min(bottom, st.particles.pos_radius[i].y);
  }
  return {top, bottom};
}

inline double kinetic_energy(const WorldState& st) {
  double e = 0.0;
  for (const glm::vec4& v : st.particles.vel_invmass) {
    if (v.w > 0.0f) e += 0.5 * double(glm::dot(glm::vec3(v), glm::vec3(v))) / double(v.w);
  }
  return e;
}

// How a cloth came to rest: the largest kinetic energy sampled, the energy at the end [J] and
// the largest length over rest length of its springs of stiffness k there.
struct ClothRest {
  double peak_energy = 0.0, final_energy = 0.0, stretch = 0.0;
};

// `steps` steps of `s` on the CPU backend, the kinetic energy sampled every `every` steps.
inline ClothRest run_to_rest(const Scene& s, float k, int steps, int every) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  ClothRest r;
  WorldState st;
  for (int n = 0; n < steps; ++n) {
    cpu->step();
    if (n % every == 0) {
      cpu->read(st);
      r.peak_energy = std::max(r.peak_energy, kinetic_energy(st));
    }
  }
  cpu->read(st);
  r.final_energy = kinetic_energy(st);
  r.stretch = max_stretch(s, st, k);
  return r;
}

}  // namespace vkphys::test
