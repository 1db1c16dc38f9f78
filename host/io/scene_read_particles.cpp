// Scene file section "particles": the "lattice" and "particle" generators. They are validated
// and counted first (read_generators), so that a scene over kMaxParticles fails before anything
// is allocated, and only then generated (generate), which also gives the kinematic path of a
// single particle (version 2) its particle index.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "host/sim/splitmix.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

constexpr std::uint64_t kBytesPerParticle = 2 * sizeof(glm::vec4) + sizeof(std::uint32_t);

// Mass per particle; 0 for static particles. Density is allowed for lattices only.
float SceneParser::read_mass(const Object& o, float radius, bool is_static,
                             bool allow_density) const {
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
    double rho = double(density_field->positive());
    double r = double(radius);
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

Generator SceneParser::read_lattice(const Object& o) const {
  Generator g;
  g.lattice = true;
  g.origin = glm::dvec3(bounded_vec3(o.require("origin"), kCoordinate));
  Field count = o.require("count");
  count.check(count.json().is_array() && count.json().size() == 3,
              "must be an array of 3 integers");
  for (std::size_t a = 0; a < 3; ++a) {
    g.count[a] = static_cast<std::uint32_t>(
        count.at(a).as_uint(1, std::numeric_limits<std::uint32_t>::max()));
  }
  Field spacing = o.require("spacing");
  g.spacing = double(spacing.positive());
  g.radius = size_value(o.require("radius"));
  bool is_static = false;
  if (auto f = o.get("static")) is_static = f->as_bool();
  g.mass = read_mass(o, g.radius, is_static, true);
  if (auto f = o.get("jitter")) {
    float jitter = f->as_float();
    f->check(jitter >= 0.0f && jitter < 0.5f, "must be in [0, 0.5) (a fraction of spacing)");
    g.jitter = double(jitter);
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
  if (auto f = o.get("velocity")) g.velocity = bounded_vec3(*f, kSpeed);
  g.material = material_of(o);
  return g;
}

Generator SceneParser::read_particle(const Object& o) const {
  Generator g;
  g.origin = glm::dvec3(bounded_vec3(o.require("position"), kCoordinate));
  if (auto f = o.get("velocity")) g.velocity = bounded_vec3(*f, kSpeed);
  g.radius = size_value(o.require("radius"));
  bool is_static = false;
  if (auto f = o.get("static")) is_static = f->as_bool();
  g.mass = read_mass(o, g.radius, is_static, false);
  g.material = material_of(o);
  if (auto f = o.get("kinematic")) g.kinematic = read_kinematic(*f, {true, 0});
  return g;
}

// First pass: validate and count every generator; nothing is allocated here.
void SceneParser::read_generators(const Field& list) {
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
      g = read_lattice(versioned(f,
                                 {"type", "origin", "count", "spacing", "radius", "mass", "density",
                                  "jitter", "seed", "velocity", "material", "static"},
                                 {"group", "thickness"}));
    } else if (type == "particle") {
      g = read_particle(
          versioned(f, {"type", "position", "velocity", "radius", "mass", "material", "static"},
                    {"kinematic", "group", "thickness"}));
    } else {
      type_field.fail("unknown generator type; allowed: \"lattice\", \"particle\"");
    }
    g.path = f.path();
    if (f.json().contains("group")) {
      g.group = static_cast<std::uint32_t>(
          Field(source_, f.json().at("group"), join_path(f.path(), "group")).as_uint(0, kMaxGroup));
    }
    if (f.json().contains("thickness")) {
      g.thickness = thickness_value(
          Field(source_, f.json().at("thickness"), join_path(f.path(), "thickness")));
    }
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
          would_be, format_bytes(would_be * static_cast<double>(kBytesPerParticle)), kMaxParticles);
      if (g.lattice) Field(source_, f.json().at("count"), join_path(f.path(), "count")).fail(rule);
      f.fail(rule);
    }
    if (g.lattice) {
      glm::dvec3 lo = g.lo(), hi = g.hi();
      double reach = std::max({std::abs(lo.x), std::abs(lo.y), std::abs(lo.z), std::abs(hi.x),
                               std::abs(hi.y), std::abs(hi.z)});
      Field(source_, f.json().at("count"), join_path(f.path(), "count"))
          .check(reach <= kCoordinate.max,
                 fmt::format("the lattice reaches {:.6g} m from the origin; particles must stay "
                             "within {:g} m of it",
                             reach, kCoordinate.max));
    }
    g.particles = static_cast<std::uint64_t>(wanted);
    g.first = total;
    total += g.particles;
    max_radius_ = std::max(max_radius_, g.radius);
    max_pair_radius_ = std::max({max_pair_radius_, g.radius, 0.5f * g.thickness});
    generators_.push_back(std::move(g));
  }
  total_ = total;
}

// Second pass: emit the particles. Lattice order: x fastest, then y, then z; each particle
// draws its x, y, z jitter in that order from the generator's own splitmix64 stream.
void SceneParser::generate() {
  Particles& p = scene_.particles;
  p.pos_radius.reserve(total_);
  p.vel_invmass.reserve(total_);
  p.material.reserve(total_);
  for (const Generator& g : generators_) {
    if (g.kinematic) {
      scene_.kinematic.push_back(*g.kinematic);
      scene_.kinematic.back().target.index = static_cast<std::uint32_t>(p.size());
    }
    SplitMix64 rng(g.seed);
    double amplitude = g.jitter * g.spacing;
    for (std::uint32_t k = 0; k < g.count[2]; ++k) {
      for (std::uint32_t j = 0; j < g.count[1]; ++j) {
        for (std::uint32_t i = 0; i < g.count[0]; ++i) {
          glm::dvec3 x = g.origin + g.spacing * glm::dvec3(i, j, k);
          if (amplitude > 0.0) {
            x.x += amplitude * (2.0 * rng.unit() - 1.0);
            x.y += amplitude * (2.0 * rng.unit() - 1.0);
            x.z += amplitude * (2.0 * rng.unit() - 1.0);
          }
          p.add(glm::vec3(x), g.velocity, g.radius, g.mass, g.material);
          if (g.group != 0) {
            p.group.resize(p.size(), 0u);  // add() keeps the list only once it is in use
            p.group.back() = g.group;
          }
          if (g.thickness != 0.0f) {
            p.thickness.resize(p.size(), 0.0f);  // as the group
            p.thickness.back() = g.thickness;
          }
        }
      }
    }
  }
}

}  // namespace vkphys::io::scene_reader
