// Scene file sections "cloths", "springs" and "triangles" (version 2). A cloth is a generator
// (include/vkphys/cloth.h): a grid of particles over a parallelogram with structural, shear and
// bend springs, appended after the particles of "particles"; its vertices share one particle group,
// so they collide with everything but each other (unless it has a "thickness": self-collision).
// "springs" then joins any two particles, cloth vertices included, by index, or a particle to a
// point on a rigid body (a rope hanging a box).
// "triangles" adds surface triangles over particles (Scene::triangles) to the cloths' own: the
// written form of a scene with cloths, which lists their particles, springs and triangles.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/io/scene_reader.h"
#include "host/sim/particle_links.h"
#include "vkphys/cloth.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

namespace {

constexpr std::uint64_t kMaxClothSide = 4096;  // add_cloth's limit per direction

glm::vec3 edge(const Field& f) {
  glm::vec3 e = bounded_vec3(f, kCoordinate);
  f.check(glm::length(glm::dvec3(e)) > 0.0, "must be non-zero");
  return e;
}

// A pin's vertex as the file writes it, arrays with ", " between their numbers: "[3, 4]", "17".
std::string written(const Field& at) {
  if (!at.json().is_array()) return at.json().dump();
  std::string out;
  for (const Json& v : at.json()) out += (out.empty() ? "[" : ", ") + v.dump();
  return out + "]";
}

}  // namespace

void read_spring_model(const Object& o, SpringModel& model, float& d, float& c) {
  if (auto f = o.get("model")) model = static_cast<SpringModel>(choice(*f, kSpringModelNames));
  if (model == SpringModel::force) {
    if (auto f = o.get("d")) {
      f->fail(
          "is a compliant spring's SPOOK relaxation; a force spring (model \"force\") takes "
          "c [kg/s]");
    }
    if (auto f = o.get("c")) c = f->non_negative();
  } else {
    if (auto f = o.get("c")) {
      f->fail("is a force spring's damping; a compliant spring takes d (or set model \"force\")");
    }
    if (auto f = o.get("d")) d = f->non_negative();
  }
}

void SceneParser::read_cloths(const Field& list) {
  const std::size_t n = list.array_size();
  for (std::size_t c = 0; c < n; ++c) {
    Object o(list.at(c), {"origin", "u", "v", "resolution", "density", "radius", "thickness",
                          "springs", "material", "pins", "tethers"});
    ClothSpec spec;
    spec.origin = bounded_vec3(o.require("origin"), kCoordinate);
    spec.u = edge(o.require("u"));
    spec.v = edge(o.require("v"));
    Field res = o.require("resolution");
    res.check(res.json().is_array() && res.json().size() == 2,
              "must be [vertices along u, vertices along v]");
    spec.nu = static_cast<std::uint32_t>(res.at(0).as_uint(2, kMaxClothSide));
    spec.nv = static_cast<std::uint32_t>(res.at(1).as_uint(2, kMaxClothSide));
    spec.density = o.require("density").positive();
    if (auto f = o.get("radius")) spec.radius = size_value(*f);
    if (auto f = o.get("thickness")) spec.thickness = thickness_value(*f);
    Object k(o.require("springs"), {"structural", "shear", "diagonals", "bend", "d", "model", "c"});
    spec.k_structural = k.require("structural").positive();
    spec.k_shear = k.require("shear").positive();
    if (auto f = k.get("diagonals")) {
      spec.diagonals = static_cast<ClothDiagonals>(choice(*f, kClothDiagonalNames));
    }
    spec.k_bend = 0.0f;
    if (auto f = k.get("bend")) spec.k_bend = f->non_negative();
    read_spring_model(k, spec.model, spec.d, spec.c);
    spec.material = material_of(o);
    if (auto f = o.get("tethers"))
      spec.tethers = static_cast<ClothTethers>(choice(*f, kClothTetherNames));
    PinPaths pin_paths;
    for (std::uint32_t vertex : read_pins(o, pin_paths, [&](const Field& at) {
           at.check(at.json().is_array() && at.json().size() == 2,
                    "must be [i, j], a vertex's index along u and along v, or {\"at\": [i, j], "
                    "\"kinematic\": {...}}");
           const auto i = static_cast<std::uint32_t>(at.at(0).as_uint(0, spec.nu - 1u));
           const auto j = static_cast<std::uint32_t>(at.at(1).as_uint(0, spec.nv - 1u));
           return j * spec.nu + i;
         })) {
      spec.pins.emplace_back(vertex % spec.nu, vertex / spec.nu);
    }
    check_generated_counts(res, "cloth", "vertices", std::uint64_t{spec.nu} * spec.nv,
                           cloth_spring_count(spec));
    const std::size_t first = scene_.particles.size();
    try {
      add_cloth(scene_, spec);  // checks the geometry: parallel edges, radius against spacing
    } catch (const std::invalid_argument& e) {
      o.field().fail(e.what());
    }
    place_generated(o, first, "vertex", "a cloth");
    add_pin_paths(std::move(pin_paths), first);
  }
}

