// Scene file section "joints": distance, ball and hinge joints between listed bodies or the
// world. Anchors and axes given in the world frame are converted to each body's frame here, in
// double, so the step only ever sees body-frame values.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "host/sim/quat_double.h"
#include "host/sim/rigid_scenes.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

namespace {

glm::vec3 unit_vector(const Field& f) {
  glm::vec3 v = f.as_vec3();
  f.check(glm::length(glm::dvec3(v)) > 0.0, "must be non-zero");
  return unit_or_normalised(v);
}

}  // namespace

// A joint's body: an index into "bodies" or "world" (one static shapeless body at the origin,
// appended after the listed bodies when first used).
std::uint32_t SceneParser::joint_body(const Field& f) {
  if (f.json().is_string()) {
    f.check(f.as_string() == "world", "must be a body index or \"world\"");
    if (!world_) world_ = add_world_body(scene_);
    return *world_;
  }
  f.check(f.json().is_number_integer(), "must be a body index (an integer) or \"world\"");
  return index_below(f, listed_bodies_, "body",
                     fmt::format("\"bodies\" lists {} bodies", listed_bodies_));
}

// A point given in world coordinates, in body b's frame.
glm::vec3 SceneParser::to_local(std::uint32_t b, glm::dvec3 world) const {
  const Body& body = scene_.bodies[b];
  return glm::vec3(quat_double::rotate_inv(body.orientation, world - glm::dvec3(body.position)));
}

glm::dvec3 SceneParser::to_world(std::uint32_t b, glm::vec3 local) const {
  const Body& body = scene_.bodies[b];
  return glm::dvec3(body.position) + quat_double::rotate(body.orientation, glm::dvec3(local));
}

void SceneParser::read_spook(const Object& o, std::string_view key, float* k, float* d) const {
  *k = default_k_;
  *d = default_d_;
  auto f = o.get(key);
  if (!f) return;
  Object s(*f, {"k", "d"});
  if (auto g = s.get("k")) *k = g->positive();
  if (auto g = s.get("d")) *d = g->non_negative();
}

void SceneParser::read_joints(const Field& list) {
  std::size_t n = list.array_size();
  list.check(n <= kMaxJoints,
             fmt::format("{} joints; at most kMaxJoints = {} are allowed", n, kMaxJoints));
  scene_.joints.reserve(n);
  for (std::size_t i = 0; i < n; ++i) scene_.joints.push_back(read_joint(list.at(i)));
}

