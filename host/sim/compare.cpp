#include "host/sim/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "host/sim/quat_double.h"

namespace vkphys {

namespace {

// max that keeps a NaN (std::max drops it when it comes second).
double max_nan(double m, double x) {
  return std::isnan(m) || std::isnan(x) ? std::numeric_limits<double>::quiet_NaN() : std::max(m, x);
}

}  // namespace

double orientation_error(glm::vec4 qa, glm::vec4 qb) {
  glm::dvec4 a(qa), b(qb);
  const double la = glm::length(a), lb = glm::length(b);
  if (!(la > 0.0) || !(lb > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  a /= la;
  b /= lb;
  const glm::dvec4 d = quat_double::mul(glm::dvec4(-a.x, -a.y, -a.z, a.w), b);
  // 2 atan2(|sin(t/2)|, |cos(t/2)|) is accurate for small angles (acos is not) and folds q / -q.
  return 2.0 * std::atan2(glm::length(glm::dvec3(d)), std::abs(d.w));
}

StepError state_error(const WorldState& a, const WorldState& b, std::size_t count) {
  const std::size_t n = a.pos.size();
  if (b.pos.size() != n || a.rot.size() != n || b.rot.size() != n || a.vel.size() != n ||
      b.vel.size() != n || a.omega.size() != n || b.omega.size() != n) {
    throw std::invalid_argument("state_error: the states differ in size");
  }
  if (count == std::numeric_limits<std::size_t>::max()) count = n;
  if (count > n) throw std::invalid_argument("state_error: fewer bodies than compared");
  StepError e;
  for (std::size_t i = 0; i < count; ++i) {
    const double dp = glm::length(glm::dvec3(a.pos[i]) - glm::dvec3(b.pos[i]));
    const double dr = orientation_error(a.rot[i], b.rot[i]);
    const double dv = glm::length(glm::dvec3(a.vel[i]) - glm::dvec3(b.vel[i]));
    const double dw = glm::length(glm::dvec3(a.omega[i]) - glm::dvec3(b.omega[i]));
    if (i == 0 || dp > e.max_pos || (std::isnan(dp) && !std::isnan(e.max_pos))) {
      e.worst_body = static_cast<std::uint32_t>(i);
    }
    e.max_pos = max_nan(e.max_pos, dp);
    e.max_rot = max_nan(e.max_rot, dr);
    e.max_vel = max_nan(e.max_vel, dv);
    e.max_omega = max_nan(e.max_omega, dw);
    e.mean_pos += dp;
    e.mean_rot += dr;
    e.mean_vel += dv;
    e.mean_omega += dw;
  }
  if (count) {
    const auto c = static_cast<double>(count);
    e.mean_rot /= c;
    e.mean_omega /= c;
  }
  const Particles& pa = a.particles;
  const Particles& pb = b.particles;
  if (pa.size() != pb.size() || pa.vel_invmass.size() != pa.size() ||
      pb.vel_invmass.size() != pb.size()) {
    throw std::invalid_argument("state_error: the particle states differ in size");
  }
  for (std::size_t i = 0; i < pa.size(); ++i) {
    const double dp = glm::length(glm::dvec3(pa.pos_radius[i]) - glm::dvec3(pb.pos_radius[i]));
    const double dv = glm::length(glm::dvec3(pa.vel_invmass[i]) - glm::dvec3(pb.vel_invmass[i]));
    if ((count == 0 && i == 0) || dp > e.max_pos || (std::isnan(dp) && !std::isnan(e.max_pos))) {
      e.worst_body = static_cast<std::uint32_t>(i);
      e.worst_is_particle = true;
    }
    e.max_pos = max_nan(e.max_pos, dp);
    e.max_vel = max_nan(e.max_vel, dv);
    e.mean_pos += dp;
    e.mean_vel += dv;
  }
  if (count + pa.size()) {
    const auto c = static_cast<double>(count + pa.size());
    e.mean_pos /= c;
    e.mean_vel /= c;
  }
  return e;
}

std::string past_tolerance(const StepError& e, const Tolerance& tol) {
  std::string what;
  auto check = [&](double value, double limit, const char* name) {
    if (value <= limit) return;  // false for NaN
    if (!what.empty()) what += ", ";
    what += name;
  };
  check(e.max_pos, tol.position, "position");
  check(e.max_rot, tol.rotation, "rotation");
  check(e.max_vel, tol.velocity, "velocity");
  check(e.max_omega, tol.angular_velocity, "angular velocity");
  return what;
}

Scene nudged_scene(Scene scene, int axis, bool up) {
  const float toward = up ? 1e30f : -1e30f;
  for (Body& b : scene.bodies) b.position[axis] = std::nextafter(b.position[axis], toward);
  for (glm::vec4& x : scene.particles.pos_radius) x[axis] = std::nextafter(x[axis], toward);
  return scene;
}

namespace {

// The largest of each maximum of e and m.
void max_into(StepError& m, const StepError& e) {
  m.max_pos = max_nan(m.max_pos, e.max_pos);
  m.max_rot = max_nan(m.max_rot, e.max_rot);
  m.max_vel = max_nan(m.max_vel, e.max_vel);
  m.max_omega = max_nan(m.max_omega, e.max_omega);
}

}  // namespace

CompareResult compare_backends(Backend& a, Backend& b, std::uint32_t steps, const Tolerance& tol,
                               std::size_t bodies,
                               const std::function<void(std::uint32_t)>& on_step,
                               const Scene* envelope_scene) {
  CompareResult r;
  std::vector<std::unique_ptr<Backend>> nudged;
  if (envelope_scene) {
    for (int axis = 0; axis < 3; ++axis) {
      nudged.push_back(make_cpu_backend());
      nudged.back()->load(nudged_scene(*envelope_scene, axis, axis != 2));
    }
  }
  StepError whole;  // the envelope's maxima over the whole run
  WorldState sa, sb, sn;
  for (std::uint32_t k = 1; k <= steps; ++k) {
    a.step();
    b.step();
    a.read(sa);
    b.read(sb);
    StepError e = state_error(sa, sb, bodies);
    e.points_a = a.stats().points + a.stats().particle_contacts;
    e.points_b = b.stats().points + b.stats().particle_contacts;
    r.steps.push_back(e);
    if (envelope_scene) {
      StepError env;
      for (auto& n : nudged) {
        n->step();
        n->read(sn);
        max_into(env, state_error(sn, sb, bodies));
      }
      max_into(whole, env);
      r.envelope.push_back(env);
    }
    if (on_step) on_step(k);
  }
  r.allowed = tol;
  if (envelope_scene) {
    r.allowed.position = std::max(tol.position, 2.0 * whole.max_pos);
    r.allowed.rotation = std::max(tol.rotation, 2.0 * whole.max_rot);
    r.allowed.velocity = std::max(tol.velocity, 2.0 * whole.max_vel);
    r.allowed.angular_velocity = std::max(tol.angular_velocity, 2.0 * whole.max_omega);
  }
  for (std::uint32_t k = 1; k <= steps && !r.first_bad; ++k) {
    std::string what = past_tolerance(r.steps[k - 1], r.allowed);
    if (!what.empty()) {
      r.first_bad = k;
      r.first_bad_what = std::move(what);
    }
  }
  return r;
}

}  // namespace vkphys