std::vector<std::uint32_t> SceneParser::read_pins(
    const Object& o, PinPaths& paths,
    const std::function<std::uint32_t(const Field&)>& vertex) const {
  std::vector<std::uint32_t> pinned;
  auto pins = o.get("pins");
  if (!pins) return pinned;
  for (std::size_t p = 0; p < pins->array_size(); ++p) {
    Field pin = pins->at(p);
    std::optional<Object> moving;
    if (pin.json().is_object()) {
      moving.emplace(pin, std::initializer_list<std::string_view>{"at", "kinematic"});
    }
    const Field at = moving ? moving->require("at") : pin;
    const std::uint32_t v = vertex(at);
    pinned.push_back(v);
    if (!moving) continue;
    for (const auto& [other, path] : paths) {
      if (other == v) {
        pin.fail(fmt::format("vertex {} already has a path: a vertex follows one", written(at)));
      }
    }
    paths.emplace_back(v, read_kinematic(moving->require("kinematic"), {true, 0}));
  }
  return pinned;
}

void SceneParser::add_pin_paths(PinPaths paths, std::size_t first) {
  // Paths are listed in target order (docs/scene-format.md, kinematic): the cloth's vertices
  // follow every particle read before them.
  std::sort(paths.begin(), paths.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [vertex, path] : paths) {
    path.target.index = static_cast<std::uint32_t>(first) + vertex;
    scene_.kinematic.push_back(path);
  }
}

void SceneParser::check_generated_counts(const Field& res, std::string_view what,
                                         std::string_view noun, std::uint64_t particles,
                                         std::uint64_t springs) const {
  const std::uint64_t total = scene_.particles.size() + particles;
  res.check(total <= kMaxParticles,
            fmt::format("the {}'s {} {} bring the scene to {} particles; at most kMaxParticles "
                        "= {} are allowed",
                        what, particles, noun, total, kMaxParticles));
  res.check(scene_.springs.size() + springs <= kMaxJoints,
            fmt::format("the {}'s {} springs bring the scene to {}; at most kMaxJoints = {} are "
                        "allowed",
                        what, springs, scene_.springs.size() + springs, kMaxJoints));
}

void SceneParser::place_generated(const Object& o, std::size_t first, std::string_view noun,
                                  std::string_view what) {
  max_radius_ = std::max(max_radius_, scene_.particles.pos_radius[first].w);
  const std::vector<float>& t = scene_.particles.thickness;
  max_pair_radius_ = std::max(max_pair_radius_, scene_.particles.pos_radius[first].w);
  if (first < t.size()) max_pair_radius_ = std::max(max_pair_radius_, 0.5f * t[first]);
  if (const auto hit = first_below_plane(first, scene_.particles.size())) {
    o.field().fail(fmt::format(
        "{} {} at {} penetrates {} by {:.6g} m; {} must start on the free side of every plane",
        noun, hit->particle - first,
        format_vec(glm::dvec3(scene_.particles.pos_radius[hit->particle])),
        plane_labels_[hit->plane], hit->depth, what));
  }
}

