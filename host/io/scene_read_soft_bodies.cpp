// Scene file section "soft_bodies" (version 2): the soft box generator (include/vkphys/soft_body.h,
// a jelly cube: a lattice of particles with edge, face-diagonal and body-diagonal springs),
// appended after the particles of "particles" and "cloths"; its particles share one particle
// group, so they collide with everything but each other.
#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "vkphys/soft_body.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

void SceneParser::read_soft_bodies(const Field& list) {
  const std::size_t n = list.array_size();
  for (std::size_t s = 0; s < n; ++s) {
    Object o(list.at(s),
             {"origin", "size", "resolution", "density", "radius", "springs", "material"});
    SoftBoxSpec spec;
    spec.origin = bounded_vec3(o.require("origin"), kCoordinate);
    Field size = o.require("size");
    spec.size = bounded_vec3(size, kCoordinate);
    size.check(spec.size.x > 0.0f && spec.size.y > 0.0f && spec.size.z > 0.0f,
               "every edge length must be > 0");
    Field res = o.require("resolution");
    res.check(res.json().is_array() && res.json().size() == 3,
              "must be [particles along x, along y, along z]");
    spec.nx = static_cast<std::uint32_t>(res.at(0).as_uint(2, 256));
    spec.ny = static_cast<std::uint32_t>(res.at(1).as_uint(2, 256));
    spec.nz = static_cast<std::uint32_t>(res.at(2).as_uint(2, 256));
    spec.density = o.require("density").positive();
    if (auto f = o.get("radius")) spec.radius = size_value(*f);
    Object k(o.require("springs"), {"edge", "face", "body", "model", "d", "c"});
    spec.k_edge = k.require("edge").positive();
    spec.k_face = 0.0f;
    spec.k_body = 0.0f;
    if (auto f = k.get("face")) spec.k_face = f->non_negative();
    if (auto f = k.get("body")) spec.k_body = f->non_negative();
    read_spring_model(k, spec.model, spec.d, spec.c);
    spec.material = material_of(o);
    const SoftBoxSprings kinds = soft_box_springs(spec.nx, spec.ny, spec.nz);
    const std::uint64_t springs =
        kinds.edge + (spec.k_face > 0.0f ? kinds.face : 0) + (spec.k_body > 0.0f ? kinds.body : 0);
    check_generated_counts(res, "soft body", "particles",
                           std::uint64_t{spec.nx} * spec.ny * spec.nz, springs);
    const std::size_t first = scene_.particles.size();
    try {
      add_soft_box(scene_, spec);  // checks the radius against the spacing
    } catch (const std::invalid_argument& e) {
      o.field().fail(e.what());
    }
    place_generated(o, first, "particle", "a soft body");
  }
}

}  // namespace vkphys::io::scene_reader
