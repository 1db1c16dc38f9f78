// The scene reader's shared state, private to host/io/: one SceneParser walks the document once,
// and its section readers live one file each (scene_read_*.cpp, scene_check_particles.cpp) so
// that each section's rules can be read alone. The driver, scene_file.cpp, reads the header and
// the top-level keys and calls the sections in an order that lets later sections use earlier
// ones (materials before everything that names a material, bodies before joints, bodies and
// particles before the impulses that name them).
#pragma once

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <glm/glm.hpp>
#include <initializer_list>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "vkphys/limits.h"
#include "vkphys/scene.h"

namespace vkphys::io::scene_reader {

using scene_json::Field;
using scene_json::Json;
using scene_json::Object;

constexpr double kPi = std::numbers::pi;
constexpr double kUnitTolerance = 1.0e-6;  // |length - 1| below which a vector counts as unit

// Magnitude limits of the scene's numbers (docs/scene-format.md, "Limits"). Past them the
// particle grid's cells, the sweep keys and float precision stop meaning anything (a float near
// 1e6 m is already 6 cm coarse), or a step moves a body farther than any contact can catch.
// `rule` formats `max` into the message.
struct Bound {
  double max;
  std::string_view rule;
};
constexpr Bound kCoordinate{1.0e6, "must be within {:g} m of the origin"};
constexpr Bound kSpeed{1.0e4, "must be within +-{:g} m/s"};
constexpr Bound kAngularSpeed{1.0e4, "must be within +-{:g} rad/s"};
constexpr Bound kAcceleration{double(kMaxAcceleration), "must be within +-{:g} m/s^2"};
// Applied loads. Judgement calls like the others: 1e10 N is the weight of a million tonnes, and
// 1e8 N s stops a 10,000 t body from the speed limit; loads past them are typos or attacks, and
// on a body of ordinary mass carry it past every other limit within a step.
constexpr Bound kForce{1.0e10, "must be within +-{:g} N"};
constexpr Bound kTorque{1.0e10, "must be within +-{:g} N m"};
constexpr Bound kImpulse{1.0e8, "must be within +-{:g} N s"};
constexpr double kMinSize = 1.0e-4;     // smallest radius, half extent or half height [m]
constexpr double kMaxSize = 1.0e4;      // largest one [m]
constexpr double kMaxMargin = 1.0;      // largest contact_margin [m]
constexpr double kMaxCellFactor = 8.0;  // cell_size at most this times the smallest valid one

inline void check_bound(const Field& f, double v, Bound b) {
  f.check(std::abs(v) <= b.max, fmt::format(fmt::runtime(b.rule), b.max));
}
inline float bounded(const Field& f, Bound b) {
  float v = f.as_float();
  check_bound(f, static_cast<double>(v), b);
  return v;
}
inline glm::vec3 bounded_vec3(const Field& f, Bound b) {
  glm::vec3 v = f.as_vec3();
  for (std::size_t a = 0; a < 3; ++a) {
    check_bound(f.at(a), static_cast<double>(v[static_cast<glm::length_t>(a)]), b);
  }
  return v;
}
// A particle's thickness (vkphys/scene.h, Particles::thickness): 0 (none) or a size.
inline float thickness_value(const Field& f) {
  const float t = f.non_negative();
  if (t != 0.0f) {
    f.check(t >= static_cast<float>(kMinSize),
            fmt::format("must be 0 (none) or >= {:g} m", kMinSize));
    f.check(static_cast<double>(t) <= kMaxSize, fmt::format("must be <= {:g} m", kMaxSize));
  }
  return t;
}
// A radius, half extent or half height: in [kMinSize, kMaxSize] metres.
inline float size_value(const Field& f) {
  float v = f.positive();
  f.check(v >= static_cast<float>(kMinSize), fmt::format("must be >= {:g} m", kMinSize));
  f.check(static_cast<double>(v) <= kMaxSize, fmt::format("must be <= {:g} m", kMaxSize));
  return v;
}

// A vector whose length is within kUnitTolerance of 1 is unit to float precision and is kept as
// written (so written scenes read back bit for bit); others are divided by their length.
inline glm::vec3 unit_or_normalised(glm::vec3 v) {
  const glm::dvec3 d(v);
  const double length = glm::length(d);
  if (std::abs(length - 1.0) <= kUnitTolerance) return v;
  return glm::vec3(d / length);
}
inline glm::vec4 unit_or_normalised(glm::vec4 v) {
  const glm::dvec4 d(v);
  const double length = glm::length(d);
  if (std::abs(length - 1.0) <= kUnitTolerance) return v;
  return glm::vec4(d / length);
}

// One entry of "particles", validated and counted before any particle is generated, and kept
// afterwards to name the generator and lattice site of a particle in error messages.
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
  std::uint32_t group = 0;  // particles of one nonzero group never collide with each other
  float thickness = 0.0f;   // vkphys/scene.h, Particles::thickness (0: none)
  std::uint64_t particles = 1;
  std::uint64_t first = 0;  // index of its first particle in the scene
  // A single particle's path; its target index is set when the particle is generated.
  std::optional<KinematicPath> kinematic;

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

// Index of the string value in `names` (an enumeration's spellings, host/io/scene_names.h); any
// other value fails listing them.
template <std::size_t N>
std::uint32_t choice(const Field& f, const std::array<std::string_view, N>& names) {
  std::string v = f.as_string();
  std::string list;
  for (std::size_t i = 0; i < N; ++i) {
    if (v == names[i]) return static_cast<std::uint32_t>(i);
    list += (list.empty() ? "" : ", ") + scene_json::json_quote(names[i]);
  }
  f.fail(fmt::format("must be one of {}", list));
}

// A spring's (or a generator's springs') "model" and its damping: "d" (SPOOK relaxation
// [steps]) for a compliant row, "c" [kg/s] for a force; the other model's field is refused by
// name (scene_read_springs.cpp).
void read_spring_model(const Object& o, SpringModel& model, float& d, float& c);

// A body's (or a mesh cloth's) "orientation": a quaternion [x, y, z, w], normalised, or
// {"axis": [x, y, z], "angle_deg": a} (scene_read_bodies.cpp).
glm::vec4 read_orientation(const Field& f);

// Reads an index below `count` from f. One that is not (or is no non-negative integer) fails
// with "<noun> index out of range: <listing> (indices 0 to count - 1)"; listing says what
// there is, e.g. "\"bodies\" lists 5 bodies" (with count 0, e.g. "the scene has no \"bodies\"").
inline std::uint32_t index_below(const Field& f, std::uint64_t count, std::string_view noun,
                                 std::string_view listing) {
  std::string range = count == 0 ? fmt::format("{} index out of range: {}", noun, listing)
                                 : fmt::format("{} index out of range: {} (indices 0 to {})", noun,
                                               listing, count - 1);
  f.check(f.json().is_number_unsigned(), range);
  std::uint64_t v = f.json().get<std::uint64_t>();
  f.check(v < count, range);
  return static_cast<std::uint32_t>(v);
}

class SceneParser {
 public:
  // `base`: the folder that files the scene names (mesh cloths' meshes) are relative to.
  SceneParser(const std::string& source, const Json& doc, std::filesystem::path base)
      : source_(source), doc_(doc), base_(std::move(base)) {}

