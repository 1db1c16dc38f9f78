// Scene file parsing and validation (format: docs/scene-format.md).
//
// Structure:
//   1. JSON text -> DOM through a SAX handler that tracks the JSON path, so that duplicate keys
//      and number literals overflowing a double (1e999) are reported with the field's path
//      (host/io/scene_json.h).
//   2. The DOM is walked through Field/Object wrappers (host/io/scene_json.h): every read checks
//      the type and every object its keys, failing with "file: path = value: rule".
//   3. Particle generators are validated and counted in a first pass (so an oversized scene
//      fails before any allocation), generated in a second, and the generated particles are
//      checked against the planes and against each other in a third.
#include "host/io/scene_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/sim/mass_properties.h"
#include "host/sim/rigid_scenes.h"
#include "kernels/layout.h"

namespace vkphys::io {
namespace {

using namespace scene_json;

constexpr std::uint64_t kBytesPerParticle = 2 * sizeof(glm::vec4) + sizeof(std::uint32_t);
constexpr double kPi = 3.14159265358979323846;
constexpr std::uint32_t kMaxPlanes = VKPHYS_MAX_PLANES;
constexpr std::uint32_t kMaxMaterials = VKPHYS_MAX_MATERIALS;
constexpr double kMaxSize = 1.0e4;         // largest body size field [m]
constexpr double kMaxCoordinate = 1.0e6;   // largest body coordinate [m]
constexpr double kUnitTolerance = 1.0e-6;  // |length - 1| below which a vector counts as unit

// ---- rotations (double; quaternions (x, y, z, w), body to world, as kernels/quat.h) -----------

glm::dvec3 quat_rotate(glm::vec4 q, glm::dvec3 v) {
  const glm::dvec3 u(q.x, q.y, q.z);
  const glm::dvec3 t = 2.0 * glm::cross(u, v);
  return v + static_cast<double>(q.w) * t + glm::cross(u, t);
}
glm::dvec3 quat_rotate_inv(glm::vec4 q, glm::dvec3 v) {
  return quat_rotate(glm::vec4(-q.x, -q.y, -q.z, q.w), v);
}

// A vector whose length is within kUnitTolerance of 1 is unit to float precision and is kept as
// written (so written scenes read back bit for bit); others are divided by their length.
glm::vec3 unit_or_normalised(glm::vec3 v) {
  const glm::dvec3 d(v);
  const double length = glm::length(d);
  if (std::abs(length - 1.0) <= kUnitTolerance) return v;
  return glm::vec3(d / length);
}
glm::vec4 unit_or_normalised(glm::vec4 v) {
  const glm::dvec4 d(v);
  const double length = glm::length(d);
  if (std::abs(length - 1.0) <= kUnitTolerance) return v;
  return glm::vec4(d / length);
}

// ---- deterministic random numbers -----------------------------------------------------------

// splitmix64 (Steele, Lea and Flood 2014): tiny, full-period, and the same everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 24 random bits: exact in float and double.
  double uniform() { return static_cast<double>(next() >> 40) * 0x1.0p-24; }

 private:
  std::uint64_t state_;
};

// ---- the scene parser -----------------------------------------------------------------------

struct Generator {
  std::string path;  // "particles[3]"
  bool lattice = false;
  glm::dvec3 origin{0.0};  // lattice: first particle; single particle: its position
  std::array<std::uint32_t, 3> count{1, 1, 1};
  double spacing = 0.0;
  double jitter = 0.0;  // fraction of spacing
  std::uint64_t seed = 0;
  glm::vec3 velocity{0.0f};
  float radius = 0.0f;
  float mass = 0.0f;  // 0 for static particles
  std::uint32_t material = 0;
  std::uint64_t particles = 1;
  std::uint64_t first = 0;  // index of its first particle in the scene

  // Axis-aligned box holding every particle of the generator, radii included.
  glm::dvec3 lo() const {
    return origin - glm::dvec3(jitter * spacing + static_cast<double>(radius));
  }
  glm::dvec3 hi() const {
    glm::dvec3 n(count[0] - 1u, count[1] - 1u, count[2] - 1u);
    return origin + spacing * n + glm::dvec3(jitter * spacing + static_cast<double>(radius));
  }
  // "lattice index (i, j, k)" or "the particle", prefixed with the path when asked.
  std::string label(std::uint64_t local, bool with_path) const {
    std::string prefix = with_path ? path + " " : std::string();
    if (!lattice) return with_path ? path : std::string("the particle");
    std::uint64_t nx = count[0], ny = count[1];
    return fmt::format("{}lattice index ({}, {}, {})", prefix, local % nx, (local / nx) % ny,
                       local / (nx * ny));
  }
};

class SceneParser {
 public:
  SceneParser(const std::string& source, const Json& doc) : source_(source), doc_(doc) {}