void SceneParser::read_springs(const Field& list) {
  const std::size_t n = list.array_size();
  const std::uint64_t particles = scene_.particles.size();
  list.check(scene_.springs.size() + n <= kMaxJoints,
             fmt::format("{} springs with the cloths'; at most kMaxJoints = {} are allowed",
                         scene_.springs.size() + n, kMaxJoints));
  const std::string listing = fmt::format("the scene has {} particles", particles);
  for (std::size_t s = 0; s < n; ++s) {
    Object o(list.at(s),
             {"particles", "particle", "body", "anchor", "rest", "k", "d", "model", "c", "tether"});
    Spring spring;
    glm::dvec3 xb;
    if (o.get("body")) {
      if (auto f = o.get("particles")) {
        f->fail(
            "cannot be combined with \"body\": a particle-body spring gives \"particle\" "
            "and \"body\"");
      }
      xb = read_body_end(o, spring);
    } else {
      for (const char* key : {"particle", "anchor"}) {
        if (auto f = o.get(key)) {
          f->fail("belongs to a particle-body spring, which also needs \"body\" (a body index)");
        }
      }
      Field ends = o.require("particles");
      ends.check(ends.json().is_array() && ends.json().size() == 2,
                 "must be [a, b], two particle indices");
      spring.a = index_below(ends.at(0), particles, "particle", listing);
      spring.b = index_below(ends.at(1), particles, "particle", listing);
      ends.check(spring.a != spring.b, "a spring joins two different particles");
      xb = glm::dvec3(scene_.particles.pos_radius[spring.b]);
    }
    const glm::dvec3 xa(scene_.particles.pos_radius[spring.a]);
    spring.rest = static_cast<float>(glm::length(xb - xa));
    if (auto f = o.get("rest")) spring.rest = f->non_negative();
    spring.k = o.require("k").positive();
    if (auto f = o.get("model"); f && spring.to_body() && f->as_string() != "compliant") {
      f->fail("a particle-body spring is \"compliant\" only (force springs join particles)");
    }
    read_spring_model(o, spring.model, spring.d, spring.c);
    if (auto f = o.get("tether"); f && f->as_bool()) {
      f->check(!spring.to_body() && spring.model == SpringModel::compliant,
               "a tether is a compliant spring between two particles (no \"body\", model "
               "\"compliant\")");
      spring.pull = SpringPull::tether;
    }
    scene_.springs.push_back(spring);
  }
}

// Each triangle [a, b, c]: three different particle indices whose starting positions are not
// on one line (a surface needs an area to have a normal).
void SceneParser::read_triangles(const Field& list) {
  const std::size_t n = list.array_size();
  list.check(scene_.triangles.size() + n <= kMaxTriangles,
             fmt::format("{} triangles with the cloths' and soft bodies'; at most kMaxTriangles "
                         "= {} are allowed",
                         scene_.triangles.size() + n, kMaxTriangles));
  const std::uint64_t particles = scene_.particles.size();
  const std::string listing = fmt::format("the scene has {} particles", particles);
  for (std::size_t t = 0; t < n; ++t) {
    Field f = list.at(t);
    f.check(f.json().is_array() && f.json().size() == 3,
            "must be [a, b, c], three particle indices");
    const Triangle tri{index_below(f.at(0), particles, "particle", listing),
                       index_below(f.at(1), particles, "particle", listing),
                       index_below(f.at(2), particles, "particle", listing)};
    f.check(tri.a != tri.b && tri.b != tri.c && tri.a != tri.c,
            "a triangle joins three different particles");
    const glm::dvec3 xa(scene_.particles.pos_radius[tri.a]);
    const double area =
        0.5 * glm::length(glm::cross(glm::dvec3(scene_.particles.pos_radius[tri.b]) - xa,
                                     glm::dvec3(scene_.particles.pos_radius[tri.c]) - xa));
    f.check(area > 0.0, fmt::format("the particles' starting positions are on one line (area {:g} "
                                    "m^2; it must be > 0)",
                                    area));
    scene_.triangles.push_back(tri);
  }
}

// A particle-body spring's ends: "particle", and "body" (a dynamic listed body) with "anchor"
// (a point on or inside it, in its frame; default its centre). Returns the anchor's world point
// as loaded, the default rest length's other end.
glm::dvec3 SceneParser::read_body_end(const Object& o, Spring& spring) {
  const std::uint64_t particles = scene_.particles.size();
  Field p = o.require("particle");
  spring.a =
      index_below(p, particles, "particle", fmt::format("the scene has {} particles", particles));
  Field b = o.require("body");
  spring.b = index_below(b, listed_bodies_, "body",
                         fmt::format("\"bodies\" lists {} bodies", listed_bodies_));
  spring.end_b = SpringEnd::body;
  const Body& body = scene_.bodies[spring.b];
  b.check(body.mass > 0.0f,
          fmt::format("body {} is static; a spring's body must be dynamic (pin the particle "
                      "instead)",
                      spring.b));
  if (auto f = o.get("anchor")) {
    spring.anchor = bounded_vec3(*f, kCoordinate);
    const double out = outside_shape(body, glm::dvec3(spring.anchor));
    f->check(out <= kAnchorTolerance,
             fmt::format("{} lies {:.6g} m outside body {}'s {} (at most {:g} m is allowed)",
                         format_vec(glm::dvec3(spring.anchor)), out, spring.b, shape_extent(body),
                         kAnchorTolerance));
  }
  return to_world(spring.b, spring.anchor);
}

}  // namespace vkphys::io::scene_reader
