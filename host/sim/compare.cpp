#include "host/sim/compare.h"

#include <algorithm>
#include <stdexcept>

namespace vkphys {

StepError state_error(const Particles& a, const Particles& b) {
  if (a.size() != b.size()) throw std::invalid_argument("state_error: particle counts differ");
  StepError e;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double dp = glm::length(glm::dvec3(a.pos_radius[i]) - glm::dvec3(b.pos_radius[i]));
    double dv = glm::length(glm::dvec3(a.vel_invmass[i]) - glm::dvec3(b.vel_invmass[i]));
    e.max_pos = std::max(e.max_pos, dp);
    e.max_vel = std::max(e.max_vel, dv);
    e.mean_pos += dp;
    e.mean_vel += dv;
  }
  if (a.size()) {
    e.mean_pos /= static_cast<double>(a.size());
    e.mean_vel /= static_cast<double>(a.size());
  }
  return e;
}

CompareResult compare_backends(Backend& a, Backend& b, std::uint32_t steps,
                               const CompareTolerance& tol) {
  CompareResult r;
  Particles sa, sb;
  for (std::uint32_t k = 1; k <= steps; ++k) {
    a.step();
    b.step();
    a.read(sa);
    b.read(sb);
    StepError e = state_error(sa, sb);
    e.contacts_a = a.stats().contacts;
    e.contacts_b = b.stats().contacts;
    r.steps.push_back(e);
    if (!r.first_bad && (e.max_pos > tol.position || e.max_vel > tol.velocity)) r.first_bad = k;
  }
  return r;
}

}  // namespace vkphys
