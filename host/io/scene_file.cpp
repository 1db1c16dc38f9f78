// Scene file parsing and validation (format: docs/scene-format.md): the entry points, the file
// header and the top-level keys; each section has its own reader (listed in scene_reader.h).
//
// Structure:
//   1. JSON text -> DOM through a SAX handler that tracks the JSON path, so that duplicate keys
//      and number literals overflowing a double (1e999) are reported with the field's path
//      (host/io/scene_json.h).
//   2. The DOM is walked through Field/Object wrappers (host/io/scene_json.h): every read checks
//      the type and every object its keys, failing with "file: path = value: rule".
//   3. Particle generators are validated and counted in a first pass (so an oversized scene
//      fails before any allocation) and generated in a second (scene_read_particles.cpp); the
//      generated particles are checked against the planes and against each other in a third
//      (scene_check_particles.cpp).
//   4. The version: the header accepts versions 1 and 2; the keys version 2 added are errors in
//      a version-1 file (SceneParser::versioned), and version 1 keeps its own rules (particles
//      or bodies, not both; the particle scenes' solver defaults).
#include "host/io/scene_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/io/scene_reader.h"

namespace vkphys::io {
namespace scene_reader {

using namespace scene_json;

Scene SceneParser::run() {
  check_header();
  Object top = versioned(
      Field(source_, doc_, ""),
      {"format", "version", "name", "description", "gravity", "time_step", "drag", "contact_margin",
       "cell_size", "solver", "materials", "planes", "box", "particles", "bodies", "joints"},
      {"forces", "impulses", "cloths", "soft_bodies", "mesh_cloths", "springs", "triangles",
       "camera"});
  if (auto f = top.get("name")) {
    scene_.name = f->as_string();
    f->check(!scene_.name.empty(), "must not be empty");
  }
  if (auto f = top.get("description")) f->as_string();
  read_settings(top);
  read_solver(top);
  read_forces(top);
  read_materials(top);
  read_planes(top);
  read_box(top);
  read_contents(top);
  read_impulses(top);
  read_camera(top);
  return std::move(scene_);
}

// Bodies, joints and particles. Version 1 holds particles or bodies; version 2 any mix.
void SceneParser::read_contents(const Object& top) {
  auto particles = top.get("particles");
  auto bodies = top.get("bodies");
  auto joints = top.get("joints");
  auto cloths = top.get("cloths");
  auto soft = top.get("soft_bodies");
  auto meshes = top.get("mesh_cloths");
  auto springs = top.get("springs");
  auto triangles = top.get("triangles");
  if (joints && !bodies) joints->fail("joints join rigid bodies: the scene needs \"bodies\"");
  if (particles && bodies && version_ < 2) {
    bodies->fail(
        "a scene has particles or rigid bodies, not both (this one also has "
        "\"particles\")");
  }
  if (!particles && !bodies && !cloths && !soft && !meshes) {
    fail_at(source_, "particles",
            version_ < 2 ? "required field is missing (a scene needs \"particles\" or \"bodies\")"
                         : "required field is missing (a scene needs \"particles\", \"bodies\", "
                           "\"cloths\", \"soft_bodies\" or \"mesh_cloths\")");
  }
  if (!particles && !bodies) {
    // An empty cloths, soft_bodies or mesh_cloths list may sit beside other content, but it is
    // not content: the writer leaves it out, and the written file would then have none.
    const std::optional<Field>* lists[] = {&cloths, &soft, &meshes};
    const std::optional<Field>* empty = nullptr;
    bool listed = false;
    for (const auto* l : lists) {
      if (!*l) continue;
      if ((*l)->array_size() > 0) listed = true;
      if (!empty) empty = l;
    }
    if (!listed) {
      (*empty)->fail(
          "lists nothing, and the scene has no other content (a scene needs at least one "
          "particle generator, body, cloth, soft body or mesh cloth)");
    }
  }
  if (bodies) {
    read_bodies(*bodies);
    if (joints) read_joints(*joints);
  }
  if (particles) read_particles(*particles);
  // Cloth vertices and springs come after the generators' particles (whose checks they skip:
  // a cloth checks its own vertices against the planes).
  if (cloths) read_cloths(*cloths);
  if (soft) read_soft_bodies(*soft);
  if (meshes) read_mesh_cloths(*meshes);
  if (springs) read_springs(*springs);
  if (triangles) read_triangles(*triangles);
  if (particles || cloths || soft || meshes) check_cell_size();
}

void SceneParser::read_particles(const Field& particles) {
  if (version_ < 2) {
    // Particle scenes of version 1 were written for the particle pipeline, which had only the
    // Jacobi scheme and no contact-stiffness cap: left out, those fields keep that meaning.
    if (!scheme_given_) scene_.settings.solver.scheme = SolverScheme::jacobi;
    if (!contact_hertz_given_) scene_.settings.solver.contact_hertz = 0.0f;
  }
  read_generators(particles);
  generate();
  check_planes();
  check_overlaps();
}

Object SceneParser::versioned(const Field& f, std::initializer_list<std::string_view> keys,
                              std::initializer_list<std::string_view> added) const {
  if (version_ >= 2) {
    std::vector<std::string_view> all(keys);
    all.insert(all.end(), added.begin(), added.end());
    return Object(f, all);
  }
  if (f.json().is_object()) {
    for (const auto& [key, value] : f.json().items()) {
      if (std::find(added.begin(), added.end(), key) == added.end()) continue;
      Field(source_, value, join_path(f.path(), key))
          .fail(fmt::format("needs \"version\": 2 (this file is version {})", version_));
    }
  }
  return Object(f, keys);
}

void SceneParser::check_header() {
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
  static_assert(kSceneFormatVersion == kOldestSceneFormatVersion + 1, "update the messages");
  const std::string versions =
      fmt::format("version {} or version {}", kOldestSceneFormatVersion, kSceneFormatVersion);
  it = doc_.find("version");
  if (it == doc_.end()) {
    fail_at(source_, "version",
            fmt::format("required field is missing (this build reads {})", versions));
  }
  Field version(source_, *it, "version");
  bool supported = it->is_number_integer() &&
                   it->get<std::int64_t>() >= kOldestSceneFormatVersion &&
                   it->get<std::int64_t>() <= kSceneFormatVersion;
  version.check(supported, fmt::format("unsupported version; this build reads {}", versions));
  version_ = static_cast<int>(it->get<std::int64_t>());
}

}  // namespace scene_reader

Scene parse_scene(std::string_view json_text, std::string_view source_name,
                  const std::filesystem::path& base_dir) {
  const std::string source =
      source_name.empty() ? std::string("<scene>") : std::string(source_name);
  scene_json::Json doc = scene_json::parse_json(json_text, source);
  return scene_reader::SceneParser(source, doc, base_dir).run();
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
  return parse_scene(text, source, path.parent_path());
}

std::string scene_summary(const Scene& scene) {
  const double h = double(scene.settings.time_step);
  std::string contents;
  if (!scene.bodies.empty()) {
    std::size_t fixed = 0;
    for (const Body& b : scene.bodies) fixed += b.mass == 0.0f ? 1u : 0u;
    contents = fmt::format("{} bodies ({} static), {} joints, ", scene.bodies.size(), fixed,
                           scene.joints.size());
  }
  if (scene.bodies.empty() || scene.particles.size() > 0) {
    std::size_t fixed = 0;
    for (const glm::vec4& v : scene.particles.vel_invmass) fixed += v.w == 0.0f ? 1u : 0u;
    contents += fmt::format("{} particles ({} static), ", scene.particles.size(), fixed);
  }
  return fmt::format("{}: {}{} planes, {} materials, h = {:.6g} s ({:.4g} Hz), {} iterations",
                     scene.name, contents, scene.planes.size(), scene.materials.size(), h,
                     h > 0.0 ? 1.0 / h : 0.0, scene.settings.solver.iterations);
}

}  // namespace vkphys::io
