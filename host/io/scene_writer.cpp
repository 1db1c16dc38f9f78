// Scenes back to version-2 scene JSON (write_scene_json, declared in host/io/scene_file.h):
// every number in the shortest form that reads back to the same float, so that
// parse_scene(write_scene_json(s)) == s field for field (tested for every scene builder and for
// a mixed scene with every version-2 field). This file writes the header, the settings, the
// forces, the materials, the planes, the impulses and the camera; scene_write_bodies.cpp the
// rest.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/io/scene_write.h"

namespace vkphys::io {

namespace scene_write {

using scene_json::json_quote;

std::string num(float v) {
  if (!std::isfinite(v)) {
    throw std::invalid_argument("write_scene_json: the scene holds a NaN or infinite number");
  }
  if (v == 0.0f && std::signbit(v)) return "-0.0";  // "-0" would read back as the integer 0
  std::string s = fmt::format("{}", v);
  if (static_cast<float>(std::strtod(s.c_str(), nullptr)) != v) {
    s = fmt::format("{:.9g}", static_cast<double>(v));
  }
  return s;
}

std::string vec(glm::vec3 v) {
  return fmt::format("[{}, {}, {}]", num(v.x), num(v.y), num(v.z));
}

namespace {

// The order the reader lists paths in: bodies, then particles, each by index.
bool before(const Target& a, const Target& b) {
  return a.particle != b.particle ? b.particle : a.index < b.index;
}

bool is_world_body(const Body& b) {
  const Body world;
  return b.shape == Shape::none && b.mass == 0.0f && same(b.position, glm::vec3(0.0f)) &&
         same(b.orientation, world.orientation) && same(b.velocity, glm::vec3(0.0f)) &&
         same(b.angular_velocity, glm::vec3(0.0f)) && same(b.force, glm::vec3(0.0f)) &&
         same(b.torque, glm::vec3(0.0f)) && b.material == 0;
}

}  // namespace

Writer::Writer(const Scene& scene) : scene_(scene), listed_(scene.bodies.size()) {
  for (std::size_t i = 0; i < scene.materials.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (scene.materials[i].name == scene.materials[k].name) {
        throw std::invalid_argument(
            fmt::format("write_scene_json: materials {} and {} share the name {}", k, i,
                        json_quote(scene.materials[i].name)));
      }
    }
  }
  bool world_named = false;  // the last body is the target of a path or an impulse
  const auto last = static_cast<std::uint32_t>(listed_ - 1);
  for (std::size_t i = 0; i < scene.kinematic.size(); ++i) {
    const Target& t = scene.kinematic[i].target;
    const std::size_t count = t.particle ? scene.particles.size() : scene.bodies.size();
    if (t.index >= count) {
      throw std::invalid_argument(
          fmt::format("write_scene_json: kinematic path {}: {} {} does not "
                      "exist",
                      i, t.particle ? "particle" : "body", t.index));
    }
    if (i > 0 && !before(scene.kinematic[i - 1].target, t)) {
      throw std::invalid_argument(fmt::format(
          "write_scene_json: kinematic path {} is out of order (a file lists them by body, then "
          "by particle, one each at most)",
          i));
    }
    world_named = world_named || (!t.particle && t.index == last);
  }
  for (const ScheduledImpulse& s : scene.impulses) {
    world_named = world_named || (!s.target.particle && s.target.index == last);
  }
  // The last body is written as "world" references when add_world_body made it, a joint uses
  // it and nothing else names it (the parser then makes it again at the same index).
  if (listed_ == 0 || world_named || !is_world_body(scene.bodies.back())) return;
  for (const Joint& j : scene.joints) {
    if (j.body_a == last || j.body_b == last) {
      listed_ = last;
      return;
    }
  }
}

std::string Writer::material(std::uint32_t m) const {
  if (m >= scene_.materials.size()) {
    throw std::invalid_argument(fmt::format("write_scene_json: material {} is not defined", m));
  }
  return json_quote(scene_.materials[m].name);
}

std::string Writer::kinematic(Target target) const {
  const auto& paths = scene_.kinematic;
  auto it =
      std::lower_bound(paths.begin(), paths.end(), target,
                       [](const KinematicPath& k, const Target& t) { return before(k.target, t); });
  if (it == paths.end() || it->target.particle != target.particle ||
      it->target.index != target.index) {
    return {};
  }
  const KinematicPath defaults;
  std::string text;
  auto field = [&text](std::string_view key, const std::string& value) {
    text += fmt::format("{}\"{}\": {}", text.empty() ? "" : ", ", key, value);
  };
  if (!same(it->velocity, defaults.velocity)) field("velocity", vec(it->velocity));
  if (!same(it->amplitude, defaults.amplitude)) field("amplitude", vec(it->amplitude));
  if (!same(it->frequency, defaults.frequency)) field("frequency", num(it->frequency));
  if (!same(it->phase, defaults.phase)) field("phase", num(it->phase));
  if (!same(it->angular_velocity, defaults.angular_velocity)) {
    if (target.particle) {
      throw std::invalid_argument(
          fmt::format("write_scene_json: particle {}: a particle's path has no angular velocity",
                      target.index));
    }
    field("angular_velocity", vec(it->angular_velocity));
  }
  return fmt::format(", \"kinematic\": {{{}}}", text);
}

namespace {

template <std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, std::uint32_t i) {
  if (i >= N) throw std::invalid_argument("write_scene_json: unknown option value");
  return names[i];
}

// `"forces": {...},\n` when the scene has a field other than gravity and the linear drag.
std::string forces_json(const Settings& st) {
  std::string text;
  const QuadraticDrag qd;
  if (!same(st.quadratic_drag.density, qd.density) ||
      !same(st.quadratic_drag.coefficient, qd.coefficient)) {
    text += fmt::format("\"quadratic_drag\": {{\"density\": {}", num(st.quadratic_drag.density));
    if (!same(st.quadratic_drag.coefficient, qd.coefficient)) {
      text += fmt::format(", \"coefficient\": {}", num(st.quadratic_drag.coefficient));
    }
    text += "}";
  }
  const CentralField cf;
  const CentralField& c = st.central;
  if (!same(c.strength, cf.strength) || !same(c.center, cf.center) || c.law != cf.law) {
    if (!text.empty()) text += ",\n             ";
    text += fmt::format("\"central\": {{\"center\": {}, \"strength\": {}", vec(c.center),
                        num(c.strength));
    if (c.law != cf.law) {
      text += fmt::format(", \"law\": \"{}\"",
                          name_of(kCentralLawNames, static_cast<std::uint32_t>(c.law)));
    }
    text += "}";
  }
  if (st.wind) {
    if (!text.empty()) text += ",\n             ";
    const Wind& w = *st.wind;
    text += fmt::format(
        "\"wind\": {{\"velocity\": {}, \"density\": {}, \"drag\": {}, \"lift\": {}, "
        "\"skin_friction\": {}}}",
        vec(w.velocity), num(w.density), num(w.drag), num(w.lift), num(w.skin_friction));
  }
  return text.empty() ? text : fmt::format("  \"forces\": {{{}}},\n", text);
}

std::string impulses_json(const Writer& w) {
  const Scene& scene = w.scene();
  std::string out;
  for (std::size_t i = 0; i < scene.impulses.size(); ++i) {
    const ScheduledImpulse& s = scene.impulses[i];
    const std::size_t count = s.target.particle ? scene.particles.size() : w.listed();
    if (s.target.index >= count) {
      throw std::invalid_argument(fmt::format("write_scene_json: impulse {}: {} {} does not exist",
                                              i, s.target.particle ? "particle" : "body",
                                              s.target.index));
    }
    std::string text =
        fmt::format("{{\"time\": {}, \"{}\": {}, \"impulse\": {}", num(s.time),
                    s.target.particle ? "particle" : "body", s.target.index, vec(s.impulse));
    if (s.target.particle) {
      if (!same(s.point, glm::vec3(scene.particles.pos_radius[s.target.index]))) {
        throw std::invalid_argument(fmt::format(
            "write_scene_json: impulse {}: a particle takes its impulse at its centre, so the "
            "point must be the particle's position",
            i));
      }
    } else if (!same(s.point, scene.bodies[s.target.index].position)) {
      text += fmt::format(", \"point\": {}", vec(s.point));
    }
    out += fmt::format("    {}}}{}\n", text, i + 1 < scene.impulses.size() ? "," : "");
  }
  return out.empty() ? out : fmt::format(",\n  \"impulses\": [\n{}  ]", out);
}

// `,\n  "camera": {...}` when the scene has one, every field explicit.
std::string camera_json(const Scene& scene) {
  if (!scene.camera) return {};
  const SceneCamera& c = *scene.camera;
  return fmt::format(
      ",\n  \"camera\": {{\"position\": {}, \"target\": {}, \"up\": {}, \"fov_y_deg\": {}}}",
      vec(c.position), vec(c.target), vec(c.up), num(c.fov_y_deg));
}

}  // namespace
}  // namespace scene_write

