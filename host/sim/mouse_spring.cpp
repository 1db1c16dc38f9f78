#include "host/sim/mouse_spring.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "host/sim/mass_properties.h"
#include "host/sim/quat_double.h"

namespace vkphys {

namespace {

constexpr double kMiss = std::numeric_limits<double>::infinity();

// Entry distance of the unit ray o + t d into the sphere |x - c| = r: the smaller root of
// t^2 + 2 b t + q = 0 with b = d.(o - c), q = |o - c|^2 - r^2; the larger one when the origin is
// inside (q < 0), kMiss when both roots are behind the origin or there are none.
double ray_sphere(glm::dvec3 o, glm::dvec3 d, glm::dvec3 c, double r) {
  const glm::dvec3 oc = o - c;
  const double b = glm::dot(d, oc), q = glm::dot(oc, oc) - r * r;
  const double disc = b * b - q;
  if (disc < 0.0) return kMiss;
  const double s = std::sqrt(disc);
  const double t = -b - s >= 0.0 ? -b - s : -b + s;
  return t >= 0.0 ? t : kMiss;
}

// Slab test in the box's own frame (o, d already rotated into it): the ray is inside all three
// slabs |x_i| <= h_i for t in [max of entries, min of exits].
double ray_box(glm::dvec3 o, glm::dvec3 d, glm::dvec3 h) {
  double enter = 0.0, exit = kMiss;
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0.0) {
      if (std::abs(o[i]) > h[i]) return kMiss;
      continue;
    }
    double t0 = (-h[i] - o[i]) / d[i], t1 = (h[i] - o[i]) / d[i];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    exit = std::min(exit, t1);
  }
  return enter <= exit ? enter : kMiss;
}

// A capsule along its own y axis (core segment |y| <= hh, radius r), in its own frame: the nearer
// of the side (the infinite cylinder x^2 + z^2 = r^2 where |y| <= hh) and the two end spheres.
double ray_capsule(glm::dvec3 o, glm::dvec3 d, double r, double hh) {
  double best = std::min(ray_sphere(o, d, {0.0, hh, 0.0}, r), ray_sphere(o, d, {0.0, -hh, 0.0}, r));
  // (o_xz + t d_xz)^2 = r^2: a t^2 + 2 b t + q = 0.
  const double a = d.x * d.x + d.z * d.z;
  if (a > 0.0) {
    const double b = o.x * d.x + o.z * d.z, q = o.x * o.x + o.z * o.z - r * r;
    const double disc = b * b - a * q;
    if (disc >= 0.0) {
      const double s = std::sqrt(disc);
      for (double t : {(-b - s) / a, (-b + s) / a}) {
        if (t >= 0.0 && std::abs(o.y + t * d.y) <= hh) {
          best = std::min(best, t);
          break;
        }
      }
    }
  }
  return best;
}

}  // namespace

std::optional<Grab> pick(const Scene& scene, const WorldState& state, glm::dvec3 origin,
                         glm::dvec3 dir) {
  std::optional<Grab> best;
  double nearest = kMiss;
  for (std::size_t i = 0; i < scene.bodies.size() && i < state.pos.size(); ++i) {
    const Body& b = scene.bodies[i];
    if (b.mass <= 0.0f) continue;
    const glm::dvec3 c(state.pos[i]);
    const glm::dvec4 q(state.rot[i]);
    const glm::dvec3 o = quat_double::rotate_inv(q, origin - c);
    const glm::dvec3 d = quat_double::rotate_inv(q, dir);
    double t = kMiss;
    if (b.shape == Shape::sphere) t = ray_sphere(o, d, glm::dvec3(0.0), double(b.radius));
    if (b.shape == Shape::box) t = ray_box(o, d, glm::dvec3(b.half_extents));
    if (b.shape == Shape::capsule) t = ray_capsule(o, d, double(b.radius), double(b.half_height));
    if (t < nearest) {
      nearest = t;
      best = Grab{false, static_cast<std::uint32_t>(i), o + t * d, t};
    }
  }
  const Particles& p = state.particles;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p.vel_invmass[i].w <= 0.0f) continue;
    const glm::dvec3 c(p.pos_radius[i]);
    const double t = ray_sphere(origin, dir, c, double(p.pos_radius[i].w));
    if (t < nearest) {
      nearest = t;
      best = Grab{true, static_cast<std::uint32_t>(i), origin + t * dir - c, t};
    }
  }
  return best;
}

glm::dvec3 grabbed_point(const WorldState& state, const Grab& g) {
  if (g.particle) return glm::dvec3(state.particles.pos_radius[g.index]) + g.local;
  return glm::dvec3(state.pos[g.index]) +
         quat_double::rotate(glm::dvec4(state.rot[g.index]), g.local);
}

glm::dvec3 grabbed_velocity(const WorldState& state, const Grab& g) {
  if (g.particle) return glm::dvec3(state.particles.vel_invmass[g.index]);
  const glm::dvec3 r = quat_double::rotate(glm::dvec4(state.rot[g.index]), g.local);
  return glm::dvec3(state.vel[g.index]) + glm::cross(glm::dvec3(state.omega[g.index]), r);
}

glm::dvec3 apply_mouse_spring(const Scene& scene, WorldState& state, const Grab& g,
                              glm::dvec3 target, double h) {
  const double inv_mass =
      double(g.particle ? state.particles.vel_invmass[g.index].w : state.pos[g.index].w);
  if (inv_mass <= 0.0) return glm::dvec3(0.0);
  const double m = 1.0 / inv_mass;
  const double k = m * kMouseOmega * kMouseOmega, c = 2.0 * m * kMouseOmega;
  const glm::dvec3 f =
      spring_force(k, c, target, grabbed_point(state, g), grabbed_velocity(state, g));
  const glm::dvec3 dv = f * (h * inv_mass);
  if (g.particle) {
    glm::vec4& v = state.particles.vel_invmass[g.index];
    v = glm::vec4(glm::dvec3(v) + dv, v.w);
    return f;
  }
  state.vel[g.index] = glm::vec4(glm::dvec3(state.vel[g.index]) + dv, 0.0f);
  // dw = R I^-1 R^T (r x F) h, the inverse inertia applied in the body frame.
  const glm::dvec4 q(state.rot[g.index]);
  const glm::dvec3 r = quat_double::rotate(q, g.local);
  const glm::dvec3 torque_body = quat_double::rotate_inv(q, glm::cross(r, f));
  const glm::dvec3 dw =
      quat_double::rotate(q, glm::dvec3(inverse_inertia(scene.bodies[g.index])) * torque_body) * h;
  state.omega[g.index] = glm::vec4(glm::dvec3(state.omega[g.index]) + dw, 0.0f);
  return f;
}

}  // namespace vkphys
