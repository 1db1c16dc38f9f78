// What joins particles (host/sim/particle_links.h): springs, checked and turned into the step's
// rows (compliant springs: distance joints) or force lists (force springs), each particle's
// spring partners for self-collision's filter, and the triangles, checked and, under
// forces.wind, listed for the wind's gather. The per-particle lists a force kernel walks (force
// springs, wind triangles) are built alike: a count per particle, an exclusive scan, then the
// entries in scene order, so both backends sum in one fixed order.
#include "host/sim/particle_links.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/sim/closed_surfaces.h"
#include "host/sim/finite.h"

namespace vkphys {
namespace {

// A particle-body spring's body end: a dynamic scene body (a row to a static body would only
// pin the particle, which 1/m = 0 does exactly) and an anchor on or inside its shape.
void check_body_end(const Scene& scene, const Spring& s, const std::string& name) {
  const std::size_t bodies = scene.bodies.size();
  if (s.b >= bodies) {
    throw std::invalid_argument(name + ": body " + std::to_string(s.b) + " out of range (" +
                                std::to_string(bodies) + " bodies)");
  }
  const Body& body = scene.bodies[s.b];
  if (!(body.mass > 0.0f)) {
    throw std::invalid_argument(name + ": body " + std::to_string(s.b) +
                                " is static (mass 0); a spring's body must be dynamic (pin the "
                                "particle instead: 1/m = 0)");
  }
  if (!finite(s.anchor)) throw std::invalid_argument(name + ": anchor is not finite");
  const double out = outside_shape(body, glm::dvec3(s.anchor));
  if (out > kAnchorTolerance) {
    throw std::invalid_argument(
        name + ": anchor (" + std::to_string(s.anchor.x) + ", " + std::to_string(s.anchor.y) +
        ", " + std::to_string(s.anchor.z) + ") lies " + std::to_string(out) + " m outside body " +
        std::to_string(s.b) + "'s " + shape_extent(body) + " (at most 1e-6 m is allowed)");
  }
  if (s.model != SpringModel::compliant) {
    throw std::invalid_argument(name +
                                ": model force joins particles only; a particle-body spring is "
                                "compliant (a SPOOK row)");
  }
}

}  // namespace

void add_springs(const Scene& scene, WorldArrays& w) {
  const std::size_t particles = scene.particles.size();
  std::vector<std::uint32_t> count(particles + 1, 0u);
  for (std::size_t k = 0; k < scene.springs.size(); ++k) {
    const Spring& s = scene.springs[k];
    const std::string name = "spring " + std::to_string(k);
    if (s.a >= particles || (!s.to_body() && s.b >= particles)) {
      throw std::invalid_argument(name + ": particle index out of range (" +
                                  std::to_string(particles) + " particles)");
    }
    if (s.to_body()) {
      check_body_end(scene, s, name);
    } else if (s.a == s.b) {
      throw std::invalid_argument(name + " joins a particle to itself");
    }
    if (!(s.rest >= 0.0f) || !std::isfinite(s.rest)) {
      throw std::invalid_argument(name + ": rest length " + std::to_string(s.rest) +
                                  " must be a finite number >= 0");
    }
    if (s.pull != SpringPull::both && s.pull != SpringPull::tether) {
      throw std::invalid_argument(name + ": unknown pull " +
                                  std::to_string(static_cast<std::uint32_t>(s.pull)));
    }
    if (s.tether() && (s.model != SpringModel::compliant || s.to_body())) {
      throw std::invalid_argument(name +
                                  ": a tether is a compliant row between two particles (model "
                                  "compliant, end_b particle)");
    }
    if (s.model == SpringModel::force) {
      if (!(s.k > 0.0f) || !std::isfinite(s.k) || !(s.c >= 0.0f) || !std::isfinite(s.c)) {
        throw std::invalid_argument(name + ": k " + std::to_string(s.k) + " and c " +
                                    std::to_string(s.c) + " must be finite, k > 0 and c >= 0");
      }
      w.fspring_ends.emplace_back(w.rigid + s.a, w.rigid + s.b);
      w.fspring_params.emplace_back(s.rest, s.k, s.c, 0.0f);
      ++count[s.a];
      ++count[s.b];
      continue;
    }
    if (s.model != SpringModel::compliant) {
      throw std::invalid_argument(name + ": unknown model " +
                                  std::to_string(static_cast<std::uint32_t>(s.model)));
    }
    if (s.c != 0.0f) {
      throw std::invalid_argument(name + ": c = " + std::to_string(s.c) +
                                  " is a force spring's damping; a compliant spring takes d");
    }
    if (!(s.k > 0.0f) || !std::isfinite(s.k) || !(s.d >= 0.0f) || !std::isfinite(s.d)) {
      throw std::invalid_argument(name + ": k " + std::to_string(s.k) + " and d " +
                                  std::to_string(s.d) + " must be finite, k > 0 and d >= 0");
    }
    Joint j;
    j.type = JointType::distance;
    j.length = s.rest;
    j.spook_k = j.limit_k = s.k;
    j.spook_d = j.limit_d = s.d;
    j.anchor_b = s.to_body() ? s.anchor : glm::vec3(0.0f);
    pack_joint(j, w.rigid + s.a, s.to_body() ? s.b : w.rigid + s.b, w);
    if (s.tether()) w.joint_info.back().w |= VKPHYS_JOINT_TETHER;
  }
  // Exclusive scan of the counts, then each spring's two entries in spring order.
  w.fspring_offsets.assign(particles + 1, 0u);
  for (std::size_t p = 0; p < particles; ++p) {
    w.fspring_offsets[p + 1] = w.fspring_offsets[p] + count[p];
  }
  w.fspring_incident.assign(2 * w.fspring_ends.size(), 0u);
  std::vector<std::uint32_t> next(w.fspring_offsets.begin(), w.fspring_offsets.end() - 1);
  for (std::uint32_t f = 0; f < w.force_springs(); ++f) {
    const glm::uvec2 ab = w.fspring_ends[f] - glm::uvec2(w.rigid);
    w.fspring_incident[next[ab.x]++] = f << 1;
    w.fspring_incident[next[ab.y]++] = f << 1 | 1u;
  }
}

void add_wind_triangles(const Scene& scene, WorldArrays& w) {
  const std::size_t particles = scene.particles.size();
  w.wind_offsets.assign(particles + 1, 0u);
  if (!scene.settings.wind) return;
  const std::vector<std::uint32_t> sides = wind_sides(scene.triangles, scene.particles.pos_radius);
  for (std::size_t k = 0; k < scene.triangles.size(); ++k) {
    const Triangle& t = scene.triangles[k];
    w.wind_tris.emplace_back(w.rigid + t.a, w.rigid + t.b, w.rigid + t.c, sides[k]);
    for (std::uint32_t i : {t.a, t.b, t.c}) ++w.wind_offsets[i + 1];
  }
  for (std::size_t p = 0; p < particles; ++p) w.wind_offsets[p + 1] += w.wind_offsets[p];
  w.wind_incident.assign(3 * scene.triangles.size(), 0u);
  std::vector<std::uint32_t> next(w.wind_offsets.begin(), w.wind_offsets.end() - 1);
  for (std::uint32_t k = 0; k < scene.triangles.size(); ++k) {
    const Triangle& t = scene.triangles[k];
    for (std::uint32_t i : {t.a, t.b, t.c}) w.wind_incident[next[i]++] = k;
  }
}

bool any_thickness(const Particles& particles) {
  const std::vector<float>& t = particles.thickness;
  return std::any_of(t.begin(), t.end(), [](float x) { return x > 0.0f; });
}

void add_spring_partners(const Scene& scene, WorldArrays& w) {
  if (!any_thickness(scene.particles)) return;
  const std::size_t particles = scene.particles.size();
  std::vector<std::vector<std::uint32_t>> partners(particles);
  for (const Spring& s : scene.springs) {
    // A tether joins a vertex to a far pin; it holds neither apart (the list stays at most 12
    // long for a cloth vertex).
    if (s.to_body() || s.tether()) continue;
    partners[s.a].push_back(w.rigid + s.b);
    partners[s.b].push_back(w.rigid + s.a);
  }
  w.partner_offsets.assign(particles + 1, 0u);
  for (std::size_t p = 0; p < particles; ++p) {
    std::sort(partners[p].begin(), partners[p].end());
    w.partner_offsets[p + 1] =
        w.partner_offsets[p] + static_cast<std::uint32_t>(partners[p].size());
    w.partner_list.insert(w.partner_list.end(), partners[p].begin(), partners[p].end());
  }
}

void check_triangles(const Scene& scene) {
  const std::size_t particles = scene.particles.size();
  for (std::size_t k = 0; k < scene.triangles.size(); ++k) {
    const Triangle& t = scene.triangles[k];
    const std::string name = "triangle " + std::to_string(k);
    for (std::uint32_t i : {t.a, t.b, t.c}) {
      if (i >= particles) {
        throw std::invalid_argument(name + ": particle index " + std::to_string(i) +
                                    " out of range (" + std::to_string(particles) + " particles)");
      }
    }
    if (t.a == t.b || t.b == t.c || t.a == t.c) {
      throw std::invalid_argument(name + " is degenerate: it names particle " +
                                  std::to_string(t.a == t.b || t.a == t.c ? t.a : t.b) +
                                  " twice (a triangle joins three different particles)");
    }
  }
}

double outside_shape(const Body& b, glm::dvec3 p) {
  switch (b.shape) {
    case Shape::box: {
      const glm::dvec3 q = glm::max(glm::abs(p) - glm::dvec3(b.half_extents), 0.0);
      return glm::length(q);
    }
    case Shape::sphere:
      return std::max(glm::length(p) - double(b.radius), 0.0);
    case Shape::capsule: {
      const double y = std::clamp(p.y, -double(b.half_height), double(b.half_height));
      return std::max(glm::length(p - glm::dvec3(0.0, y, 0.0)) - double(b.radius), 0.0);
    }
    default:
      return 0.0;  // a shapeless body (or a plane, refused elsewhere) has no outside
  }
}

std::string shape_extent(const Body& b) {
  switch (b.shape) {
    case Shape::box:
      return "box (half extents " + std::to_string(b.half_extents.x) + ", " +
             std::to_string(b.half_extents.y) + ", " + std::to_string(b.half_extents.z) + ")";
    case Shape::sphere:
      return "sphere (radius " + std::to_string(b.radius) + ")";
    case Shape::capsule:
      return "capsule (radius " + std::to_string(b.radius) + ", half height " +
             std::to_string(b.half_height) + ")";
    default:
      return shape_name(b.shape);
  }
}

}  // namespace vkphys