namespace scene_write {
namespace {
// The solver's integrator, adaptive step, strain limit, manifold cache, joint trees and
// speculative reach, when not the defaults.
std::string solver_extras_json(const SolverSettings& so) {
  std::string out;
  if (!so.contact_cache) out += ", \"contact_cache\": false";
  if (!so.joint_trees) out += ", \"joint_trees\": false";
  if (!so.speculative_reach) out += ", \"speculative_reach\": false";
  if (so.jacobi_contact_relaxation != SolverSettings{}.jacobi_contact_relaxation) {
    out += fmt::format(", \"jacobi_contact_relaxation\": {}", num(so.jacobi_contact_relaxation));
  }
  if (so.integrator != Integrator::symplectic) {
    out += fmt::format(", \"integrator\": \"{}\"",
                       name_of(kIntegratorNames, static_cast<std::uint32_t>(so.integrator)));
  }
  if (so.integrator == Integrator::implicit) {
    out += fmt::format(", \"cg_tolerance\": {}, \"cg_max_iterations\": {}", num(so.cg_tolerance),
                       so.cg_max_iterations);
    if (so.cg_preconditioner != SolverSettings{}.cg_preconditioner) {
      out += fmt::format(
          ", \"cg_preconditioner\": \"{}\"",
          name_of(kCgPreconditionerNames, static_cast<std::uint32_t>(so.cg_preconditioner)));
    }
  }
  if (so.strain_limit.stretch > 0.0f) {
    out += fmt::format(", \"strain_limit\": {{\"stretch\": {}, \"passes\": {}}}",
                       num(so.strain_limit.stretch), so.strain_limit.passes);
  }
  if (so.particle_reorder > 0) {
    out += fmt::format(", \"particle_reorder\": {}", so.particle_reorder);
  }
  if (so.adaptive.tolerance > 0.0f) {
    out += fmt::format(", \"adaptive\": {{\"tolerance\": {}, \"max_steps\": {}}}",
                       num(so.adaptive.tolerance), so.adaptive.max_steps);
  }
  return out;
}
}  // namespace
}  // namespace scene_write

