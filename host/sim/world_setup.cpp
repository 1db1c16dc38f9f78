#include "host/sim/world_setup.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "host/sim/finite.h"
#include "host/sim/joint_trees.h"
#include "host/sim/mass_properties.h"
#include "host/sim/traffic_model.h"
#include "kernels/ode.h"
#include "kernels/radix.h"

namespace vkphys {

const char* stage_name(Stage s) {
#define VKPHYS_STAGE_NAME(name) #name,
  static const char* const names[] = {VKPHYS_STAGE_TABLE(VKPHYS_STAGE_NAME)};
#undef VKPHYS_STAGE_NAME
  return names[static_cast<std::size_t>(s)];
}

namespace {

// Quaternion (x, y, z, w) turning +y into the unit vector n.
glm::vec4 rotation_from_y(glm::vec3 n) {
  const glm::vec3 y(0.0f, 1.0f, 0.0f);
  const float c = glm::dot(y, n);
  if (c < -0.999999f) return {0.0f, 0.0f, 1.0f, 0.0f};  // half turn about z
  const glm::vec3 axis = glm::cross(y, n);
  glm::vec4 q(axis, 1.0f + c);
  return q / glm::length(q);
}

// Joint j between world bodies a and b: its info, its frames (kernels/world_layout.h) and its
// row count.
void pack_joint(const Joint& j, std::uint32_t a, std::uint32_t b, WorldArrays& w) {
  w.joint_info.emplace_back(a, b, static_cast<std::uint32_t>(j.type), j.limited ? 1u : 0u);
  w.joint_frames.emplace_back(j.anchor_a, j.length);
  w.joint_frames.emplace_back(j.anchor_b, 0.0f);
  w.joint_frames.emplace_back(glm::normalize(j.axis_a), 0.0f);
  w.joint_frames.emplace_back(glm::normalize(j.axis_b), 0.0f);
  w.joint_frames.emplace_back(j.ref_a, 0.0f);
  w.joint_frames.emplace_back(j.ref_b, 0.0f);
  w.joint_frames.emplace_back(j.limit_lo, 0.0f);
  w.joint_frames.emplace_back(j.limit_hi, 0.0f);
  w.joint_frames.emplace_back(j.spook_k, j.spook_d, j.limit_k, j.limit_d);
  w.joint_rows += kern::joint_row_count(static_cast<std::uint32_t>(j.type), j.limited);
}

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

// Compliant springs become distance joints between particles (world indices R + a, R + b) with
// anchors at their centres, after the scene's joints; a particle-body spring is the same joint
// with its b end at the anchor on body b (kernels/joints.inl gives it the lever arm). Force
// springs go to their own list, and each particle gets the list of its force springs in spring
// order (kernels/world_ode.inl sums them in that order).
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

// With forces.wind, every scene triangle feels the wind: its world indices and, per particle,
// the triangles it is a vertex of in triangle order (an exclusive scan of the counts, then each
// triangle's three entries), which the wind's gather walks (kernels/world_ode.inl).
void add_wind_triangles(const Scene& scene, WorldArrays& w) {
  const std::size_t particles = scene.particles.size();
  w.wind_offsets.assign(particles + 1, 0u);
  if (!scene.settings.wind) return;
  for (const Triangle& t : scene.triangles) {
    w.wind_tris.emplace_back(w.rigid + t.a, w.rigid + t.b, w.rigid + t.c, 0u);
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

// Whether some particle has a thickness (self-collision is on).
bool any_thickness(const Particles& particles) {
  const std::vector<float>& t = particles.thickness;
  return std::any_of(t.begin(), t.end(), [](float x) { return x > 0.0f; });
}

// Each particle's spring partners as world indices, ascending, for self-collision's pair filter
// (kernels/particle_grid.inl, spring_partners); only when some particle has a thickness. Runs
// after add_springs checked the springs' ends.
void add_spring_partners(const Scene& scene, WorldArrays& w) {
  if (!any_thickness(scene.particles)) return;
  const std::size_t particles = scene.particles.size();
  std::vector<std::vector<std::uint32_t>> partners(particles);
  for (const Spring& s : scene.springs) {
    if (s.to_body()) continue;
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

// Triangles carry no physics, but the pictures and the VTK frames index particles by them.
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

void check_finite(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what + " is not finite");
}

}  // namespace

std::uint32_t union_find_root(std::vector<std::uint32_t>& parent, std::uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

WorldArrays build_world(const Scene& scene) {
  WorldArrays w;
  if (scene.planes.size() > VKPHYS_MAX_PLANES) {
    throw std::invalid_argument(std::to_string(scene.planes.size()) + " planes; at most " +
                                std::to_string(VKPHYS_MAX_PLANES) + " are supported");
  }
  const std::size_t total = scene.bodies.size() + scene.planes.size();
  if (total >= (1u << 24)) {
    throw std::invalid_argument(std::to_string(total) +
                                " rigid bodies and planes; at most 2^24 - 1 are supported");
  }
  auto check_material = [&](std::uint32_t m, const std::string& name) {
    if (m >= scene.materials.size()) {
      throw std::invalid_argument(name + ": material " + std::to_string(m) + " does not exist (" +
                                  std::to_string(scene.materials.size()) + " materials)");
    }
  };
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const Body& b = scene.bodies[i];
    const std::string name = "body " + std::to_string(i);
    check_material(b.material, name);
    check_finite(std::isfinite(b.mass) && b.mass >= 0.0f, name + " mass");
    check_finite(finite(b.position) && finite(b.velocity) && finite(b.angular_velocity),
                 name + " state");
    check_finite(finite(b.force) && finite(b.torque), name + " force or torque");
    if (b.shape == Shape::plane) {
      throw std::invalid_argument(name + ": planes are scene planes, not bodies");
    }
    const float qlen = glm::length(b.orientation);
    if (!(qlen > 0.0f) || !std::isfinite(qlen)) {
      throw std::invalid_argument(name + ": orientation is not a rotation");
    }
    glm::vec4 dims(0.0f);
    switch (b.shape) {
      case Shape::sphere:
        dims = {0.0f, 0.0f, 0.0f, b.radius};
        break;
      case Shape::capsule:
        dims = {0.0f, b.half_height, 0.0f, b.radius};
        break;
      case Shape::box:
        dims = {b.half_extents, 0.0f};
        break;
      default:
        break;
    }
    if (b.shape != Shape::none) ++w.sweepers;
    w.pos.emplace_back(b.position, 0.0f);
    w.vel.emplace_back(b.velocity, b.mass > 0.0f ? 1.0f / b.mass : 0.0f);
    w.rot.push_back(b.orientation / qlen);
    w.omega.emplace_back(b.angular_velocity, 0.0f);
    w.inertia.emplace_back(inverse_inertia(b), 0.0f);
    w.dims.push_back(dims);
    w.force.emplace_back(b.force, 0.0f);
    w.torque.emplace_back(b.torque, 0.0f);
    w.info.emplace_back(static_cast<std::uint32_t>(b.shape), b.material, 0u, 0u);
  }
  for (std::size_t k = 0; k < scene.planes.size(); ++k) {
    const Plane& p = scene.planes[k];
    check_material(p.material, "plane " + std::to_string(k));
    w.plane_bodies.push_back(w.bodies());
    w.pos.emplace_back(p.normal * p.offset, 0.0f);
    w.vel.emplace_back(0.0f);
    w.rot.push_back(rotation_from_y(glm::normalize(p.normal)));
    w.omega.emplace_back(0.0f);
    w.inertia.emplace_back(0.0f);
    w.dims.emplace_back(0.0f);
    w.force.emplace_back(0.0f);
    w.torque.emplace_back(0.0f);
    w.info.emplace_back(static_cast<std::uint32_t>(Shape::plane), p.material, 0u, 0u);
  }
  w.rigid = w.bodies();
  const Particles& pt = scene.particles;
  if (pt.pos_radius.size() != pt.vel_invmass.size() || pt.material.size() != pt.size() ||
      (!pt.group.empty() && pt.group.size() != pt.size()) ||
      (!pt.thickness.empty() && pt.thickness.size() != pt.size())) {
    throw std::invalid_argument(
        "particles: position, velocity, material, group and thickness lists differ in "
        "length");
  }
  if (pt.size() > (1u << 26)) {
    throw std::invalid_argument(std::to_string(pt.size()) +
                                " particles; at most 2^26 are supported");
  }
  for (std::size_t i = 0; i < pt.size(); ++i) {
    const std::string name = "particle " + std::to_string(i);
    const glm::vec4 x = pt.pos_radius[i];
    const glm::vec4 v = pt.vel_invmass[i];
    check_material(pt.material[i], name);
    check_finite(finite(glm::vec3(x)) && finite(glm::vec3(v)), name + " state");
    if (!(x.w > 0.0f) || !std::isfinite(x.w)) {
      throw std::invalid_argument(name + ": radius " + std::to_string(x.w) +
                                  " must be a finite number > 0");
    }
    check_finite(std::isfinite(v.w) && v.w >= 0.0f, name + " inverse mass");
    const float t = pt.thickness.empty() ? 0.0f : pt.thickness[i];
    if (!(t >= 0.0f) || !std::isfinite(t)) {
      throw std::invalid_argument(name + ": thickness " + std::to_string(t) +
                                  " m must be a finite number >= 0 (0: none)");
    }
    w.max_particle_radius = std::max(w.max_particle_radius, x.w);
    w.max_pair_radius = std::max(w.max_pair_radius, std::max(x.w, 0.5f * t));
    w.pos.push_back(x);
    w.vel.push_back(v);
    // Rigid groups are 1 .. R (below); a particle group g becomes R + g.
    const std::uint32_t group = pt.group.empty() || pt.group[i] == 0u ? 0u : w.rigid + pt.group[i];
    w.info.emplace_back(static_cast<std::uint32_t>(Shape::sphere), pt.material[i], group,
                        std::bit_cast<std::uint32_t>(0.5f * t));
  }
  w.drive = Drive(scene, w.rigid);
  for (std::uint32_t i = 0; i < w.bodies(); ++i) {
    if (!w.drive.kinematic(i)) continue;
    w.vel[i].w = 0.0f;  // infinite mass while driven
    if (i < w.rigid) w.inertia[i] = glm::vec4(0.0f);
  }
  // Collision groups: union-find over joints between dynamic bodies.
  std::vector<std::uint32_t> parent(w.rigid);
  std::iota(parent.begin(), parent.end(), 0u);
  for (std::size_t k = 0; k < scene.joints.size(); ++k) {
    const Joint& j = scene.joints[k];
    const std::string name = "joint " + std::to_string(k);
    if (j.body_a >= scene.bodies.size() || j.body_b >= scene.bodies.size()) {
      throw std::invalid_argument(name + ": body index out of range (" +
                                  std::to_string(scene.bodies.size()) + " bodies)");
    }
    if (j.body_a == j.body_b) throw std::invalid_argument(name + " joins a body to itself");
    if (scene.bodies[j.body_a].mass > 0.0f && scene.bodies[j.body_b].mass > 0.0f) {
      parent[union_find_root(parent, j.body_a)] = union_find_root(parent, j.body_b);
    }
    pack_joint(j, j.body_a, j.body_b, w);
  }
  add_springs(scene, w);
  build_joint_trees(scene, w);
  add_spring_partners(scene, w);
  check_triangles(scene);
  add_wind_triangles(scene, w);
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) {
    w.info[i].z = union_find_root(parent, i) + 1u;
  }
  // A group only matters when it has two or more members: singletons get group 0.
  std::vector<std::uint32_t> members(w.rigid, 0u);
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) ++members[w.info[i].z - 1u];
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) {
    if (members[w.info[i].z - 1u] < 2u) w.info[i].z = 0u;
  }
  return w;
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

Capacities default_capacities(const WorldArrays& world) {
  // Pairs: 4 per rigid body (a box on a pile touches about that many). Particle contacts: 4
  // per particle (a settled pile has about 6 neighbours, each contact owned by one of the two).
  Capacities c;
  c.pairs = std::max(64u, 4u * world.rigid);
  c.contacts = world.particles() ? std::max(1024u, 4u * world.particles()) : 0u;
  return c;
}

Capacities grown_capacities(const Capacities& now, std::uint32_t pairs, std::uint32_t contacts,
                            std::uint32_t joints) {
  constexpr std::uint64_t limit = (1u << 24) - 1u;
  // A total that reached the scans' saturation is only known to be at least that.
  auto count = [](std::uint32_t n) {
    return n >= VKPHYS_SCAN_LIMIT ? std::string("2^31 or more") : std::to_string(n);
  };
  const char* advice = " (use fewer bodies or particles, or a smaller contact_margin)";
  for (const auto& [needed, what] : {std::pair{pairs, "pairs"}, {contacts, "particle contacts"}}) {
    if (needed > limit) {
      throw std::runtime_error(count(needed) + " " + what +
                               " needed in one step; at most 2^24 - 1 fit" + advice);
    }
  }
  const std::uint64_t need_pairs = std::max(pairs, now.pairs);
  const std::uint64_t need_contacts = std::max(contacts, now.contacts);
  if (joints + need_pairs + need_contacts > limit) {
    throw std::runtime_error(std::to_string(joints) + " joints + " + std::to_string(need_pairs) +
                             " pairs + " + std::to_string(need_contacts) +
                             " particle contacts needed in one step; the solver takes at most "
                             "2^24 - 1 units" +
                             advice);
  }
  std::uint64_t room = limit - joints - need_pairs - need_contacts;
  auto grow = [&room](std::uint64_t need) {
    const std::uint64_t extra = std::min(need / 2u + 64u, room);
    room -= extra;
    return static_cast<std::uint32_t>(need + extra);
  };
  Capacities next = now;
  if (pairs > now.pairs) next.pairs = grow(need_pairs);
  if (contacts > now.contacts) next.contacts = grow(need_contacts);
  return next;
}

std::uint32_t grid_table_size(std::uint32_t particles) {
  return std::bit_ceil(std::max<std::uint32_t>(64u, 2u * particles));
}

std::uint32_t pair_hash_size(std::uint32_t pair_capacity) {
  return std::bit_ceil(std::max(2u * pair_capacity, 64u));
}

namespace {

// The speculative contact margin. Positive: as given. Otherwise automatic: 2 cm when the scene
// has rigid bodies (their default since the rigid-body step began), else 5% of the largest
// particle radius; an explicit 0 in a scene of particles only is no margin at all.
float contact_margin(const Settings& s, const WorldArrays& w) {
  if (s.contact_margin > 0.0f) return s.contact_margin;
  if (w.sweepers > 0) return 0.02f;
  return s.contact_margin == 0.0f ? 0.0f : 0.05f * w.max_particle_radius;
}

// solver.integrator and solver.adaptive (vkphys/scene.h).
void check_integrator(const SolverSettings& sv) {
  if (static_cast<std::uint32_t>(sv.integrator) > VKPHYS_INTEGRATOR_IMPLICIT) {
    throw std::invalid_argument(
        "solver.integrator = " + std::to_string(static_cast<std::uint32_t>(sv.integrator)) +
        ": must be symplectic, euler, midpoint, rk4 or implicit");
  }
  if (!(sv.cg_tolerance > 0.0f && sv.cg_tolerance < 1.0f)) {
    throw std::invalid_argument("solver.cg_tolerance = " + std::to_string(sv.cg_tolerance) +
                                ": must be in (0, 1) (the residual relative to the right-hand "
                                "side)");
  }
  if (sv.cg_max_iterations < 1 || sv.cg_max_iterations > 1000) {
    throw std::invalid_argument("solver.cg_max_iterations = " +
                                std::to_string(sv.cg_max_iterations) + ": must be in [1, 1000]");
  }
  const AdaptiveStep& a = sv.adaptive;
  if (!(a.tolerance >= 0.0f) || !std::isfinite(a.tolerance)) {
    throw std::invalid_argument("solver.adaptive.tolerance = " + std::to_string(a.tolerance) +
                                ": must be a finite number >= 0 (0: a fixed step)");
  }
  if (a.max_steps < 1 || a.max_steps > 4096) {
    throw std::invalid_argument("solver.adaptive.max_steps = " + std::to_string(a.max_steps) +
                                ": must be in [1, 4096]");
  }
  if (a.tolerance > 0.0f &&
      (sv.integrator == Integrator::symplectic || sv.integrator == Integrator::implicit)) {
    throw std::invalid_argument(
        "solver.adaptive needs an explicit solver.integrator (euler, midpoint or rk4); the "
        "symplectic step is refined with solver.substeps, the implicit one needs no error "
        "control");
  }
}

// Whether any two particles may collide: not when every particle is in one nonzero group (a
// lone cloth, rope or soft body, whose own particles never collide). The grid's neighbour scan
// is then skipped; it took 28% of a 64 x 64 hanging cloth's CPU step and found nothing.
bool particle_pairs_possible(const Particles& particles) {
  const std::vector<std::uint32_t>& g = particles.group;
  if (particles.size() < 2) return false;
  if (g.empty() || g.front() == 0u) return true;
  // A thickness turns self-collision on: the group's own particles may then collide.
  if (any_thickness(particles)) return true;
  return std::any_of(g.begin(), g.end(), [&](std::uint32_t x) { return x != g.front(); });
}

}  // namespace

kern::WorldParams make_world_params(const Scene& scene, const WorldArrays& world,
                                    const Capacities& cap) {
  const Settings& s = scene.settings;
  const SolverSettings& sv = s.solver;
  kern::WorldParams p{};
  if (sv.substeps < 1 || sv.substeps > 64) {
    throw std::invalid_argument("solver.substeps = " + std::to_string(sv.substeps) +
                                ": must be in [1, 64]");
  }
  if (sv.relax_iterations > 1000) {
    throw std::invalid_argument("solver.relax_iterations = " + std::to_string(sv.relax_iterations) +
                                ": must be <= 1000");
  }
  if (world.particles() > 0 && sv.split_impulse) {
    throw std::invalid_argument(
        "solver.split_impulse is not supported in scenes with particles (a particle keeps no "
        "second velocity to integrate with); use solver.substeps with relax_iterations instead");
  }
  check_integrator(sv);
  if (sv.split_impulse && sv.substeps > 1) {
    throw std::invalid_argument(
        "solver.split_impulse and solver.substeps > 1 both remove the position correction's "
        "velocity; choose one (the substeps' relax sweeps do it with substeps)");
  }
  // Every kernel steps by the substep: forces, targets, SPOOK coefficients, integration.
  p.gravity_dt = glm::vec4(s.gravity, s.time_step / static_cast<float>(sv.substeps));
  p.solver =
      glm::vec4(sv.relaxation, sv.restitution_threshold, sv.friction ? 1.0f : 0.0f, sv.warm_start);
  const float margin = contact_margin(s, world);
  if (!(sv.contact_hertz >= 0.0f) || !std::isfinite(sv.contact_hertz)) {
    throw std::invalid_argument("solver.contact_hertz = " + std::to_string(sv.contact_hertz) +
                                ": must be a finite number >= 0");
  }
  if (!(s.drag >= 0.0f) || !std::isfinite(s.drag)) {
    throw std::invalid_argument("drag = " + std::to_string(s.drag) +
                                ": must be a finite number >= 0");
  }
  // A row's SPOOK relaxation d is counted in steps; a substep's rows count it in substeps.
  p.contact =
      glm::vec4(margin, glm::length(s.gravity), sv.contact_hertz, static_cast<float>(sv.substeps));
  const QuadraticDrag& qd = s.quadratic_drag;
  if (!(qd.density >= 0.0f) || !std::isfinite(qd.density) || !(qd.coefficient >= 0.0f) ||
      !std::isfinite(qd.coefficient)) {
    throw std::invalid_argument("forces.quadratic_drag: density " + std::to_string(qd.density) +
                                " and coefficient " + std::to_string(qd.coefficient) +
                                " must be finite numbers >= 0");
  }
  p.drag = glm::vec4(s.drag, 0.5f * qd.density * qd.coefficient, 0.0f, 0.0f);
  const CentralField& cf = s.central;
  if (!(cf.strength >= 0.0f) || !std::isfinite(cf.strength) || !finite(cf.center) ||
      (cf.law != CentralLaw::inverse_square && cf.law != CentralLaw::linear)) {
    throw std::invalid_argument("forces.central: strength " + std::to_string(cf.strength) +
                                " must be finite and >= 0, the centre finite, the law known");
  }
  p.central = glm::vec4(cf.center, cf.strength);
  if (s.wind) {
    const Wind& wind = *s.wind;
    if (!finite(wind.velocity)) {
      throw std::invalid_argument("forces.wind.velocity = (" + std::to_string(wind.velocity.x) +
                                  ", " + std::to_string(wind.velocity.y) + ", " +
                                  std::to_string(wind.velocity.z) + "): must be finite");
    }
    const std::pair<const char*, float> coefficients[] = {
        {"density", wind.density}, {"drag", wind.drag}, {"lift", wind.lift}};
    for (const auto& [name, value] : coefficients) {
      if (!(value >= 0.0f) || !std::isfinite(value)) {
        throw std::invalid_argument(std::string("forces.wind.") + name + " = " +
                                    std::to_string(value) + ": must be a finite number >= 0");
      }
    }
    p.drag.z = 0.5f * wind.density * wind.drag;
    p.drag.w = 0.5f * wind.density * wind.lift;
    p.wind = glm::vec4(wind.velocity, 0.0f);
  }
  p.aero = glm::uvec4(world.wind_triangles(), 0u, 0u, 0u);
  p.trees = glm::uvec4(world.trees(), static_cast<std::uint32_t>(world.tree_nodes.size()), 0u, 0u);
  const float reach = 2.0f * world.max_pair_radius + margin;
  const float cell = s.cell_size > 0.0f ? s.cell_size : (reach > 0.0f ? reach : 1.0f);
  if (world.particles() > 0 && cell < reach) {
    throw std::invalid_argument("cell_size " + std::to_string(cell) +
                                " is smaller than the largest contact reach 2 max(r, t/2) + "
                                "margin = " +
                                std::to_string(reach));
  }
  p.grid = glm::vec4(cell, 1.0f / cell, reach, 0.0f);
  const std::uint64_t units = std::uint64_t{world.joints()} + cap.pairs + cap.contacts;
  if (units >= (1u << 24)) {
    throw std::invalid_argument(
        std::to_string(world.joints()) + " joints + " + std::to_string(cap.pairs) + " pairs + " +
        std::to_string(cap.contacts) +
        " particle contacts: the solver takes at most 2^24 - 1 units (use fewer bodies or "
        "particles, or a smaller contact_margin)");
  }
  p.counts = glm::uvec4(world.bodies(), world.joints(), cap.pairs, pair_hash_size(cap.pairs));
  p.kinds =
      glm::uvec4(world.rigid, world.particles(), cap.contacts, grid_table_size(world.particles()));
  const std::uint32_t flags =
      (sv.split_impulse ? VKPHYS_FLAG_SPLIT : 0u) | (sv.gyroscopic ? VKPHYS_FLAG_GYROSCOPIC : 0u) |
      (particle_pairs_possible(scene.particles) ? VKPHYS_FLAG_PARTICLE_PAIRS : 0u) |
      (sv.contact_cache ? VKPHYS_FLAG_CONTACT_CACHE : 0u);
  p.modes =
      glm::uvec4(static_cast<std::uint32_t>(sv.scheme), static_cast<std::uint32_t>(sv.restitution),
                 static_cast<std::uint32_t>(sv.friction_model), flags);
  if (sv.max_colors < 1 || sv.max_colors > 30) {
    throw std::invalid_argument("solver.max_colors = " + std::to_string(sv.max_colors) +
                                ": must be in [1, 30]");
  }
  p.coloring = glm::uvec4(sv.max_colors, 2u, static_cast<std::uint32_t>(world.plane_bodies.size()),
                          static_cast<std::uint32_t>(units));
  p.drive = glm::uvec4(static_cast<std::uint32_t>(cf.law), world.drive.paths(), 0u, 0u);
  p.ode = glm::uvec4(static_cast<std::uint32_t>(sv.integrator), world.force_springs(),
                     sv.cg_max_iterations, std::bit_cast<std::uint32_t>(sv.cg_tolerance));
  for (std::size_t k = 0; k < world.plane_bodies.size(); ++k) {
    p.plane_bodies[k / 4][static_cast<int>(k % 4)] = world.plane_bodies[k];
  }
  if (scene.materials.empty() || scene.materials.size() > VKPHYS_MAX_MATERIALS) {
    throw std::invalid_argument(std::to_string(scene.materials.size()) + " materials; 1 to " +
                                std::to_string(VKPHYS_MAX_MATERIALS) + " are allowed");
  }
  for (std::size_t m = 0; m < scene.materials.size(); ++m) {
    const Material& mat = scene.materials[m];
    p.materials[m] = glm::vec4(mat.restitution, mat.friction, mat.spook_k, mat.spook_d);
  }
  return p;
}

void world_state(const Scene& scene, std::uint32_t rigid, const std::vector<glm::vec4>& pos,
                 const std::vector<glm::vec4>& vel, std::vector<glm::vec4> rot,
                 std::vector<glm::vec4> omega, WorldState& out) {
  out.pos.resize(rigid);
  out.vel.resize(rigid);
  for (std::size_t i = 0; i < rigid; ++i) {
    out.pos[i] = glm::vec4(glm::vec3(pos[i]), vel[i].w);
    out.vel[i] = glm::vec4(glm::vec3(vel[i]), 0.0f);
  }
  out.rot = std::move(rot);
  out.omega = std::move(omega);
  const auto first = static_cast<std::ptrdiff_t>(rigid);
  out.particles.pos_radius.assign(pos.begin() + first, pos.end());
  out.particles.vel_invmass.assign(vel.begin() + first, vel.end());
  out.particles.material = scene.particles.material;
}

void write_world_state(const WorldState& state, std::uint32_t rigid, std::vector<glm::vec4>& pos,
                       std::vector<glm::vec4>& vel, std::vector<glm::vec4>& rot,
                       std::vector<glm::vec4>& omega) {
  const std::size_t particles = pos.size() - rigid;
  if (state.pos.size() != rigid || state.vel.size() != rigid || state.rot.size() != rigid ||
      state.omega.size() != rigid || state.particles.pos_radius.size() != particles ||
      state.particles.vel_invmass.size() != particles) {
    throw std::invalid_argument("write: the state's sizes differ from the world's (" +
                                std::to_string(rigid) + " rigid bodies, " +
                                std::to_string(particles) + " particles)");
  }
  auto xyz = [](glm::vec4& to, const glm::vec4& from) { to = glm::vec4(glm::vec3(from), to.w); };
  for (std::size_t i = 0; i < rigid; ++i) {
    xyz(pos[i], state.pos[i]);
    xyz(vel[i], state.vel[i]);
    rot[i] = state.rot[i];
    omega[i] = glm::vec4(glm::vec3(state.omega[i]), 0.0f);
  }
  for (std::size_t k = 0; k < particles; ++k) {
    xyz(pos[rigid + k], state.particles.pos_radius[k]);
    xyz(vel[rigid + k], state.particles.vel_invmass[k]);
  }
}

CarriedSizes carried_sizes(const WorldArrays& world, const Capacities& capacities) {
  return {world.bodies(), world.rigid,      world.particles(),
          world.joints(), capacities.pairs, capacities.contacts};
}

void check_carried(const CarriedState& state, const CarriedSizes& z) {
#define VKPHYS_CHECK_CARRIED(T, name, count)                                                       \
  if (state.name.size() != (count)) {                                                              \
    throw std::invalid_argument("checkpoint: " #name " holds " +                                   \
                                std::to_string(state.name.size()) + " entries, the scene needs " + \
                                std::to_string(count) + " (a checkpoint of another scene?)");      \
  }
  VKPHYS_CARRIED_BUFFERS(VKPHYS_CHECK_CARRIED)
#undef VKPHYS_CHECK_CARRIED
}

void fill_world_stats(const kern::WorldCounters& c, const Scene& scene, const WorldArrays& world,
                      const Capacities& cap, StepStats& st) {
  st.bodies = world.bodies();
  st.pairs = c.pairs;
  st.manifolds = c.manifolds;
  st.reused_manifolds = c.reused;
  st.points = c.points;
  st.particle_contacts = c.pcontacts;
  st.cg_iterations = c.cg_iterations;
  st.cg_residual = std::bit_cast<float>(c.cg_residual);
  st.solver_residual = std::bit_cast<float>(c.residual);
  st.solver_residual_angular = std::bit_cast<float>(c.residual_w);
  const std::uint32_t points = c.points + std::min(c.pcontacts, cap.contacts);
  st.rows = points * (scene.settings.solver.friction ? 3u : 1u) + world.joint_rows;
  st.pair_capacity = cap.pairs;
  st.contact_capacity = cap.contacts;
  st.colors = 0;
  st.overflow_units = 0;
  if (scene.settings.solver.scheme == SolverScheme::colored) {
    const std::uint32_t maxc = scene.settings.solver.max_colors;
    for (std::uint32_t k = 0; k < maxc; ++k) {
      if (c.color_end[2 * k] > c.color_start[2 * k] ||
          c.color_end[2 * k + 1] > c.color_start[2 * k + 1]) {
        ++st.colors;
      }
    }
    st.overflow_units = c.color_end[2 * maxc] - c.color_start[2 * maxc] +
                        c.color_end[2 * maxc + 1] - c.color_start[2 * maxc + 1];
  }
  st.stage_bytes = step_traffic(st, scene, world, cap).bytes;
}

}  // namespace vkphys