  // scene_file.cpp: the header, the top-level keys and the order of the sections.
  Scene run();

 private:
  void check_header();
  // The object f with the keys `keys` of every version and the keys `added` by version 2; in a
  // version-1 file an added key is an error that names the version it needs.
  Object versioned(const Field& f, std::initializer_list<std::string_view> keys,
                   std::initializer_list<std::string_view> added) const;
  void read_contents(const Object& top);
  void read_particles(const Field& particles);

  // scene_read_settings.cpp
  void read_settings(const Object& top);
  void read_solver(const Object& top);

  void read_forces(const Object& top);

  // scene_read_camera.cpp
  void read_camera(const Object& top);

  // scene_read_materials.cpp
  void read_materials(const Object& top);
  std::uint32_t material_of(const Object& o) const;

  // scene_read_planes.cpp
  void add_plane(glm::dvec3 normal, double offset, std::uint32_t material, std::string label);
  void read_planes(const Object& top);
  void read_box(const Object& top);

  // scene_read_bodies.cpp
  void read_bodies(const Field& list);
  Body read_body(const Field& f, std::uint32_t index);

  // scene_read_joints.cpp
  std::uint32_t joint_body(const Field& f);
  glm::vec3 to_local(std::uint32_t b, glm::dvec3 world) const;
  glm::dvec3 to_world(std::uint32_t b, glm::vec3 local) const;
  void read_spook(const Object& o, std::string_view key, float* k, float* d) const;
  void read_joints(const Field& list);
  Joint read_joint(const Field& f);

