// build_world (host/sim/world_setup.h): the scene's rigid bodies, planes and particles packed
// into the step's body arrays in body order, the drive's kinematic bodies made immovable, the
// joints packed, and the collision groups of jointed bodies found. What joins particles
// (springs, triangles, the wind's lists) is host/sim/particle_links.cpp's and the joint trees
// host/sim/joint_trees.cpp's; both run from here, after the bodies, so that their world indices
// exist.
#include "host/sim/world_setup.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "host/sim/cg_lines.h"
#include "host/sim/finite.h"
#include "host/sim/joint_coloring.h"
#include "host/sim/joint_trees.h"
#include "host/sim/mass_properties.h"
#include "host/sim/particle_links.h"

namespace vkphys {
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

void check_finite(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what + " is not finite");
}

}  // namespace

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
  const std::uint32_t rows = kern::joint_row_count(static_cast<std::uint32_t>(j.type), j.limited);
  w.joint_rows += rows;
  if (rows > 1u) w.multi_row_joints = w.joints();
  const bool spring = j.type == JointType::distance && a >= w.rigid && b >= w.rigid;
  if (!spring) w.framed_joints = w.joints();
}

std::vector<glm::vec4> laid_out_joint_frames(const WorldArrays& w) {
  const std::uint32_t joints = w.joints();
  std::vector<glm::vec4> out(kern::joint_frame_slots(joints, w.framed_joints));
  for (std::uint32_t j = 0; j < joints; ++j) {
    const std::uint32_t last = j < w.framed_joints ? VKPHYS_JOINT_STRIDE : 1u;
    for (std::uint32_t k = 0; k < VKPHYS_JOINT_STRIDE; ++k) {
      if (k < last || k + 1u == VKPHYS_JOINT_STRIDE) {
        out[kern::joint_frame_slot(j, k, joints, w.framed_joints)] =
            w.joint_frames[std::size_t{VKPHYS_JOINT_STRIDE} * j + k];
      }
    }
  }
  return out;
}

bool jacobi_gathers(const SolverSettings& solver, const WorldArrays& world) {
  return solver.scheme == SolverScheme::jacobi && world.particles() > 0 && world.joints() == 0 &&
         world.sweepers == 0;
}

bool carries_warm_start(const SolverSettings& solver, const WorldArrays& world) {
  return solver.substeps > 1 && solver.scheme != SolverScheme::jacobi &&
         solver.integrator == Integrator::symplectic && !(solver.strain_limit.stretch > 0.0f) &&
         world.joints() == 0;
}

namespace {

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

// Whether the grid can find any contact: a particle pair (above) or a particle against a
// plane, each with a dynamic particle (a pair of static bodies never touches: particle_grid.inl,
// particle_pair_margin). Without, the grid, the particle contacts' colour lists and their
// passes are left out: the trampoline's lone cloth meets its ball through the sweep, as rigid
// pairs, and its step records 4,080 dispatches instead of 7,266 (lavapipe, step 20). Masses and
// groups are fixed once loaded (World::write keeps 1/m), so this holds for the whole run.
bool particle_contacts_possible(const WorldArrays& w) {
  bool dynamic = false;
  for (std::uint32_t i = w.rigid; i < w.bodies(); ++i) dynamic = dynamic || w.vel[i].w > 0.0f;
  return dynamic && (w.particle_pairs || !w.plane_bodies.empty());
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
  if (scene.settings.solver.integrator == Integrator::implicit &&
      scene.settings.solver.cg_preconditioner == CgPreconditioner::lines) {
    CgLines lines = find_cg_lines(w);
    w.cg_lines = std::move(lines.links);
    w.cg_line_counts = lines.counts;
  }
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) {
    w.info[i].z = union_find_root(parent, i) + 1u;
  }
  // A group only matters when it has two or more members: singletons get group 0.
  std::vector<std::uint32_t> members(w.rigid, 0u);
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) ++members[w.info[i].z - 1u];
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) {
    if (members[w.info[i].z - 1u] < 2u) w.info[i].z = 0u;
  }
  w.sweep_slab = sweep_slab_width(scene.settings, w);
  w.joint_colors = color_joints(w, scene.settings.solver.max_colors);
  w.particle_pairs = particle_pairs_possible(scene.particles);
  w.particle_contacts = particle_contacts_possible(w);
  return w;
}

}  // namespace vkphys
