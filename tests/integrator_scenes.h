// Small scenes for the explicit-integrator tests (tests/test_explicit_integrators.cpp,
// tests/test_force_spring_parity.cpp): a force-spring oscillator and a Kepler orbit; and the
// implicit tests' stiff cloth (tests/test_implicit_integrator.cpp, test_implicit_lines.cpp).
#pragma once

#include <cmath>
#include <numbers>

#include "vkphys/cloth.h"
#include "vkphys/scene.h"

namespace vkphys::test {

// A particle of mass m on a force spring of rest length 1 m and stiffness k from a pinned
// particle at the origin, displaced by d0 along x, no gravity: x'' = -(k/m) (x - 1).
inline Scene oscillator_scene(Integrator integrator, float h, float k, float m, float d0,
                              float c = 0.0f) {
  Scene s;
  s.name = "oscillator";
  s.settings.gravity = glm::vec3(0.0f);
  s.settings.time_step = h;
  s.settings.solver.integrator = integrator;
  s.particles.add(glm::vec3(0.0f), glm::vec3(0.0f), 0.05f, 0.0f, 0);  // pinned
  s.particles.add({1.0f + d0, 0.0f, 0.0f}, glm::vec3(0.0f), 0.05f, m, 0);
  Spring spring;
  spring.a = 0;
  spring.b = 1;
  spring.rest = 1.0f;
  spring.k = k;
  spring.model = SpringModel::force;
  spring.c = c;
  s.springs.push_back(spring);
  return s;
}

// One particle in an inverse-square field of strength GM = 1 at the origin, started at its
// apoapsis (1, 0, 0) on an orbit of eccentricity e (semi-major axis a = 1 / (1 + e)). Its period
// is 2 pi sqrt(a^3); `steps` steps of the scene make one period.
inline Scene kepler_scene(Integrator integrator, double e, std::uint32_t steps) {
  const double a = 1.0 / (1.0 + e);
  const double speed = std::sqrt((1.0 - e) / (1.0 + e) / a);  // vis-viva at r = a (1 + e)
  const double period = 2.0 * std::numbers::pi * std::sqrt(a * a * a);
  Scene s;
  s.name = "kepler";
  s.settings.gravity = glm::vec3(0.0f);
  s.settings.time_step = static_cast<float>(period / steps);
  s.settings.solver.integrator = integrator;
  s.settings.central.strength = 1.0f;
  s.settings.central.law = CentralLaw::inverse_square;
  s.particles.add({1.0f, 0.0f, 0.0f}, {0.0f, static_cast<float>(speed), 0.0f}, 0.01f, 1.0f, 0);
  return s;
}

// A 1.5 m square force-spring cloth of n x n vertices in the x-z plane at y = 0.8, stiff enough
// that the explicit step would need substeps.
inline ClothSpec stiff_cloth(std::uint32_t n) {
  ClothSpec c;
  c.origin = {-0.75f, 0.8f, -0.75f};
  c.u = {1.5f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.5f};
  c.nu = c.nv = n;
  c.density = 0.2f;
  c.model = SpringModel::force;
  c.k_structural = 2000.0f;
  c.k_shear = 200.0f;
  c.k_bend = 20.0f;
  c.c = 0.5f;
  return c;
}

// The rest tests' hanging cloth (ImplicitCloth and ExplicitCloth.HangingDampedClothComesToRest):
// stiff_cloth(16) as a 1 m square 2 m up, pinned at two corners, under `integrator` at step h
// with the compliant cloth tests' light drag (0.001 kg/s, 1.3 /s on a 0.78 g vertex).
inline Scene hanging_stiff_cloth(Integrator integrator, float h) {
  Scene s;
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  s.settings.drag = 0.001f;
  s.settings.time_step = h;
  s.settings.solver.integrator = integrator;
  ClothSpec c = stiff_cloth(16);
  c.origin = {0.0f, 2.0f, 0.0f};
  c.u = {1.0f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.0f};
  c.pins = {{0, 0}, {15, 0}};
  add_cloth(s, c);
  return s;
}

}  // namespace vkphys::test
