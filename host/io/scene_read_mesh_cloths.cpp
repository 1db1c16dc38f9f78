// Scene file section "mesh_cloths" (version 2): cloths over triangle meshes read from OBJ files
// (include/vkphys/cloth.h: read_obj_mesh, add_mesh_cloth), appended after the particles of
// "particles", "cloths" and "soft_bodies". The mesh file is named relative to the scene file's
// folder. Its rules (no triangles, indices out of range, degenerate triangles, non-manifold
// edges, non-finite coordinates) are add_mesh_cloth's; their messages, which name the mesh file
// and line, follow the scene's "file: path = value:" prefix.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/io/scene_reader.h"
#include "vkphys/cloth.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

void SceneParser::read_mesh_cloths(const Field& list) {
  const std::size_t n = list.array_size();
  for (std::size_t c = 0; c < n; ++c) {
    Object o(list.at(c), {"mesh", "origin", "scale", "orientation", "density", "radius",
                          "thickness", "springs", "material", "pins", "tethers"});
    MeshClothSpec spec;
    const Field file = o.require("mesh");
    const std::filesystem::path name(file.as_string());
    file.check(!name.empty(), "must name an OBJ file (relative to the scene file's folder)");
    try {
      spec.mesh = read_obj_mesh(name.is_absolute() ? name : base_ / name);
    } catch (const std::invalid_argument& e) {
      file.fail(e.what());
    }
    if (auto f = o.get("origin")) spec.origin = bounded_vec3(*f, kCoordinate);
    if (auto f = o.get("scale")) spec.scale = f->positive();
    if (auto f = o.get("orientation")) spec.orientation = read_orientation(*f);
    spec.density = o.require("density").positive();
    if (auto f = o.get("radius")) spec.radius = size_value(*f);
    if (auto f = o.get("thickness")) spec.thickness = thickness_value(*f);
    Object k(o.require("springs"), {"structural", "bend", "model", "d", "c"});
    spec.k_structural = k.require("structural").positive();
    spec.k_bend = 0.0f;
    if (auto f = k.get("bend")) spec.k_bend = f->non_negative();
    read_spring_model(k, spec.model, spec.d, spec.c);
    spec.material = material_of(o);
    if (auto f = o.get("tethers"))
      spec.tethers = static_cast<ClothTethers>(choice(*f, kClothTetherNames));
    const std::uint64_t vertices = spec.mesh.vertices.size();
    const std::string count = fmt::format("the mesh has {} vertices", vertices);
    PinPaths pin_paths;
    spec.pins = read_pins(o, pin_paths, [&](const Field& at) {
      at.check(at.json().is_number_unsigned(),
               "must be a vertex index (from 0, in the file's \"v\" order) or {\"at\": index, "
               "\"kinematic\": {...}}");
      return index_below(at, vertices, "vertex", count);
    });
    MeshClothSprings springs;
    try {
      springs = mesh_cloth_springs(spec.mesh);
    } catch (const std::invalid_argument& e) {
      file.fail(e.what());
    }
    check_generated_counts(file, "mesh cloth", "vertices", vertices,
                           springs.structural + (spec.k_bend > 0.0f ? springs.bend : 0) +
                               (spec.tethers != ClothTethers::none ? vertices : 0));
    const std::uint64_t triangles = scene_.triangles.size() + spec.mesh.triangles.size();
    file.check(triangles <= kMaxTriangles,
               fmt::format("the mesh cloth's {} triangles bring the scene to {}; at most "
                           "kMaxTriangles = {} are allowed",
                           spec.mesh.triangles.size(), triangles, kMaxTriangles));
    const std::size_t first = scene_.particles.size();
    try {
      add_mesh_cloth(scene_, spec);  // checks the transform, the radius and the thickness
    } catch (const std::invalid_argument& e) {
      o.field().fail(e.what());
    }
    for (std::size_t v = first; v < scene_.particles.size(); ++v) {
      const glm::vec3 x(scene_.particles.pos_radius[v]);
      const float far = std::max({std::abs(x.x), std::abs(x.y), std::abs(x.z)});
      if (static_cast<double>(far) > kCoordinate.max) {
        o.field().fail(
            fmt::format("vertex {} lands at {}: each coordinate must be within {:g} m "
                        "of the origin",
                        v - first, format_vec(glm::dvec3(x)), kCoordinate.max));
      }
    }
    place_generated(o, first, "vertex", "a mesh cloth");
    add_pin_paths(std::move(pin_paths), first);
  }
}

}  // namespace vkphys::io::scene_reader