  Scene run() {
    check_header();
    Object top(Field(source_, doc_, ""),
               {"format", "version", "name", "description", "gravity", "time_step", "drag",
                "contact_margin", "cell_size", "solver", "materials", "planes", "box", "particles",
                "bodies", "joints"});
    if (auto f = top.get("name")) {
      scene_.name = f->as_string();
      f->check(!scene_.name.empty(), "must not be empty");
    }
    if (auto f = top.get("description")) f->as_string();
    read_settings(top);
    read_solver(top);
    read_materials(top);
    read_planes(top);
    read_box(top);
    auto particles = top.get("particles");
    auto bodies = top.get("bodies");
    auto joints = top.get("joints");
    if (joints && !bodies) joints->fail("joints join rigid bodies: the scene needs \"bodies\"");
    if (particles && bodies) {
      bodies->fail(
          "a scene has particles or rigid bodies, not both (this one also has "
          "\"particles\")");
    }
    if (!particles && !bodies) {
      fail_at(source_, "particles",
              "required field is missing (a scene needs \"particles\" or \"bodies\")");
    }
    if (bodies) {
      read_bodies(*bodies);
      if (joints) read_joints(*joints);
      return std::move(scene_);
    }
    read_generators(*particles);
    generate();
    check_cell_size();
    check_planes();
    check_overlaps();
    return std::move(scene_);
  }

 private:
  void check_header() {
    Field root(source_, doc_, "");
    root.check(doc_.is_object(), "a scene file must be a JSON object");
    auto it = doc_.find("format");
    if (it == doc_.end()) {
      fail_at(source_, "format",
              fmt::format("required field is missing (a scene file starts with \"format\": {})",
                          json_quote(kFormatName)));
    }
    Field format(source_, *it, "format");
    format.check(
        format.as_string() == kFormatName,
        fmt::format("must be {} (this is not a vkphys scene file)", json_quote(kFormatName)));
    it = doc_.find("version");
    if (it == doc_.end()) {
      fail_at(source_, "version",
              fmt::format("required field is missing (this build reads version {})",
                          kSceneFormatVersion));
    }
    Field version(source_, *it, "version");
    bool supported = it->is_number_integer() && it->get<std::int64_t>() == kSceneFormatVersion;
    version.check(supported, fmt::format("unsupported version; this build reads version {} only",
                                         kSceneFormatVersion));
  }

  void read_settings(const Object& top) {
    Settings& s = scene_.settings;
    if (auto f = top.get("gravity")) s.gravity = f->as_vec3();
    if (auto f = top.get("time_step")) {
      s.time_step = f->as_float();
      f->check(s.time_step > 0.0f && s.time_step <= 0.1f, "must be in (0, 0.1] seconds");
    }
    s.drag = 0.0f;
    if (auto f = top.get("drag")) s.drag = f->non_negative();
    s.contact_margin = -1.0f;  // automatic
    if (auto f = top.get("contact_margin")) s.contact_margin = f->non_negative();
    s.cell_size = 0.0f;  // automatic
    cell_size_field_ = top.get("cell_size");
    if (cell_size_field_) s.cell_size = cell_size_field_->positive();
  }

  void read_solver(const Object& top) {
    SolverSettings& s = scene_.settings.solver;
    auto f = top.get("solver");
    if (!f) return;
    Object o(*f, {"iterations", "relaxation", "restitution_threshold", "friction", "warm_start",
                  "spook_k", "spook_d", "scheme", "restitution", "friction_model", "split_impulse",
                  "gyroscopic", "max_colors", "contact_hertz"});
    if (auto g = o.get("iterations"))
      s.iterations = static_cast<std::uint32_t>(g->as_uint(1, 1000));
    if (auto g = o.get("relaxation")) {
      s.relaxation = g->as_float();
      g->check(s.relaxation > 0.0f && s.relaxation <= 1.0f, "must be in (0, 1]");
    }
    if (auto g = o.get("restitution_threshold")) s.restitution_threshold = g->non_negative();
    if (auto g = o.get("friction")) s.friction = g->as_bool();
    if (auto g = o.get("warm_start")) {
      s.warm_start = g->as_float();
      g->check(s.warm_start >= 0.0f && s.warm_start <= 1.0f, "must be in [0, 1]");
    }
    if (auto g = o.get("spook_k")) default_k_ = g->positive();
    if (auto g = o.get("spook_d")) default_d_ = g->non_negative();
    if (auto g = o.get("scheme")) s.scheme = static_cast<SolverScheme>(choice(*g, kSchemeNames));
    if (auto g = o.get("restitution")) {
      s.restitution = static_cast<RestitutionModel>(choice(*g, kRestitutionNames));
    }
    if (auto g = o.get("friction_model")) {
      s.friction_model = static_cast<FrictionModel>(choice(*g, kFrictionModelNames));
    }
    if (auto g = o.get("split_impulse")) s.split_impulse = g->as_bool();
    if (auto g = o.get("gyroscopic")) s.gyroscopic = g->as_bool();
    if (auto g = o.get("max_colors")) s.max_colors = static_cast<std::uint32_t>(g->as_uint(1, 30));
    if (auto g = o.get("contact_hertz")) {
      s.contact_hertz = g->non_negative();
      g->check(s.contact_hertz <= 1.0e4f, "must be <= 1e4 Hz (0 disables the cap)");
    }
  }

  // Index of the string value in `names`.
  template <std::size_t N>
  static std::uint32_t choice(const Field& f, const std::array<std::string_view, N>& names) {
    std::string v = f.as_string();
    std::string list;
    for (std::size_t i = 0; i < N; ++i) {
      if (v == names[i]) return static_cast<std::uint32_t>(i);
      list += (list.empty() ? "" : ", ") + json_quote(names[i]);
    }
    f.fail(fmt::format("must be one of {}", list));
  }

