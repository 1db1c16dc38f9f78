#include "host/sim/rigid_metrics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "host/sim/mass_properties.h"

namespace vkphys {

namespace {

// v rotated by the unit quaternion q = (u, w): v + 2 w (u x v) + 2 u x (u x v).
glm::dvec3 rotate(glm::dvec4 q, glm::dvec3 v) {
  const glm::dvec3 u(q);
  const glm::dvec3 t = 2.0 * glm::cross(u, v);
  return v + q.w * t + glm::cross(u, t);
}

glm::dvec4 normalised(glm::dvec4 q) {
  const double len = glm::length(q);
  return len > 0.0 ? q / len : glm::dvec4(0.0, 0.0, 0.0, 1.0);
}

glm::dvec4 conjugate(glm::dvec4 q) {
  return {-q.x, -q.y, -q.z, q.w};
}

bool finite(const glm::vec4& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
}

}  // namespace

double rotational_energy(glm::dvec3 inertia, glm::dvec4 q, glm::dvec3 omega) {
  const glm::dvec3 wb = rotate(conjugate(normalised(q)), omega);
  return 0.5 * glm::dot(wb, inertia * wb);
}

glm::dvec3 spin_angular_momentum(glm::dvec3 inertia, glm::dvec4 q, glm::dvec3 omega) {
  const glm::dvec4 qn = normalised(q);
  const glm::dvec3 wb = rotate(conjugate(qn), omega);
  return rotate(qn, inertia * wb);
}

RigidMassTable rigid_mass_table(const Scene& scene) {
  RigidMassTable t;
  t.mass.reserve(scene.bodies.size());
  t.inertia.reserve(scene.bodies.size());
  for (const Body& b : scene.bodies) {
    const bool dynamic = b.mass > 0.0f;
    t.mass.push_back(dynamic ? double(b.mass) : 0.0);
    t.inertia.push_back(dynamic ? principal_inertia(b) : glm::dvec3(0.0));
  }
  return t;
}

RigidMetrics measure_rigid(const RigidMassTable& masses, const Scene& scene,
                           const RigidState& state) {
  const std::size_t n = state.pos.size();
  if (state.rot.size() != n || state.vel.size() != n || state.omega.size() != n) {
    throw std::invalid_argument("measure_rigid: the state's arrays differ in length");
  }
  if (n < masses.mass.size() || masses.mass.size() != masses.inertia.size()) {
    throw std::invalid_argument("measure_rigid: the state holds fewer bodies than the scene");
  }
  RigidMetrics m;
  for (std::size_t i = 0; i < n; ++i) {
    if (!finite(state.pos[i]) || !finite(state.rot[i]) || !finite(state.vel[i]) ||
        !finite(state.omega[i])) {
      m.nonfinite_body = static_cast<std::uint32_t>(i);
      return m;
    }
  }
  const glm::dvec3 g(scene.settings.gravity);
  for (std::size_t i = 0; i < masses.mass.size(); ++i) {
    const double mass = masses.mass[i];
    if (mass <= 0.0) continue;
    const glm::dvec3 x(state.pos[i]);
    const glm::dvec3 v(state.vel[i]);
    const glm::dvec3 w(state.omega[i]);
    const glm::dvec4 q(state.rot[i]);
    m.kinetic_linear += 0.5 * mass * glm::dot(v, v);
    m.kinetic_rotational += rotational_energy(masses.inertia[i], q, w);
    m.potential -= mass * glm::dot(g, x);
    m.momentum += mass * v;
    m.angular_momentum += mass * glm::cross(x, v) + spin_angular_momentum(masses.inertia[i], q, w);
    m.max_speed = std::max(m.max_speed, glm::length(v));
    m.max_angular_speed = std::max(m.max_angular_speed, glm::length(w));
  }
  return m;
}

RigidMetrics measure_rigid(const Scene& scene, const RigidState& state) {
  return measure_rigid(rigid_mass_table(scene), scene, state);
}

}  // namespace vkphys
