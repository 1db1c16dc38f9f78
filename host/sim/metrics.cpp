#include "host/sim/metrics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "host/sim/finite.h"
#include "host/sim/mass_properties.h"
#include "host/sim/quat_double.h"
#include "host/sim/spring_strain.h"

namespace vkphys {

namespace {

glm::dvec4 normalised(glm::dvec4 q) {
  const double len = glm::length(q);
  return len > 0.0 ? q / len : glm::dvec4(0.0, 0.0, 0.0, 1.0);
}

// A particle's cell (cells of side `cell`), as 64-bit integers: positions are bounded
// (include/vkphys/limits.h) and radii positive, so the quotient fits.
struct Celled {
  std::int64_t z, y, x;
  std::uint32_t index;
  auto cell() const { return std::tie(z, y, x); }
};

// The deepest particle-particle or particle-plane overlap [m], >= 0. Cells of side 2 r_max hold
// every overlapping pair in adjacent cells. The particles sorted by cell (z, then y, then x): the
// three cells of one (y, z) row beside a particle's are one run of that order, and as the
// particles are taken in it, where each of the nine rows' runs begins only moves forward. So nine
// cursors find every neighbour after the sort, with no hash table (a table of cells cost more
// than the CPU step's own broadphase for 100,000 particles listed in no spatial order). Each pair
// is tested once, from the one of its two particles that comes first in the order.
double particle_penetration(const Scene& scene, const Particles& p) {
  double deepest = 0.0;
  float max_r = 0.0f;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const glm::vec4 x = p.pos_radius[i];
    max_r = std::max(max_r, x.w);
    for (const Plane& pl : scene.planes) {
      const double gap =
          glm::dot(glm::dvec3(pl.normal), glm::dvec3(x)) - double(pl.offset) - double(x.w);
      deepest = std::max(deepest, -gap);
    }
  }
  if (p.size() < 2 || !(max_r > 0.0f)) return deepest;
  const double cell = 2.0 * double(max_r);
  std::vector<Celled> sorted;
  sorted.reserve(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    const glm::dvec3 c = glm::floor(glm::dvec3(p.pos_radius[i]) / cell);
    if (!finite(c)) continue;  // a state that is not finite is reported as such, not measured
    sorted.push_back(
        {std::int64_t(c.z), std::int64_t(c.y), std::int64_t(c.x), static_cast<std::uint32_t>(i)});
  }
  std::sort(sorted.begin(), sorted.end(), [](const Celled& a, const Celled& b) {
    return std::tie(a.z, a.y, a.x, a.index) < std::tie(b.z, b.y, b.x, b.index);
  });
  const std::size_t n = sorted.size();
  std::array<std::size_t, 9> cursor{};
  for (std::size_t s = 0; s < n; ++s) {
    const Celled& a = sorted[s];
    const glm::dvec4 pa(p.pos_radius[a.index]);
    for (std::size_t r = 0; r < 9; ++r) {
      const std::int64_t z = a.z + std::int64_t(r / 3) - 1, y = a.y + std::int64_t(r % 3) - 1;
      std::size_t& c = cursor[r];
      while (c < n && sorted[c].cell() < std::make_tuple(z, y, a.x - 1)) ++c;
      for (std::size_t k = std::max(c, s + 1);
           k < n && sorted[k].cell() <= std::make_tuple(z, y, a.x + 1); ++k) {
        const glm::dvec4 pb(p.pos_radius[sorted[k].index]);
        deepest = std::max(deepest, pa.w + pb.w - glm::length(glm::dvec3(pb) - glm::dvec3(pa)));
      }
    }
  }
  return deepest;
}

}  // namespace

double rotational_energy(glm::dvec3 inertia, glm::dvec4 q, glm::dvec3 omega) {
  const glm::dvec3 wb = quat_double::rotate_inv(normalised(q), omega);
  return 0.5 * glm::dot(wb, inertia * wb);
}

glm::dvec3 spin_angular_momentum(glm::dvec3 inertia, glm::dvec4 q, glm::dvec3 omega) {
  const glm::dvec4 qn = normalised(q);
  const glm::dvec3 wb = quat_double::rotate_inv(qn, omega);
  return quat_double::rotate(qn, inertia * wb);
}

