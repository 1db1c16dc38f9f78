// Scene file section "materials", and the "material" key by which planes, particles and bodies
// name one (an index into scene.materials, 0 when left out).
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "kernels/limits.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

constexpr std::uint32_t kMaxMaterials = VKPHYS_MAX_MATERIALS;

void SceneParser::read_materials(const Object& top) {
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

std::uint32_t SceneParser::material_of(const Object& o) const {
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

}  // namespace vkphys::io::scene_reader
