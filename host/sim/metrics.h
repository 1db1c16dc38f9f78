// Whole-scene diagnostics computed on the host from a particle state: energies, momentum and
// the deepest overlap. Used by `vkphys run` (metrics.csv), `vkphys compare` and the tests.
#pragma once

#include <glm/glm.hpp>

#include "host/sim/scene.h"

namespace vkphys {

struct Metrics {
  double kinetic = 0.0;    // sum 1/2 m |v|^2 over movable particles [J]
  double potential = 0.0;  // sum -m g . x [J]
  glm::dvec3 momentum{0.0};
  double max_penetration = 0.0;  // deepest sphere-sphere or sphere-plane overlap [m], >= 0
  double max_speed = 0.0;
  bool finite = true;  // false if any position or velocity is NaN or infinite
};

Metrics measure(const Scene& scene, const Particles& state);

}  // namespace vkphys
