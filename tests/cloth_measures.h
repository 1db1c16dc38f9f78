// Measures of a cloth's state for the cloth tests (tests/test_cloth.cpp,
// tests/test_implicit_integrator.cpp): its springs' stretch and its kinetic energy.
#pragma once

#include <glm/glm.hpp>

#include "host/sim/backend.h"
#include "host/sim/spring_strain.h"
#include "vkphys/scene.h"

namespace vkphys::test {

// Largest length over rest length of the springs with stiffness k.
inline double max_stretch(const Scene& s, const WorldState& st, float k) {
  return spring_strain(s, st, k).max_ratio;
}

inline double kinetic_energy(const WorldState& st) {
  double e = 0.0;
  for (const glm::vec4& v : st.particles.vel_invmass) {
    if (v.w > 0.0f) e += 0.5 * double(glm::dot(glm::vec3(v), glm::vec3(v))) / double(v.w);
  }
  return e;
}

}  // namespace vkphys::test
