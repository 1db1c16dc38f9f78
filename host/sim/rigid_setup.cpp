#include "host/sim/rigid_setup.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "host/sim/mass_properties.h"

namespace vkphys {

const char* rigid_stage_name(RigidStage s) {
  switch (s) {
    case RigidStage::setup:
      return "setup";
    case RigidStage::broadphase:
      return "broadphase";
    case RigidStage::narrowphase:
      return "narrowphase";
    case RigidStage::coloring:
      return "coloring";
    case RigidStage::predict:
      return "predict";
    case RigidStage::prepare:
      return "prepare";
    case RigidStage::solve:
      return "solve";
    case RigidStage::integrate:
      return "integrate";
  }
  return "?";
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

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

std::uint32_t joint_row_count(const Joint& j) {
  switch (j.type) {
    case JointType::distance:
      return 1;
    case JointType::ball:
      return j.limited ? 6 : 3;
    case JointType::hinge:
      return j.limited ? 6 : 5;
  }
  return 0;
}

bool finite(glm::vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

void check_finite(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what + " is not finite");
}

}  // namespace

RigidWorld build_rigid_world(const Scene& scene) {
  RigidWorld w;
  if (scene.planes.size() > VKPHYS_MAX_PLANES) {
    throw std::invalid_argument(std::to_string(scene.planes.size()) + " planes; at most " +
                                std::to_string(VKPHYS_MAX_PLANES) + " are supported");
  }
  const std::size_t total = scene.bodies.size() + scene.planes.size();
  if (total >= (1u << 24)) {
    throw std::invalid_argument(std::to_string(total) + " bodies; at most 2^24 - 1 are supported");
  }
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const Body& b = scene.bodies[i];
    const std::string name = "body " + std::to_string(i);
    if (b.material >= scene.materials.size()) {
      throw std::invalid_argument(name + ": material " + std::to_string(b.material) +
                                  " does not exist (" + std::to_string(scene.materials.size()) +
                                  " materials)");
    }
    check_finite(std::isfinite(b.mass) && b.mass >= 0.0f, name + " mass");
    check_finite(finite(b.position) && finite(b.velocity) && finite(b.angular_velocity),
                 name + " state");
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
    w.pos.emplace_back(b.position, b.mass > 0.0f ? 1.0f / b.mass : 0.0f);
    w.rot.push_back(b.orientation / qlen);
    w.vel.emplace_back(b.velocity, 0.0f);
    w.omega.emplace_back(b.angular_velocity, 0.0f);
    w.inertia.emplace_back(inverse_inertia(b), 0.0f);
    w.dims.push_back(dims);
    w.shape.emplace_back(static_cast<std::uint32_t>(b.shape), b.material, 0u, 0u);
  }
  for (const Plane& p : scene.planes) {
    w.plane_bodies.push_back(w.bodies());
    w.pos.emplace_back(p.normal * p.offset, 0.0f);
    w.rot.push_back(rotation_from_y(glm::normalize(p.normal)));
    w.vel.emplace_back(0.0f);
    w.omega.emplace_back(0.0f);
    w.inertia.emplace_back(0.0f);
    w.dims.emplace_back(0.0f);
    w.shape.emplace_back(static_cast<std::uint32_t>(Shape::plane), p.material, 0u, 0u);
  }
  // Collision groups: union-find over joints between dynamic bodies.
  std::vector<std::uint32_t> parent(w.bodies());
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
      parent[find_root(parent, j.body_a)] = find_root(parent, j.body_b);
    }
    const glm::vec4 spook(j.spook_k, j.spook_d, j.limit_k, j.limit_d);
    w.joint_info.emplace_back(j.body_a, j.body_b, static_cast<std::uint32_t>(j.type),
                              j.limited ? 1u : 0u);
    w.joint_frames.emplace_back(j.anchor_a, j.length);
    w.joint_frames.emplace_back(j.anchor_b, 0.0f);
    w.joint_frames.emplace_back(glm::normalize(j.axis_a), 0.0f);
    w.joint_frames.emplace_back(glm::normalize(j.axis_b), 0.0f);
    w.joint_frames.emplace_back(j.ref_a, 0.0f);
    w.joint_frames.emplace_back(j.ref_b, 0.0f);
    w.joint_frames.emplace_back(j.limit_lo, 0.0f);
    w.joint_frames.emplace_back(j.limit_hi, 0.0f);
    w.joint_frames.push_back(spook);
    w.joint_rows += joint_row_count(j);
  }
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) {
    w.shape[i].z = find_root(parent, i) + 1u;
  }
  // A group only matters when it has two or more members: singletons get group 0.
  std::vector<std::uint32_t> members(w.bodies(), 0u);
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) ++members[w.shape[i].z - 1u];
  for (std::uint32_t i = 0; i < scene.bodies.size(); ++i) {
    if (members[w.shape[i].z - 1u] < 2u) w.shape[i].z = 0u;
  }
  return w;
}