Joint SceneParser::read_joint(const Field& f) {
  Object o(f, {"type", "bodies", "anchor", "anchor_a", "anchor_b", "axis", "axis_a", "axis_b",
               "ref_a", "ref_b", "length", "limits", "spook", "limit_spook"});
  Joint j;
  Field type = o.require("type");
  std::string name = type.as_string();
  if (name == "distance") {
    j.type = JointType::distance;
  } else if (name == "ball") {
    j.type = JointType::ball;
  } else if (name == "hinge") {
    j.type = JointType::hinge;
  } else {
    type.fail("unknown joint type; allowed: \"distance\", \"ball\", \"hinge\"");
  }

  Field bodies = o.require("bodies");
  bodies.check(bodies.json().is_array() && bodies.json().size() == 2,
               "must be an array of 2 bodies (each a body index or \"world\")");
  j.body_a = joint_body(bodies.at(0));
  j.body_b = joint_body(bodies.at(1));
  bodies.check(j.body_a != j.body_b, "joins a body to itself; a joint needs two different bodies");
  bodies.check(scene_.bodies[j.body_a].mass > 0.0f || scene_.bodies[j.body_b].mass > 0.0f,
               "joins two static bodies; at least one must move");

  // Anchors.
  auto anchor = o.get("anchor");
  auto anchor_a = o.get("anchor_a");
  auto anchor_b = o.get("anchor_b");
  if (anchor && (anchor_a || anchor_b)) {
    (anchor_a ? anchor_a : anchor_b)
        ->fail(
            "cannot be combined with \"anchor\"; give \"anchor\" (a world point) or "
            "\"anchor_a\" and \"anchor_b\" (points in each body's frame)");
  }
  if (j.type == JointType::distance) {
    if (anchor) {
      anchor->fail(
          "not used by a distance joint (its ends differ): give \"anchor_a\" and "
          "\"anchor_b\" (points in each body's frame, default the centres)");
    }
    j.anchor_a = anchor_a ? bounded_vec3(*anchor_a, kCoordinate) : glm::vec3(0.0f);
    j.anchor_b = anchor_b ? bounded_vec3(*anchor_b, kCoordinate) : glm::vec3(0.0f);
  } else if (anchor) {
    glm::dvec3 w(bounded_vec3(*anchor, kCoordinate));
    j.anchor_a = to_local(j.body_a, w);
    j.anchor_b = to_local(j.body_b, w);
  } else if (anchor_a && anchor_b) {
    j.anchor_a = bounded_vec3(*anchor_a, kCoordinate);
    j.anchor_b = bounded_vec3(*anchor_b, kCoordinate);
  } else if (anchor_a || anchor_b) {
    fail_at(source_, join_path(f.path(), anchor_a ? "anchor_b" : "anchor_a"),
            "required field is missing (\"anchor_a\" and \"anchor_b\" go together)");
  } else {
    fail_at(source_, f.path(),
            fmt::format("a {} joint needs \"anchor\" (a world point) or \"anchor_a\" and "
                        "\"anchor_b\" (points in each body's frame)",
                        name));
  }

  // Hinge axes.
  auto axis = o.get("axis");
  std::array<std::optional<Field>, 4> local{o.get("axis_a"), o.get("axis_b"), o.get("ref_a"),
                                            o.get("ref_b")};
  if (j.type != JointType::hinge) {
    if (axis) axis->fail("only a hinge joint has an axis");
    for (const auto& g : local) {
      if (g) g->fail("only a hinge joint has axes");
    }
  } else if (axis) {
    for (const auto& g : local) {
      if (g) g->fail("cannot be combined with \"axis\" (the world-frame axis)");
    }
    glm::dvec3 w(unit_vector(*axis));
    // Any unit vector perpendicular to the axis: the cross product with the world axis the
    // hinge axis is least aligned with.
    glm::dvec3 e(0.0);
    glm::dvec3 aw = glm::abs(w);
    e[aw.x <= aw.y && aw.x <= aw.z ? 0 : (aw.y <= aw.z ? 1 : 2)] = 1.0;
    glm::dvec3 ref = glm::normalize(glm::cross(w, e));
    const glm::vec4 qa = scene_.bodies[j.body_a].orientation;
    const glm::vec4 qb = scene_.bodies[j.body_b].orientation;
    j.axis_a = glm::vec3(quat_double::rotate_inv(qa, w));
    j.axis_b = glm::vec3(quat_double::rotate_inv(qb, w));
    j.ref_a = glm::vec3(quat_double::rotate_inv(qa, ref));
    j.ref_b = glm::vec3(quat_double::rotate_inv(qb, ref));
  } else {
    constexpr std::array<std::string_view, 4> keys{"axis_a", "axis_b", "ref_a", "ref_b"};
    for (std::size_t i = 0; i < 4; ++i) {
      if (!local[i]) {
        fail_at(source_, join_path(f.path(), keys[i]),
                "required field is missing (a hinge needs \"axis\" (world frame) or all of "
                "\"axis_a\", \"axis_b\", \"ref_a\", \"ref_b\" (body frames))");
      }
    }
    j.axis_a = unit_vector(*local[0]);
    j.axis_b = unit_vector(*local[1]);
    j.ref_a = unit_vector(*local[2]);
    j.ref_b = unit_vector(*local[3]);
    for (std::size_t i = 0; i < 2; ++i) {
      double dot = glm::dot(glm::dvec3(i == 0 ? j.axis_a : j.axis_b),
                            glm::dvec3(i == 0 ? j.ref_a : j.ref_b));
      local[2 + i]->check(
          std::abs(dot) <= 1e-3,
          fmt::format("must be perpendicular to {} (dot product {:.6g})", keys[i], dot));
    }
  }

  // Length.
  auto length = o.get("length");
  if (j.type != JointType::distance) {
    if (length) length->fail("only a distance joint has a length");
  } else if (length) {
    j.length = length->positive();
    length->check(static_cast<double>(j.length) <= kCoordinate.max,
                  fmt::format("must be <= {:g} m", kCoordinate.max));
  } else {
    double d = glm::length(to_world(j.body_b, j.anchor_b) - to_world(j.body_a, j.anchor_a));
    if (!(static_cast<float>(d) > 0.0f)) {
      fail_at(source_, join_path(f.path(), "length"),
              "required field is missing (the anchors coincide, so the default length, their "
              "initial distance, would be 0)");
    }
    j.length = static_cast<float>(d);
  }

  // Angle limits.
  if (auto limits = o.get("limits")) {
    if (j.type == JointType::distance) limits->fail("a distance joint has no angle limits");
    Object lo(*limits, {"lo_deg", "hi_deg"});
    Field lo_field = lo.require("lo_deg");
    Field hi_field = lo.require("hi_deg");
    glm::dvec3 lo_deg(0.0), hi_deg(0.0);
    auto degrees = [](const Field& g) {
      double v = g.as_double();
      g.check(v >= -180.0 && v <= 180.0, "must be in [-180, 180] degrees");
      return v;
    };
    if (j.type == JointType::hinge) {
      lo_deg.x = degrees(lo_field);
      hi_deg.x = degrees(hi_field);
      hi_field.check(hi_deg.x >= lo_deg.x, fmt::format("must be >= lo_deg = {:.6g}", lo_deg.x));
    } else {
      for (const Field* g : {&lo_field, &hi_field}) {
        g->check(g->json().is_array() && g->json().size() == 3,
                 "must be an array of 3 angles (about body a's x, y and z axes)");
      }
      for (std::size_t a = 0; a < 3; ++a) {
        lo_deg[static_cast<glm::length_t>(a)] = degrees(lo_field.at(a));
        hi_deg[static_cast<glm::length_t>(a)] = degrees(hi_field.at(a));
      }
      hi_field.check(glm::all(glm::greaterThanEqual(hi_deg, lo_deg)),
                     fmt::format("must be >= lo_deg = [{:.6g}, {:.6g}, {:.6g}] in every "
                                 "component",
                                 lo_deg.x, lo_deg.y, lo_deg.z));
    }
    j.limited = true;
    j.limit_lo = glm::vec3(lo_deg * (kPi / 180.0));
    j.limit_hi = glm::vec3(hi_deg * (kPi / 180.0));
  }

  read_spook(o, "spook", &j.spook_k, &j.spook_d);
  read_spook(o, "limit_spook", &j.limit_k, &j.limit_d);
  return j;
}

}  // namespace vkphys::io::scene_reader