MassTable mass_table(const Scene& scene) {
  MassTable t;
  t.mass.reserve(scene.bodies.size());
  t.inertia.reserve(scene.bodies.size());
  for (const Body& b : scene.bodies) {
    const bool dynamic = b.mass > 0.0f;
    t.mass.push_back(dynamic ? double(b.mass) : 0.0);
    t.inertia.push_back(dynamic ? principal_inertia(b) : glm::dvec3(0.0));
  }
  return t;
}

std::optional<BodyRef> first_nonfinite(const WorldState& state) {
  for (std::size_t i = 0; i < state.pos.size(); ++i) {
    if (!finite(state.pos[i]) || !finite(state.rot[i]) || !finite(state.vel[i]) ||
        !finite(state.omega[i])) {
      return BodyRef{static_cast<std::uint32_t>(i), false};
    }
  }
  const Particles& p = state.particles;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!finite(p.pos_radius[i]) || !finite(p.vel_invmass[i])) {
      return BodyRef{static_cast<std::uint32_t>(i), true};
    }
  }
  return std::nullopt;
}

Metrics measure(const MassTable& masses, const Scene& scene, const WorldState& state) {
  const std::size_t n = state.pos.size();
  if (state.rot.size() != n || state.vel.size() != n || state.omega.size() != n) {
    throw std::invalid_argument("measure: the state's arrays differ in length");
  }
  if (n < masses.mass.size() || masses.mass.size() != masses.inertia.size()) {
    throw std::invalid_argument("measure: the state holds fewer bodies than the scene");
  }
  const Particles& p = state.particles;
  if (p.vel_invmass.size() != p.size()) {
    throw std::invalid_argument("measure: the particles' arrays differ in length");
  }
  Metrics m;
  if (std::optional<BodyRef> bad = first_nonfinite(state)) {
    (bad->particle ? m.nonfinite_particle : m.nonfinite_body) = bad->index;
    return m;
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
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double inv_mass = double(p.vel_invmass[i].w);
    if (inv_mass <= 0.0) continue;
    const double mass = 1.0 / inv_mass;
    const glm::dvec3 x(p.pos_radius[i]);
    const glm::dvec3 v(p.vel_invmass[i]);
    m.kinetic_linear += 0.5 * mass * glm::dot(v, v);
    m.potential -= mass * glm::dot(g, x);
    m.momentum += mass * v;
    m.angular_momentum += mass * glm::cross(x, v);
    m.max_speed = std::max(m.max_speed, glm::length(v));
  }
  m.max_penetration = particle_penetration(scene, p);
  return m;
}

Metrics measure(const Scene& scene, const WorldState& state) {
  return measure(mass_table(scene), scene, state);
}

ConstraintErrors constraint_errors(const Scene& scene, const StepTrace& trace,
                                   const WorldState& state) {
  ConstraintErrors e;
  std::size_t overlapping = 0;
  for (std::size_t p = 0; p < trace.pairs.size(); ++p) {
    for (std::uint32_t k = 0; k < std::min(trace.pairs[p].z, 4u) && 4 * p + k < trace.points.size();
         ++k) {
      const double gap = double(trace.points[4 * p + k].w);
      if (!(gap < 0.0)) continue;
      e.max_rigid_penetration = std::max(e.max_rigid_penetration, -gap);
      e.mean_rigid_penetration += -gap;
      ++overlapping;
    }
  }
  if (overlapping) e.mean_rigid_penetration /= static_cast<double>(overlapping);
  for (const Joint& j : scene.joints) {
    if (std::max(j.body_a, j.body_b) >= state.pos.size()) {
      throw std::invalid_argument("constraint_errors: a joint's body is not in the state");
    }
    auto anchor = [&state](std::uint32_t b, glm::vec3 local) {
      return glm::dvec3(state.pos[b]) +
             quat_double::rotate(normalised(glm::dvec4(state.rot[b])), glm::dvec3(local));
    };
    const double d = glm::length(anchor(j.body_b, j.anchor_b) - anchor(j.body_a, j.anchor_a));
    const double err =
        j.type == JointType::distance ? std::abs(d - static_cast<double>(j.length)) : d;
    e.max_joint_error = std::max(e.max_joint_error, err);
    e.mean_joint_error += err;
  }
  if (!scene.joints.empty()) e.mean_joint_error /= static_cast<double>(scene.joints.size());
  if (!scene.springs.empty()) {
    const SpringStrain strain = spring_strain(scene, state);
    e.max_spring_strain = strain.max_ratio - 1.0;
    e.mean_spring_strain = strain.mean;
  }
  return e;
}

}  // namespace vkphys