  void read_materials(const Object& top) {
    auto f = top.get("materials");
    scene_.materials.clear();
    if (!f) {
      Material m;
      m.name = "default";
      m.spook_k = default_k_;
      m.spook_d = default_d_;
      scene_.materials.push_back(m);
      return;
    }
    std::size_t n = f->array_size();
    f->check(n >= 1, "must list at least one material (or be left out)");
    f->check(n <= kMaxMaterials,
             fmt::format("{} materials; at most {} are supported", n, kMaxMaterials));
    for (std::size_t i = 0; i < n; ++i) {
      Object o(f->at(i), {"name", "restitution", "friction", "spook_k", "spook_d"});
      Material m;
      Field name = o.require("name");
      m.name = name.as_string();
      name.check(!m.name.empty(), "must not be empty");
      for (std::size_t j = 0; j < i; ++j) {
        name.check(scene_.materials[j].name != m.name,
                   fmt::format("duplicate material name (also materials[{}].name)", j));
      }
      m.restitution = 0.0f;
      if (auto g = o.get("restitution")) {
        m.restitution = g->as_float();
        g->check(m.restitution >= 0.0f && m.restitution <= 1.0f, "must be in [0, 1]");
      }
      m.friction = 0.0f;
      if (auto g = o.get("friction")) m.friction = g->non_negative();
      m.spook_k = default_k_;
      if (auto g = o.get("spook_k")) m.spook_k = g->positive();
      m.spook_d = default_d_;
      if (auto g = o.get("spook_d")) m.spook_d = g->non_negative();
      scene_.materials.push_back(m);
    }
  }

  std::uint32_t material_of(const Object& o) const {
    auto f = o.get("material");
    if (!f) return 0;
    std::string name = f->as_string();
    for (std::size_t i = 0; i < scene_.materials.size(); ++i) {
      if (scene_.materials[i].name == name) return static_cast<std::uint32_t>(i);
    }
    std::string list;
    for (const Material& m : scene_.materials)
      list += (list.empty() ? "" : ", ") + json_quote(m.name);
    f->fail(fmt::format("unknown material; defined: {}", list));
  }

  void add_plane(glm::dvec3 normal, double offset, std::uint32_t material, std::string label) {
    Plane p;
    p.normal = glm::vec3(normal);
    p.offset = static_cast<float>(offset);
    p.material = material;
    scene_.planes.push_back(p);
    plane_labels_.push_back(std::move(label));
  }

  void read_planes(const Object& top) {
    auto f = top.get("planes");
    if (!f) return;
    std::size_t n = f->array_size();
    f->check(n <= kMaxPlanes, fmt::format("{} planes; at most {} are supported", n, kMaxPlanes));
    for (std::size_t i = 0; i < n; ++i) {
      Object o(f->at(i), {"normal", "offset", "material"});
      Field nf = o.require("normal");
      glm::dvec3 normal(nf.as_vec3());
      double length = glm::length(normal);
      nf.check(length > 0.0, "must be non-zero");
      if (std::abs(length - 1.0) <= kUnitTolerance) length = 1.0;  // unit to float precision
      double offset = 0.0;
      if (auto g = o.get("offset")) {
        offset = static_cast<double>(g->as_float()) / length;
        g->check(
            std::abs(offset) <= kFloatMax,
            fmt::format("offset / |normal| = {:.6g} is out of range for a 32-bit float", offset));
      }
      add_plane(normal / length, offset, material_of(o), index_path("planes", i));
    }
  }

  void read_box(const Object& top) {
    auto f = top.get("box");
    if (!f) return;
    Object o(*f, {"min", "max", "open_top", "material"});
    glm::dvec3 lo(o.require("min").as_vec3());
    Field max_field = o.require("max");
    glm::dvec3 hi(max_field.as_vec3());
    max_field.check(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z,
                    fmt::format("must exceed box.min = [{:.6g}, {:.6g}, {:.6g}] in every component",
                                lo.x, lo.y, lo.z));
    bool open_top = false;
    if (auto g = o.get("open_top")) open_top = g->as_bool();
    std::uint32_t material = material_of(o);
    std::size_t adds = open_top ? 5 : 6;
    f->check(scene_.planes.size() + adds <= kMaxPlanes,
             fmt::format("the box adds {} planes to the {} in \"planes\", {} in all; at most {} "
                         "are supported",
                         adds, scene_.planes.size(), scene_.planes.size() + adds, kMaxPlanes));
    // 0.0 - x rather than -x keeps a zero offset +0.
    add_plane({0, 1, 0}, lo.y, material, fmt::format("the box floor (y = {:.6g})", lo.y));
    add_plane({1, 0, 0}, lo.x, material, fmt::format("the box wall x = {:.6g}", lo.x));
    add_plane({-1, 0, 0}, 0.0 - hi.x, material, fmt::format("the box wall x = {:.6g}", hi.x));
    add_plane({0, 0, 1}, lo.z, material, fmt::format("the box wall z = {:.6g}", lo.z));
    add_plane({0, 0, -1}, 0.0 - hi.z, material, fmt::format("the box wall z = {:.6g}", hi.z));
    if (!open_top) {
      add_plane({0, -1, 0}, 0.0 - hi.y, material,
                fmt::format("the box ceiling (y = {:.6g})", hi.y));
    }
  }