std::uint32_t default_pair_capacity(std::uint32_t bodies) {
  return std::max(64u, 4u * bodies);
}

std::uint32_t grown_pair_capacity(std::uint32_t needed) {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>((std::uint64_t{needed} * 3u) / 2u + 64u, (1u << 24) - 1u));
}

std::uint32_t pair_hash_size(std::uint32_t pair_capacity) {
  return std::bit_ceil(std::max(2u * pair_capacity, 64u));
}

kern::RigidParams make_rigid_params(const Scene& scene, const RigidWorld& world,
                                    std::uint32_t pair_capacity) {
  const Settings& s = scene.settings;
  const SolverSettings& sv = s.solver;
  kern::RigidParams p{};
  p.gravity_dt = glm::vec4(s.gravity, s.time_step);
  p.solver =
      glm::vec4(sv.relaxation, sv.restitution_threshold, sv.friction ? 1.0f : 0.0f, sv.warm_start);
  // Rigid bodies always need a speculative margin to rest without jitter: 0 (the default)
  // means 2 cm.
  const float margin = s.contact_margin > 0.0f ? s.contact_margin : 0.02f;
  if (!(sv.contact_hertz >= 0.0f) || !std::isfinite(sv.contact_hertz)) {
    throw std::invalid_argument("solver.contact_hertz = " + std::to_string(sv.contact_hertz) +
                                ": must be a finite number >= 0");
  }
  p.contact = glm::vec4(margin, glm::length(s.gravity), sv.contact_hertz, 0.0f);
  p.counts =
      glm::uvec4(world.bodies(), world.joints(), pair_capacity, pair_hash_size(pair_capacity));
  std::uint32_t flags =
      (sv.split_impulse ? VKPHYS_FLAG_SPLIT : 0u) | (sv.gyroscopic ? VKPHYS_FLAG_GYROSCOPIC : 0u);
  p.modes =
      glm::uvec4(static_cast<std::uint32_t>(sv.scheme), static_cast<std::uint32_t>(sv.restitution),
                 static_cast<std::uint32_t>(sv.friction_model), flags);
  if (sv.max_colors < 1 || sv.max_colors > 30) {
    throw std::invalid_argument("solver.max_colors = " + std::to_string(sv.max_colors) +
                                ": must be in [1, 30]");
  }
  p.coloring = glm::uvec4(sv.max_colors, 2u, static_cast<std::uint32_t>(world.plane_bodies.size()),
                          world.joints() + pair_capacity);
  for (std::size_t k = 0; k < world.plane_bodies.size(); ++k) {
    p.plane_bodies[k / 4][static_cast<int>(k % 4)] = world.plane_bodies[k];
  }
  if (scene.materials.size() > VKPHYS_MAX_MATERIALS) {
    throw std::invalid_argument(std::to_string(scene.materials.size()) + " materials; at most " +
                                std::to_string(VKPHYS_MAX_MATERIALS));
  }
  for (std::size_t m = 0; m < scene.materials.size(); ++m) {
    const Material& mat = scene.materials[m];
    p.materials[m] = glm::vec4(mat.restitution, mat.friction, mat.spook_k, mat.spook_d);
  }
  return p;
}

void fill_rigid_stats(const kern::RigidCounters& c, const Scene& scene, const RigidWorld& world,
                      std::uint32_t pair_capacity, RigidStats& st) {
  st.bodies = world.bodies();
  st.pairs = c.pairs;
  st.manifolds = c.manifolds;
  st.points = c.points;
  st.rows = c.points * (scene.settings.solver.friction ? 3u : 1u) + world.joint_rows;
  st.pair_capacity = pair_capacity;
  st.colors = 0;
  st.overflow_units = 0;
  if (scene.settings.solver.scheme == SolverScheme::colored) {
    const std::uint32_t maxc = scene.settings.solver.max_colors;
    for (std::uint32_t k = 0; k < maxc; ++k) {
      if (c.color_end[k] > c.color_start[k]) ++st.colors;
    }
    st.overflow_units = c.color_end[maxc] - c.color_start[maxc];
  }
}

}  // namespace vkphys
