// Scene file section "bodies": rigid bodies with their shape, size, pose, velocities and mass
// (given, from a density, or static), checked so that the mass properties the step derives
// from them fit a 32-bit float; in version 2 also their applied force and torque and their
// kinematic path.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "host/sim/mass_properties.h"
#include "host/sim/quat_double.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

glm::vec4 read_orientation(const Field& f) {
  if (f.json().is_object()) {
    Object o(f, {"axis", "angle_deg"});
    Field axis_field = o.require("axis");
    glm::dvec3 axis(axis_field.as_vec3());
    double length = glm::length(axis);
    axis_field.check(length > 0.0, "must be non-zero");
    double degrees = o.require("angle_deg").as_double();
    return glm::vec4(quat_double::axis_angle(axis / length, degrees));
  }
  f.check(f.json().is_array() && f.json().size() == 4,
          "must be a quaternion [x, y, z, w] or {\"axis\": [x, y, z], \"angle_deg\": a}");
  glm::vec4 q(f.at(0).as_float(), f.at(1).as_float(), f.at(2).as_float(), f.at(3).as_float());
  f.check(glm::length(glm::dvec4(q)) > 0.0, "must be non-zero (it is normalised)");
  return unit_or_normalised(q);
}

void SceneParser::read_bodies(const Field& list) {
  std::size_t n = list.array_size();
  list.check(n >= 1, "must list at least one body");
  list.check(n <= kMaxBodies,
             fmt::format("{} bodies; at most kMaxBodies = {} are allowed", n, kMaxBodies));
  scene_.bodies.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    scene_.bodies.push_back(read_body(list.at(i), static_cast<std::uint32_t>(i)));
  }
  listed_bodies_ = n;
}

Body SceneParser::read_body(const Field& f, std::uint32_t index) {
  Object o = versioned(f,
                       {"shape", "radius", "half_extents", "half_height", "position", "orientation",
                        "velocity", "angular_velocity", "mass", "density", "static", "material"},
                       {"force", "torque", "kinematic"});
  Body b;
  Field shape = o.require("shape");
  std::string name = shape.as_string();
  std::string_view sizes;
  if (name == "sphere") {
    b.shape = Shape::sphere;
    sizes = "\"radius\"";
  } else if (name == "box") {
    b.shape = Shape::box;
    sizes = "\"half_extents\"";
  } else if (name == "capsule") {
    b.shape = Shape::capsule;
    sizes = "\"radius\" and \"half_height\"";
  } else if (name == "none") {
    b.shape = Shape::none;
    sizes = "no size fields";
  } else {
    shape.fail("unknown shape; allowed: \"sphere\", \"box\", \"capsule\", \"none\"");
  }
  // The size fields the shape uses are required, the others are errors.
  auto size_field = [&](std::string_view key, bool used) -> std::optional<Field> {
    auto g = o.get(key);
    if (!used) {
      if (g) g->fail(fmt::format("not used by a {} (it takes {})", name, sizes));
      return std::nullopt;
    }
    if (!g) {
      fail_at(source_, join_path(f.path(), key),
              fmt::format("required field is missing (a {} takes {})", name, sizes));
    }
    return g;
  };
  if (auto g = size_field("radius", b.shape == Shape::sphere || b.shape == Shape::capsule)) {
    b.radius = size_value(*g);
  }
  if (auto g = size_field("half_height", b.shape == Shape::capsule)) {
    b.half_height = size_value(*g);
  }
  if (auto g = size_field("half_extents", b.shape == Shape::box)) {
    g->check(g->json().is_array() && g->json().size() == 3, "must be an array of 3 numbers");
    for (std::size_t a = 0; a < 3; ++a) {
      b.half_extents[static_cast<glm::length_t>(a)] = size_value(g->at(a));
    }
  }
  if (auto g = o.get("position")) b.position = bounded_vec3(*g, kCoordinate);
  if (auto g = o.get("orientation")) b.orientation = read_orientation(*g);
  if (auto g = o.get("velocity")) b.velocity = bounded_vec3(*g, kSpeed);
  if (auto g = o.get("angular_velocity")) b.angular_velocity = bounded_vec3(*g, kAngularSpeed);
  b.material = material_of(o);
  if (auto g = o.get("force")) b.force = bounded_vec3(*g, kForce);
  if (auto g = o.get("torque")) b.torque = bounded_vec3(*g, kTorque);
  // The path is read before the mass, which it does not replace: a kinematic body's mass is
  // ignored while it is driven but must still be valid.
  if (auto g = o.get("kinematic")) scene_.kinematic.push_back(read_kinematic(*g, {false, index}));

  bool is_static = false;
  auto static_field = o.get("static");
  if (static_field) is_static = static_field->as_bool();
  auto mass_field = o.get("mass");
  auto density_field = o.get("density");
  if (mass_field && density_field) {
    density_field->fail("cannot be combined with \"mass\"; give one of the two");
  }
  auto given = mass_field ? mass_field : density_field;
  if (is_static) {
    if (given) given->fail("cannot be combined with \"static\": true (a static body has mass 0)");
    b.mass = 0.0f;
    return b;
  }
  if (!given) {
    fail_at(source_, f.path(),
            "needs \"mass\" or \"density\" (or \"static\": true for an immovable body)");
  }
  if (mass_field) {
    b.mass = mass_field->positive();
  } else {
    double rho = double(density_field->positive());
    double volume = shape_volume(b);
    density_field->check(volume > 0.0, "a shapeless body has no volume; give \"mass\"");
    double m = rho * volume;
    density_field->check(m <= kFloatMax && static_cast<float>(m) > 0.0f,
                         fmt::format("gives a mass of {:.6g} kg (volume {:.6g} m^3), outside "
                                     "the 32-bit float range",
                                     m, volume));
    b.mass = static_cast<float>(m);
  }
  given->check(std::isfinite(1.0f / b.mass), "too small: 1 / mass overflows a 32-bit float");
  glm::dvec3 inertia = principal_inertia(b);
  for (int a = 0; a < 3; ++a) {
    double i = inertia[a];
    given->check(i <= kFloatMax && static_cast<float>(i) > 0.0f &&
                     std::isfinite(1.0f / static_cast<float>(i)),
                 fmt::format("gives principal moments of inertia {} kg m^2, outside the 32-bit "
                             "float range",
                             format_vec(inertia)));
  }
  return b;
}

}  // namespace vkphys::io::scene_reader