  // ---- rigid bodies and joints ----------------------------------------------------------------

  // A size field in (0, kMaxSize] metres.
  static float size_value(const Field& f) {
    float v = f.positive();
    f.check(static_cast<double>(v) <= kMaxSize, fmt::format("must be <= {:g} m", kMaxSize));
    return v;
  }

  static glm::vec4 read_orientation(const Field& f) {
    if (f.json().is_object()) {
      Object o(f, {"axis", "angle_deg"});
      Field axis_field = o.require("axis");
      glm::dvec3 axis(axis_field.as_vec3());
      double length = glm::length(axis);
      axis_field.check(length > 0.0, "must be non-zero");
      double half = 0.5 * o.require("angle_deg").as_double() * kPi / 180.0;
      glm::dvec3 v = axis / length * std::sin(half);
      return glm::vec4(glm::dvec4(v, std::cos(half)));
    }
    f.check(f.json().is_array() && f.json().size() == 4,
            "must be a quaternion [x, y, z, w] or {\"axis\": [x, y, z], \"angle_deg\": a}");
    glm::vec4 q(f.at(0).as_float(), f.at(1).as_float(), f.at(2).as_float(), f.at(3).as_float());
    f.check(glm::length(glm::dvec4(q)) > 0.0, "must be non-zero (it is normalised)");
    return unit_or_normalised(q);
  }

  static glm::vec3 read_position(const Field& f) {
    glm::vec3 v = f.as_vec3();
    for (int a = 0; a < 3; ++a) {
      f.at(static_cast<std::size_t>(a))
          .check(std::abs(static_cast<double>(v[a])) <= kMaxCoordinate,
                 fmt::format("must be within {:g} m of the origin", kMaxCoordinate));
    }
    return v;
  }

  void read_bodies(const Field& list) {
    std::size_t n = list.array_size();
    list.check(n >= 1, "must list at least one body");
    list.check(n <= kMaxBodies,
               fmt::format("{} bodies; at most kMaxBodies = {} are allowed", n, kMaxBodies));
    scene_.bodies.reserve(n + 1);
    for (std::size_t i = 0; i < n; ++i) scene_.bodies.push_back(read_body(list.at(i)));
    listed_bodies_ = n;
  }

