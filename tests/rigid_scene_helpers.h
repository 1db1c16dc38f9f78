// Small builders for the rigid-body physics tests: one body or two on a plane, an incline, a
// body whose state overflows, and the state a scene loads into.
#pragma once

#include <cmath>
#include <glm/glm.hpp>

#include "host/sim/backend.h"
#include "kernels/quat.h"
#include "vkphys/scene.h"

namespace vkphys::test {

inline Scene empty_rigid_scene(float gravity = -10.0f) {
  Scene s;
  s.name = "test";
  s.settings.gravity = {0.0f, gravity, 0.0f};
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.solver.iterations = 10;
  return s;
}

inline Body make_box(glm::vec3 pos, glm::vec3 half, float mass) {
  Body b;
  b.shape = Shape::box;
  b.half_extents = half;
  b.position = pos;
  b.mass = mass;
  return b;
}

inline Body make_sphere(glm::vec3 pos, float radius, float mass) {
  Body b;
  b.shape = Shape::sphere;
  b.radius = radius;
  b.position = pos;
  b.mass = mass;
  return b;
}

// The state a scene loads into, before any step (read back from the CPU backend).
inline WorldState loaded_state(const Scene& s) {
  auto cpu = make_cpu_backend();
  cpu->load(s);
  WorldState st;
  cpu->read(st);
  return st;
}

inline glm::vec4 axis_angle(glm::vec3 axis, float angle) {
  return kern::quat_axis_angle(glm::normalize(axis), angle);
}

// Two light spheres 5 m apart, body 1 under a force its acceleration cannot hold in a float
// (3e38 N on 1 g): its first step makes body 1's velocity infinite.
inline Scene overforced() {
  Scene s;
  for (int k = 0; k < 2; ++k) {
    Body b;
    b.shape = Shape::sphere;
    b.radius = 0.1f;
    b.mass = 1.0e-3f;
    b.position = {5.0f * float(1 - k), 0.0f, 0.0f};
    b.force = {0.0f, k == 1 ? 3.0e38f : 0.0f, 0.0f};
    s.bodies.push_back(b);
  }
  return s;
}

// A unit box (1 kg) resting on a plane inclined by theta, with friction mu: it sticks when
// tan(theta) < mu and slides with a = g (sin theta - mu cos theta) when tan(theta) > mu.
inline Scene incline_scene(float theta, float mu) {
  Scene s = empty_rigid_scene();
  s.materials[0].friction = mu;
  Plane p;
  p.normal = {-std::sin(theta), std::cos(theta), 0.0f};
  s.planes.push_back(p);
  Body b = make_box(0.5f * p.normal, glm::vec3(0.5f), 1.0f);
  b.orientation = axis_angle({0, 0, 1}, theta);
  s.bodies.push_back(b);
  s.settings.solver.iterations = 20;
  return s;
}

}  // namespace vkphys::test
