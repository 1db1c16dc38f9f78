// Scene file sections "planes" and "box" (five or six planes), shared by particle and rigid-body
// scenes. Each plane keeps a label for the particle checks' messages (scene_check_particles.cpp).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "kernels/limits.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

constexpr std::uint32_t kMaxPlanes = VKPHYS_MAX_PLANES;

void SceneParser::add_plane(glm::dvec3 normal, double offset, std::uint32_t material,
                            std::string label) {
  Plane p;
  p.normal = glm::vec3(normal);
  p.offset = static_cast<float>(offset);
  p.material = material;
  scene_.planes.push_back(p);
  plane_labels_.push_back(std::move(label));
}

void SceneParser::read_planes(const Object& top) {
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
      g->check(std::abs(offset) <= kCoordinate.max,
               fmt::format("offset / |normal| = {:.6g} m; the plane must pass within {:g} m of "
                           "the origin",
                           offset, kCoordinate.max));
    }
    add_plane(normal / length, offset, material_of(o), index_path("planes", i));
  }
}

void SceneParser::read_box(const Object& top) {
  auto f = top.get("box");
  if (!f) return;
  Object o(*f, {"min", "max", "open_top", "material"});
  glm::dvec3 lo(bounded_vec3(o.require("min"), kCoordinate));
  Field max_field = o.require("max");
  glm::dvec3 hi(bounded_vec3(max_field, kCoordinate));
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
    add_plane({0, -1, 0}, 0.0 - hi.y, material, fmt::format("the box ceiling (y = {:.6g})", hi.y));
  }
}

}  // namespace vkphys::io::scene_reader