  Body read_body(const Field& f) const {
    Object o(f, {"shape", "radius", "half_extents", "half_height", "position", "orientation",
                 "velocity", "angular_velocity", "mass", "density", "static", "material"});
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
    if (auto g = o.get("position")) b.position = read_position(*g);
    if (auto g = o.get("orientation")) b.orientation = read_orientation(*g);
    if (auto g = o.get("velocity")) b.velocity = g->as_vec3();
    if (auto g = o.get("angular_velocity")) b.angular_velocity = g->as_vec3();
    b.material = material_of(o);

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
      double rho = density_field->positive();
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

  // A joint's body: an index into "bodies" or "world" (one static shapeless body at the origin,
  // appended after the listed bodies when first used).
  std::uint32_t joint_body(const Field& f) {
    if (f.json().is_string()) {
      f.check(f.as_string() == "world", "must be a body index or \"world\"");
      if (!world_) world_ = add_world_body(scene_);
      return *world_;
    }
    f.check(f.json().is_number_integer(), "must be a body index (an integer) or \"world\"");
    std::string range = fmt::format(
        "body index out of range: \"bodies\" lists {} bodies "
        "(indices 0 to {})",
        listed_bodies_, listed_bodies_ - 1);
    f.check(f.json().is_number_unsigned(), range);
    std::uint64_t v = f.json().get<std::uint64_t>();
    f.check(v < listed_bodies_, range);
    return static_cast<std::uint32_t>(v);
  }

  // A point given in world coordinates, in body b's frame.
  glm::vec3 to_local(std::uint32_t b, glm::dvec3 world) const {
    const Body& body = scene_.bodies[b];
    return glm::vec3(quat_rotate_inv(body.orientation, world - glm::dvec3(body.position)));
  }
  glm::dvec3 to_world(std::uint32_t b, glm::vec3 local) const {
    const Body& body = scene_.bodies[b];
    return glm::dvec3(body.position) + quat_rotate(body.orientation, glm::dvec3(local));
  }

  static glm::vec3 unit_vector(const Field& f) {
    glm::vec3 v = f.as_vec3();
    f.check(glm::length(glm::dvec3(v)) > 0.0, "must be non-zero");
    return unit_or_normalised(v);
  }

  void read_spook(const Object& o, std::string_view key, float* k, float* d) const {
    *k = default_k_;
    *d = default_d_;
    auto f = o.get(key);
    if (!f) return;
    Object s(*f, {"k", "d"});
    if (auto g = s.get("k")) *k = g->positive();
    if (auto g = s.get("d")) *d = g->non_negative();
  }

  void read_joints(const Field& list) {
    std::size_t n = list.array_size();
    list.check(n <= kMaxJoints,
               fmt::format("{} joints; at most kMaxJoints = {} are allowed", n, kMaxJoints));
    scene_.joints.reserve(n);
    for (std::size_t i = 0; i < n; ++i) scene_.joints.push_back(read_joint(list.at(i)));
  }

  Joint read_joint(const Field& f) {
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
    bodies.check(j.body_a != j.body_b,
                 "joins a body to itself; a joint needs two different bodies");
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
      j.anchor_a = anchor_a ? anchor_a->as_vec3() : glm::vec3(0.0f);
      j.anchor_b = anchor_b ? anchor_b->as_vec3() : glm::vec3(0.0f);
    } else if (anchor) {
      glm::dvec3 w(anchor->as_vec3());
      j.anchor_a = to_local(j.body_a, w);
      j.anchor_b = to_local(j.body_b, w);
    } else if (anchor_a && anchor_b) {
      j.anchor_a = anchor_a->as_vec3();
      j.anchor_b = anchor_b->as_vec3();
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
      j.axis_a = glm::vec3(quat_rotate_inv(qa, w));
      j.axis_b = glm::vec3(quat_rotate_inv(qb, w));
      j.ref_a = glm::vec3(quat_rotate_inv(qa, ref));
      j.ref_b = glm::vec3(quat_rotate_inv(qb, ref));
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
      length->check(static_cast<double>(j.length) <= kMaxCoordinate,
                    fmt::format("must be <= {:g} m", kMaxCoordinate));
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

  // Mass per particle; 0 for static particles. Density is allowed for lattices only.
  float read_mass(const Object& o, float radius, bool is_static, bool allow_density) const {
    auto mass_field = o.get("mass");
    auto density_field = allow_density ? o.get("density") : std::nullopt;
    if (mass_field && density_field) {
      density_field->fail("cannot be combined with \"mass\"; give one of the two");
    }
    float mass = 0.0f;
    if (mass_field) {
      mass = mass_field->positive();
      mass_field->check(std::isfinite(1.0f / mass), "too small: 1 / mass overflows a 32-bit float");
    } else if (density_field) {
      double rho = density_field->positive();
      double r = radius;
      double m = rho * 4.0 / 3.0 * kPi * r * r * r;
      auto mf = static_cast<float>(m);
      density_field->check(
          m <= kFloatMax && mf > 0.0f && std::isfinite(1.0f / mf),
          fmt::format("gives a particle mass of {:.6g} kg, outside the 32-bit float range", m));
      mass = mf;
    } else if (!is_static) {
      fail_at(source_, o.field().path(),
              allow_density ? "needs \"mass\" or \"density\" (only \"static\": true particles "
                              "may leave both out)"
                            : "needs \"mass\" (only \"static\": true particles may leave it out)");
    }
    return is_static ? 0.0f : mass;
  }

  Generator read_lattice(const Object& o) const {
    Generator g;
    g.lattice = true;
    g.origin = glm::dvec3(o.require("origin").as_vec3());
    Field count = o.require("count");
    count.check(count.json().is_array() && count.json().size() == 3,
                "must be an array of 3 integers");
    for (std::size_t a = 0; a < 3; ++a) {
      g.count[a] = static_cast<std::uint32_t>(
          count.at(a).as_uint(1, std::numeric_limits<std::uint32_t>::max()));
    }
    Field spacing = o.require("spacing");
    g.spacing = spacing.positive();
    g.radius = o.require("radius").positive();
    bool is_static = false;
    if (auto f = o.get("static")) is_static = f->as_bool();
    g.mass = read_mass(o, g.radius, is_static, true);
    if (auto f = o.get("jitter")) {
      float jitter = f->as_float();
      f->check(jitter >= 0.0f && jitter < 0.5f, "must be in [0, 0.5) (a fraction of spacing)");
      g.jitter = jitter;
    }
    double min_spacing = 2.0 * static_cast<double>(g.radius) / (1.0 - 2.0 * g.jitter);
    spacing.check(
        g.spacing >= min_spacing * (1.0 - 1e-6),
        g.jitter > 0.0
            ? fmt::format("must be >= 2 * radius / (1 - 2 * jitter) = {:.6g}, or jittered "
                          "neighbours could overlap",
                          min_spacing)
            : fmt::format("must be >= 2 * radius = {:.6g}, or neighbouring particles overlap",
                          min_spacing));
    if (auto f = o.get("seed")) g.seed = f->as_uint(0, std::numeric_limits<std::uint64_t>::max());
    if (auto f = o.get("velocity")) g.velocity = f->as_vec3();
    g.material = material_of(o);
    glm::dvec3 lo = g.lo(), hi = g.hi();
    double reach = std::max({std::abs(lo.x), std::abs(lo.y), std::abs(lo.z), std::abs(hi.x),
                             std::abs(hi.y), std::abs(hi.z)});
    count.check(reach <= kFloatMax, "the lattice reaches beyond the 32-bit float range");
    return g;
  }

  Generator read_particle(const Object& o) const {
    Generator g;
    g.origin = glm::dvec3(o.require("position").as_vec3());
    if (auto f = o.get("velocity")) g.velocity = f->as_vec3();
    g.radius = o.require("radius").positive();
    bool is_static = false;
    if (auto f = o.get("static")) is_static = f->as_bool();
    g.mass = read_mass(o, g.radius, is_static, false);
    g.material = material_of(o);
    return g;
  }

  // First pass: validate and count every generator; nothing is allocated here.
  void read_generators(const Field& list) {
    std::size_t n = list.array_size();
    list.check(n >= 1, "must list at least one particle generator");
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      Field f = list.at(i);
      f.check(f.json().is_object(), "must be an object (a particle generator)");
      auto type_it = f.json().find("type");
      if (type_it == f.json().end()) {
        fail_at(source_, join_path(f.path(), "type"),
                "required field is missing (\"lattice\" or \"particle\")");
      }
      Field type_field(source_, *type_it, join_path(f.path(), "type"));
      std::string type = type_field.as_string();
      Generator g;
      if (type == "lattice") {
        g = read_lattice(
            Object(f, {"type", "origin", "count", "spacing", "radius", "mass", "density", "jitter",
                       "seed", "velocity", "material", "static"}));
      } else if (type == "particle") {
        g = read_particle(
            Object(f, {"type", "position", "velocity", "radius", "mass", "material", "static"}));
      } else {
        type_field.fail("unknown generator type; allowed: \"lattice\", \"particle\"");
      }
      g.path = f.path();
      // Each count is < 2^32, so the product of the first two cannot overflow; the double
      // product is only used to describe a scene that is too large anyway.
      double wanted = static_cast<double>(g.count[0]) * g.count[1] * g.count[2];
      double would_be = static_cast<double>(total) + wanted;
      if (would_be > static_cast<double>(kMaxParticles)) {
        std::string rule = fmt::format(
            "{} the scene to {:.0f} particles (~{} of particle state); at most kMaxParticles = {} "
            "are allowed",
            g.lattice ? fmt::format("the lattice's {:.0f} particles bring", wanted)
                      : std::string("this particle brings"),
            would_be, format_bytes(would_be * static_cast<double>(kBytesPerParticle)),
            kMaxParticles);
        if (g.lattice)
          Field(source_, f.json().at("count"), join_path(f.path(), "count")).fail(rule);
        f.fail(rule);
      }
      g.particles = static_cast<std::uint64_t>(wanted);
      g.first = total;
      total += g.particles;
      max_radius_ = std::max(max_radius_, g.radius);
      generators_.push_back(std::move(g));
    }
    total_ = total;
  }

  // Second pass: emit the particles. Lattice order: x fastest, then y, then z; each particle
  // draws its x, y, z jitter in that order from the generator's own splitmix64 stream.
  void generate() {
    Particles& p = scene_.particles;
    p.pos_radius.reserve(total_);
    p.vel_invmass.reserve(total_);
    p.material.reserve(total_);
    for (const Generator& g : generators_) {
      SplitMix64 rng(g.seed);
      double amplitude = g.jitter * g.spacing;
      for (std::uint32_t k = 0; k < g.count[2]; ++k) {
        for (std::uint32_t j = 0; j < g.count[1]; ++j) {
          for (std::uint32_t i = 0; i < g.count[0]; ++i) {
            glm::dvec3 x = g.origin + g.spacing * glm::dvec3(i, j, k);
            if (amplitude > 0.0) {
              x.x += amplitude * (2.0 * rng.uniform() - 1.0);
              x.y += amplitude * (2.0 * rng.uniform() - 1.0);
              x.z += amplitude * (2.0 * rng.uniform() - 1.0);
            }
            p.add(glm::vec3(x), g.velocity, g.radius, g.mass, g.material);
          }
        }
      }
    }
  }

  // The broadphase visits only the 27 cells around a particle. Computed in float exactly as
  // the step setup (host/sim/step_params.cpp) does, so a scene that loads also runs.
  void check_cell_size() const {
    const Settings& s = scene_.settings;
    if (!cell_size_field_) return;
    float margin = s.contact_margin >= 0.0f ? s.contact_margin : 0.05f * max_radius_;
    float needed = 2.0f * max_radius_ + margin;
    cell_size_field_->check(
        s.cell_size >= needed,
        fmt::format("must be >= 2 * largest radius + contact margin = {:.6g} m (the broadphase "
                    "searches adjacent cells only)",
                    needed));
  }

  const Generator& generator_of(std::size_t index) const {
    auto it = std::upper_bound(generators_.begin(), generators_.end(), index,
                               [](std::size_t i, const Generator& g) { return i < g.first; });
    return *std::prev(it);
  }

  std::string describe_particle(std::size_t index, bool with_path) const {
    const Generator& g = generator_of(index);
    const glm::vec4& x = scene_.particles.pos_radius[index];
    return fmt::format("{} at {} with radius {:.6g}", g.label(index - g.first, with_path),
                       format_vec(glm::dvec3(x)), x.w);
  }

  // Every particle must start on the free side of every plane.
  void check_planes() const {
    const auto& pr = scene_.particles.pos_radius;
    for (std::size_t p = 0; p < scene_.planes.size(); ++p) {
      glm::dvec3 n(scene_.planes[p].normal);
      double offset = scene_.planes[p].offset;
      for (std::size_t i = 0; i < pr.size(); ++i) {
        glm::dvec3 x(pr[i]);
        double r = pr[i].w;
        double gap = glm::dot(n, x) - offset - r;
        double scale = std::abs(offset) + std::max({std::abs(x.x), std::abs(x.y), std::abs(x.z)});
        if (gap >= -(1e-3 * r + 1e-6 * scale)) continue;
        fail_at(source_, generator_of(i).path,
                fmt::format("{} penetrates {} by {:.6g} m; particles must start on the free side "
                            "of every plane",
                            describe_particle(i, false), plane_labels_[p], -gap));
      }
    }
  }

  // True when particles i and j overlap by more than rounding can explain.
  bool overlap(std::size_t i, std::size_t j, double* depth) const {
    const glm::vec4& a = scene_.particles.pos_radius[i];
    const glm::vec4& b = scene_.particles.pos_radius[j];
    glm::dvec3 xa(a), xb(b);
    double ra = a.w, rb = b.w;
    *depth = ra + rb - glm::length(xb - xa);
    double scale = std::max({std::abs(xa.x), std::abs(xa.y), std::abs(xa.z), std::abs(xb.x),
                             std::abs(xb.y), std::abs(xb.z)});
    return *depth > 1e-3 * std::min(ra, rb) + 1e-6 * scale;
  }

  // Particles of different generators must not overlap (a lattice cannot overlap itself: its
  // spacing rule guarantees that). Particles are visited in index order and each looks for
  // partners with a higher index, so the pair reported is the first in index order:
  //   - in a lattice: its sites near the particle follow from the lattice's origin and
  //     spacing, so a lattice is searched without any extra data structure;
  //   - among the single particles: a hashed grid of cell 2 * largest single radius (or a plain
  //     scan when that is shorter).
  // A bounding-box test skips generators far from the particle, so the usual scene (separate
  // generators) costs one box test per particle and generator.
  void check_overlaps() const {
    if (generators_.size() < 2) return;
    const auto& pr = scene_.particles.pos_radius;
    auto touches = [](glm::dvec3 alo, glm::dvec3 ahi, glm::dvec3 blo, glm::dvec3 bhi) {
      return alo.x <= bhi.x && ahi.x >= blo.x && alo.y <= bhi.y && ahi.y >= blo.y &&
             alo.z <= bhi.z && ahi.z >= blo.z;
    };

    std::vector<std::size_t> lattices;   // generator indices
    std::vector<std::uint32_t> singles;  // particle indices, ascending
    glm::dvec3 singles_lo(std::numeric_limits<double>::max()), singles_hi(-singles_lo);
    double singles_radius = 0.0;
    for (std::size_t gi = 0; gi < generators_.size(); ++gi) {
      const Generator& g = generators_[gi];
      if (g.lattice) {
        lattices.push_back(gi);
        continue;
      }
      singles.push_back(static_cast<std::uint32_t>(g.first));
      singles_lo = glm::min(singles_lo, g.lo());
      singles_hi = glm::max(singles_hi, g.hi());
      singles_radius = std::max(singles_radius, static_cast<double>(g.radius));
    }

    struct CellHash {
      std::size_t operator()(const std::array<std::int64_t, 3>& c) const {
        std::uint64_t h = SplitMix64(static_cast<std::uint64_t>(c[0])).next();
        h = SplitMix64(h ^ static_cast<std::uint64_t>(c[1])).next();
        return static_cast<std::size_t>(SplitMix64(h ^ static_cast<std::uint64_t>(c[2])).next());
      }
    };
    const double cell = 2.0 * singles_radius;
    auto cell_of = [cell](double v) {
      return static_cast<std::int64_t>(std::clamp(std::floor(v / cell), -1e15, 1e15));
    };
    std::unordered_map<std::array<std::int64_t, 3>, std::vector<std::uint32_t>, CellHash> grid;
    if (singles.size() >= 2 || !lattices.empty()) {
      for (std::uint32_t j : singles) {
        glm::dvec3 x(pr[j]);
        grid[{cell_of(x.x), cell_of(x.y), cell_of(x.z)}].push_back(j);
      }
    }

    for (std::size_t gi = 0; gi < generators_.size(); ++gi) {
      const Generator& g = generators_[gi];
      for (std::size_t i = g.first; i < g.first + g.particles; ++i) {
        glm::dvec3 xi(pr[i]);
        double ri = pr[i].w;
        glm::dvec3 lo = xi - glm::dvec3(ri), hi = xi + glm::dvec3(ri);
        std::optional<std::size_t> best;
        double best_depth = 0.0;
        auto consider = [&](std::size_t j) {
          double depth = 0.0;
          if (j <= i || (best && j >= *best) || !overlap(i, j, &depth)) return false;
          best = j;
          best_depth = depth;
          return true;
        };

        for (std::size_t bi : lattices) {
          const Generator& b = generators_[bi];
          if (bi == gi || b.first + b.particles <= i + 1 || (best && b.first >= *best)) continue;
          if (!touches(lo, hi, b.lo(), b.hi())) continue;
          // Sites whose grid point lies within r_i + r_b + jitter amplitude on every axis.
          double reach = ri + static_cast<double>(b.radius) + b.jitter * b.spacing;
          std::array<std::uint64_t, 3> first{}, last{};
          bool empty = false;
          for (int a = 0; a < 3; ++a) {
            double top = static_cast<double>(b.count[static_cast<std::size_t>(a)] - 1u);
            double f = std::ceil((xi[a] - b.origin[a] - reach) / b.spacing);
            double l = std::floor((xi[a] - b.origin[a] + reach) / b.spacing);
            f = std::max(f, 0.0);
            l = std::min(l, top);
            empty = empty || f > l;
            first[static_cast<std::size_t>(a)] = empty ? 0 : static_cast<std::uint64_t>(f);
            last[static_cast<std::size_t>(a)] = empty ? 0 : static_cast<std::uint64_t>(l);
          }
          if (empty) continue;
          const std::uint64_t nx = b.count[0], ny = b.count[1];
          bool found = false;
          for (std::uint64_t z = first[2]; z <= last[2] && !found; ++z) {
            for (std::uint64_t y = first[1]; y <= last[1] && !found; ++y) {
              for (std::uint64_t x = first[0]; x <= last[0] && !found; ++x) {
                found = consider(b.first + (z * ny + y) * nx + x);
              }
            }
          }
        }

        bool near_singles = !singles.empty() && (g.lattice || singles.size() >= 2) &&
                            touches(lo, hi, singles_lo, singles_hi);
        if (near_singles) {
          double reach = ri + singles_radius;
          std::int64_t x0 = cell_of(xi.x - reach), x1 = cell_of(xi.x + reach);
          std::int64_t y0 = cell_of(xi.y - reach), y1 = cell_of(xi.y + reach);
          std::int64_t z0 = cell_of(xi.z - reach), z1 = cell_of(xi.z + reach);
          double cells = static_cast<double>(x1 - x0 + 1) * static_cast<double>(y1 - y0 + 1) *
                         static_cast<double>(z1 - z0 + 1);
          if (cells > static_cast<double>(singles.size())) {
            for (std::uint32_t j : singles) consider(j);
          } else {
            for (std::int64_t z = z0; z <= z1; ++z) {
              for (std::int64_t y = y0; y <= y1; ++y) {
                for (std::int64_t x = x0; x <= x1; ++x) {
                  auto it = grid.find({x, y, z});
                  if (it == grid.end()) continue;
                  for (std::uint32_t j : it->second) consider(j);
                }
              }
            }
          }
        }

        if (best) {
          fail_at(
              source_, g.path,
              fmt::format("{} overlaps {} by {:.6g} m; particles must not start overlapping",
                          describe_particle(i, false), describe_particle(*best, true), best_depth));
        }
      }
    }
  }

  const std::string& source_;
  const Json& doc_;
  Scene scene_;
  float default_k_ = Material{}.spook_k;
  float default_d_ = Material{}.spook_d;
  std::optional<Field> cell_size_field_;
  std::vector<std::string> plane_labels_;
  std::vector<Generator> generators_;
  std::uint64_t total_ = 0;
  float max_radius_ = 0.0f;
  std::size_t listed_bodies_ = 0;
  std::optional<std::uint32_t> world_;
};

}  // namespace

Scene parse_scene(std::string_view json_text, std::string_view source_name) {
  const std::string source =
      source_name.empty() ? std::string("<scene>") : std::string(source_name);
  Json doc = parse_json(json_text, source);
  return SceneParser(source, doc).run();
}

Scene load_scene(const std::filesystem::path& path) {
  const std::string source = path.string();
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    std::string why =
        ec ? ec.message() : std::make_error_code(std::errc::no_such_file_or_directory).message();
    throw SceneError(fmt::format("{}: cannot read scene file: {}", source, why));
  }
  if (std::filesystem::is_directory(status)) {
    throw SceneError(fmt::format("{}: cannot read scene file: it is a directory", source));
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    throw SceneError(fmt::format("{}: cannot read scene file: {}", source,
                                 err ? std::strerror(err) : "open failed"));
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw SceneError(fmt::format("{}: cannot read scene file: read error", source));
  return parse_scene(text, source);
}

std::string scene_summary(const Scene& scene) {
  const double h = scene.settings.time_step;
  if (!scene.bodies.empty()) {
    std::size_t fixed = 0;
    for (const Body& b : scene.bodies) fixed += b.mass == 0.0f ? 1u : 0u;
    return fmt::format(
        "{}: {} bodies ({} static), {} joints, {} planes, {} materials, h = {:.6g} s ({:.4g} Hz), "
        "{} iterations",
        scene.name, scene.bodies.size(), fixed, scene.joints.size(), scene.planes.size(),
        scene.materials.size(), h, h > 0.0 ? 1.0 / h : 0.0, scene.settings.solver.iterations);
  }
  std::size_t fixed = 0;
  for (const glm::vec4& v : scene.particles.vel_invmass) fixed += v.w == 0.0f ? 1u : 0u;
  return fmt::format(
      "{}: {} particles ({} static), {} planes, {} materials, h = {:.6g} s ({:.4g} Hz), {} "
      "iterations",
      scene.name, scene.particles.size(), fixed, scene.planes.size(), scene.materials.size(), h,
      h > 0.0 ? 1.0 / h : 0.0, scene.settings.solver.iterations);
}

}  // namespace vkphys::io
