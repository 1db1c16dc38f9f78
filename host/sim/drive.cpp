#include "host/sim/drive.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "host/sim/finite.h"
#include "host/sim/quat_double.h"

namespace vkphys {

namespace {

// The world index of a target, after checking it exists (`what` names the entry).
std::uint32_t body_of(const Scene& scene, std::uint32_t rigid, const Target& t,
                      const std::string& what) {
  const std::size_t count = t.particle ? scene.particles.size() : scene.bodies.size();
  if (t.index >= count) {
    throw std::invalid_argument(what + ": " + (t.particle ? "particle " : "body ") +
                                std::to_string(t.index) + " does not exist (" +
                                std::to_string(count) + (t.particle ? " particles)" : " bodies)"));
  }
  return t.particle ? rigid + t.index : t.index;
}

}  // namespace

Drive::Drive(const Scene& scene, std::uint32_t rigid)
    : h_(static_cast<double>(scene.settings.time_step)) {
  std::vector<bool> driven(rigid + scene.particles.size(), false);
  for (std::size_t k = 0; k < scene.kinematic.size(); ++k) {
    const KinematicPath& kp = scene.kinematic[k];
    const std::string what = "kinematic[" + std::to_string(k) + "]";
    Path p;
    p.body = body_of(scene, rigid, kp.target, what);
    if (driven[p.body]) throw std::invalid_argument(what + ": its target already has a path");
    driven[p.body] = true;
    if (!finite(kp.velocity) || !finite(kp.amplitude) || !finite(kp.angular_velocity) ||
        !std::isfinite(kp.phase) || !std::isfinite(kp.frequency) || kp.frequency < 0.0f) {
      throw std::invalid_argument(what +
                                  ": velocity, amplitude, angular velocity and phase must "
                                  "be finite and the frequency finite and >= 0");
    }
    if (kp.target.particle && kp.angular_velocity != glm::vec3(0.0f)) {
      throw std::invalid_argument(what + ": a particle has no orientation to turn");
    }
    if (kp.target.particle) {
      p.x0 = glm::dvec3(scene.particles.pos_radius[kp.target.index]);
    } else {
      const Body& b = scene.bodies[kp.target.index];
      p.x0 = glm::dvec3(b.position);
      p.q0 = glm::dvec4(b.orientation) / glm::length(glm::dvec4(b.orientation));
    }
    p.velocity = glm::dvec3(kp.velocity);
    p.amplitude = glm::dvec3(kp.amplitude);
    p.omega = glm::dvec3(kp.angular_velocity);
    p.frequency = double(kp.frequency);
    p.phase = double(kp.phase);
    paths_.push_back(p);
  }
  for (std::size_t m = 0; m < scene.impulses.size(); ++m) {
    const ScheduledImpulse& si = scene.impulses[m];
    const std::string what = "impulses[" + std::to_string(m) + "]";
    Impulse imp;
    imp.body = body_of(scene, rigid, si.target, what);
    if (!std::isfinite(si.time) || si.time < 0.0f || !finite(si.impulse) || !finite(si.point)) {
      throw std::invalid_argument(what +
                                  ": time must be finite and >= 0, impulse and point "
                                  "finite");
    }
    const bool has_mass = si.target.particle ? scene.particles.vel_invmass[si.target.index].w > 0.0f
                                             : scene.bodies[si.target.index].mass > 0.0f;
    if (!has_mass || driven[imp.body]) {
      throw std::invalid_argument(what +
                                  ": its target is static or kinematic, so the impulse "
                                  "would do nothing");
    }
    imp.step = static_cast<std::uint64_t>(std::floor(static_cast<double>(si.time) / h_));
    imp.impulse = si.impulse;
    imp.point = si.point;
    impulses_.push_back(imp);
  }
  std::stable_sort(impulses_.begin(), impulses_.end(),
                   [](const Impulse& a, const Impulse& b) { return a.step < b.step; });
  for (std::size_t a = 0; a < impulses_.size();) {
    std::size_t b = a;
    while (b < impulses_.size() && impulses_[b].step == impulses_[a].step) ++b;
    max_per_step_ = std::max(max_per_step_, static_cast<std::uint32_t>(b - a));
    a = b;
  }
}

bool Drive::kinematic(std::uint32_t i) const {
  return std::any_of(paths_.begin(), paths_.end(), [i](const Path& p) { return p.body == i; });
}

glm::dvec3 Drive::position(const Path& p, double t) const {
  const double arg = 2.0 * std::numbers::pi * p.frequency * t + p.phase;
  return p.x0 + p.velocity * t + p.amplitude * (std::sin(arg) - std::sin(p.phase));
}

void Drive::step(std::uint64_t k, std::vector<glm::vec4>& paths,
                 std::vector<glm::vec4>& impulses) const {
  const double t0 = static_cast<double>(k) * h_, t1 = static_cast<double>(k + 1) * h_;
  paths.clear();
  for (const Path& p : paths_) {
    const glm::dvec3 x1 = position(p, t1);
    const glm::dvec3 v = (x1 - position(p, t0)) / h_;
    const double angle = glm::length(p.omega) * t1;
    const glm::dvec3 axis = angle > 0.0 ? glm::normalize(p.omega) : glm::dvec3(0.0, 1.0, 0.0);
    const glm::dvec4 turn(axis * std::sin(0.5 * angle), std::cos(0.5 * angle));
    const glm::dvec4 q1 = quat_double::mul(turn, p.q0);
    paths.emplace_back(glm::vec3(v), std::bit_cast<float>(p.body));
    paths.emplace_back(glm::vec3(p.omega), 0.0f);
    paths.emplace_back(glm::vec3(x1), 0.0f);
    paths.push_back(glm::vec4(q1));
  }
  impulses.clear();
  auto first = std::lower_bound(impulses_.begin(), impulses_.end(), k,
                                [](const Impulse& m, std::uint64_t s) { return m.step < s; });
  for (auto it = first; it != impulses_.end() && it->step == k; ++it) {
    impulses.emplace_back(it->impulse, std::bit_cast<float>(it->body));
    impulses.emplace_back(it->point, 0.0f);
  }
}

}  // namespace vkphys
