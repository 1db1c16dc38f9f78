// Quaternion maths in double for building and reading scenes on the host: quaternions are
// (x, y, z, w) and map body to world, as in kernels/quat.h. Double so that a point placed or
// converted between frames keeps its precision until it is rounded to float once, at the end;
// kernels/quat.h is the float version the step itself uses.
#pragma once

#include <cmath>
#include <glm/glm.hpp>
#include <numbers>

namespace vkphys::quat_double {

// q v q* for a unit quaternion q: body to world (a float quaternion is widened exactly).
inline glm::dvec3 rotate(glm::dvec4 q, glm::dvec3 v) {
  const glm::dvec3 u(q.x, q.y, q.z);
  const glm::dvec3 t = 2.0 * glm::cross(u, v);
  return v + q.w * t + glm::cross(u, t);
}

// q* v q: world to body.
inline glm::dvec3 rotate_inv(glm::dvec4 q, glm::dvec3 v) {
  return rotate(glm::dvec4(-q.x, -q.y, -q.z, q.w), v);
}

// Rotation by `degrees` about `unit_axis`. The callers normalise the axis themselves, each as
// it always has (the scene reader divides by the length it has checked, rigid_scenes.cpp uses
// glm::normalize): the two round differently, and their quaternions must not change.
inline glm::dvec4 axis_angle(glm::dvec3 unit_axis, double degrees) {
  const double half = 0.5 * degrees * std::numbers::pi / 180.0;
  return glm::dvec4(unit_axis * std::sin(half), std::cos(half));
}

// The Hamilton product a b (apply b first, then a).
inline glm::dvec4 mul(glm::dvec4 a, glm::dvec4 b) {
  const glm::dvec3 av(a), bv(b);
  return {a.w * bv + b.w * av + glm::cross(av, bv), a.w * b.w - glm::dot(av, bv)};
}

}  // namespace vkphys::quat_double