std::string write_scene_json(const Scene& scene) {
  using namespace scene_write;
  const Writer w(scene);
  std::string out;
  auto put = [&out](std::string_view text) { out += text; };
  const Settings& st = scene.settings;
  const SolverSettings& so = st.solver;

  put(fmt::format("{{\n  \"format\": {},\n  \"version\": {},\n  \"name\": {},\n",
                  json_quote(kFormatName), kSceneFormatVersion, json_quote(scene.name)));
  put(fmt::format("  \"gravity\": {},\n  \"time_step\": {},\n  \"drag\": {},\n", vec(st.gravity),
                  num(st.time_step), num(st.drag)));
  if (st.contact_margin >= 0.0f)
    put(fmt::format("  \"contact_margin\": {},\n", num(st.contact_margin)));
  if (st.cell_size > 0.0f) put(fmt::format("  \"cell_size\": {},\n", num(st.cell_size)));
  put(forces_json(st));
  put(fmt::format(
      "  \"solver\": {{\"iterations\": {}, \"relaxation\": {}, \"restitution_threshold\": {}, "
      "\"friction\": {}, \"warm_start\": {},\n             \"scheme\": \"{}\", \"restitution\": "
      "\"{}\", \"friction_model\": \"{}\", \"split_impulse\": {}, \"gyroscopic\": {}, "
      "\"max_colors\": {}, \"contact_hertz\": {}{}{}}},\n",
      so.iterations, num(so.relaxation), num(so.restitution_threshold), so.friction,
      num(so.warm_start), name_of(kSchemeNames, static_cast<std::uint32_t>(so.scheme)),
      name_of(kRestitutionNames, static_cast<std::uint32_t>(so.restitution)),
      name_of(kFrictionModelNames, static_cast<std::uint32_t>(so.friction_model)), so.split_impulse,
      so.gyroscopic, so.max_colors, num(so.contact_hertz),
      so.substeps == 1 && so.relax_iterations == 0 && so.impact_passes == 1
          ? std::string()
          : fmt::format(", \"substeps\": {}, \"relax_iterations\": {}, \"impact_passes\": {}",
                        so.substeps, so.relax_iterations, so.impact_passes),
      solver_extras_json(so)));

  put("  \"materials\": [\n");
  for (std::size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    put(
        fmt::format("    {{\"name\": {}, \"restitution\": {}, \"friction\": {}, \"spook_k\": {}, "
                    "\"spook_d\": {}}}{}\n",
                    json_quote(m.name), num(m.restitution), num(m.friction), num(m.spook_k),
                    num(m.spook_d), i + 1 < scene.materials.size() ? "," : ""));
  }
  put("  ]");

  if (!scene.planes.empty()) {
    put(",\n  \"planes\": [\n");
    for (std::size_t i = 0; i < scene.planes.size(); ++i) {
      const Plane& p = scene.planes[i];
      put(fmt::format("    {{\"normal\": {}, \"offset\": {}, \"material\": {}}}{}\n", vec(p.normal),
                      num(p.offset), w.material(p.material),
                      i + 1 < scene.planes.size() ? "," : ""));
    }
    put("  ]");
  }

  put(particles_json(w));
  put(bodies_json(w));
  put(joints_json(w));
  put(springs_json(w));
  put(triangles_json(w));
  put(impulses_json(w));
  put(camera_json(scene));
  put("\n}\n");
  return out;
}

}  // namespace vkphys::io