  // scene_read_particles.cpp
  float read_mass(const Object& o, float radius, bool is_static, bool allow_density) const;
  Generator read_lattice(const Object& o) const;
  Generator read_particle(const Object& o) const;
  void read_generators(const Field& list);
  void generate();

  // scene_read_springs.cpp
  void read_cloths(const Field& list);
  // A cloth's "pins": each a vertex that `vertex` reads from the pin (checking its form and
  // range), held where it starts, or {"at": VERTEX, "kinematic": PATH}, moved on a path (at most
  // one per vertex). Returns the pinned vertices in the cloth's numbering; the paths wait in
  // `paths` until add_pin_paths knows the cloth's first particle.
  using PinPaths = std::vector<std::pair<std::uint32_t, KinematicPath>>;
  std::vector<std::uint32_t> read_pins(
      const Object& o, PinPaths& paths,
      const std::function<std::uint32_t(const Field&)>& vertex) const;
  void add_pin_paths(PinPaths paths, std::size_t first);
  void read_springs(const Field& list);
  glm::dvec3 read_body_end(const Object& o, Spring& spring);
  void read_triangles(const Field& list);

  // scene_read_mesh_cloths.cpp
  void read_mesh_cloths(const Field& list);

  // scene_read_soft_bodies.cpp
  void read_soft_bodies(const Field& list);
  // The particle and spring limits for a generator adding `particles` (its `noun`s) and
  // `springs`, checked on `res` before it allocates (scene_read_springs.cpp).
  void check_generated_counts(const Field& res, std::string_view what, std::string_view noun,
                              std::uint64_t particles, std::uint64_t springs) const;
  // After a generator appended particles from `first` on: the largest radius, and every new
  // particle on the free side of every plane (the error names the `noun` and says `what`).
  void place_generated(const Object& o, std::size_t first, std::string_view noun,
                       std::string_view what);

  // scene_read_motion.cpp
  KinematicPath read_kinematic(const Field& f, Target target) const;
  void read_impulses(const Object& top);
  ScheduledImpulse read_impulse(const Field& f) const;

  // scene_check_particles.cpp
  void check_cell_size() const;
  const Generator& generator_of(std::size_t index) const;
  std::string describe_particle(std::size_t index, bool with_path) const;
  struct PlaneHit {
    std::size_t particle, plane;
    double depth;
  };
  std::optional<PlaneHit> first_below_plane(std::size_t begin, std::size_t end) const;
  void check_planes() const;
  bool overlap(std::size_t i, std::size_t j, double* depth) const;
  void check_overlaps() const;

  const std::string& source_;
  const Json& doc_;
  std::filesystem::path base_;
  Scene scene_;
  int version_ = kSceneFormatVersion;  // the file's "version"
  bool scheme_given_ = false;          // solver.scheme was in the file
  bool contact_hertz_given_ = false;   // solver.contact_hertz was in the file
  float default_k_ = Material{}.spook_k;
  float default_d_ = Material{}.spook_d;
  std::optional<Field> cell_size_field_;
  std::vector<std::string> plane_labels_;
  std::vector<Generator> generators_;
  std::uint64_t total_ = 0;
  float max_radius_ = 0.0f;
  float max_pair_radius_ = 0.0f;  // the largest max(r, t/2) (thickness) a particle shows others
  std::size_t listed_bodies_ = 0;
  std::optional<std::uint32_t> world_;
};

}  // namespace vkphys::io::scene_reader
