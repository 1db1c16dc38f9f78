// Scenes back to version-1 scene JSON (write_scene_json, declared in host/io/scene_file.h):
// every number in the shortest form that reads back to the same float, so that
// parse_scene(write_scene_json(s)) == s field for field (tested for every scene builder).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "host/io/scene_file.h"
#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/sim/rigid_scenes.h"

namespace vkphys::io {

namespace {

using scene_json::json_quote;
constexpr double kPi = 3.14159265358979323846;

// The shortest decimal that reads back (as a double, then rounded to float) to exactly v.
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

// An angle [rad] in degrees, the shortest decimal that the parser turns back into exactly v.
std::string degrees(float v) {
  const double exact = static_cast<double>(v) * 180.0 / kPi;
  for (int digits = 1; digits <= 17; ++digits) {
    const double d = std::strtod(fmt::format("{:.{}g}", exact, digits).c_str(), nullptr);
    if (static_cast<float>(d * (kPi / 180.0)) == v) return fmt::format("{}", d);
  }
  throw std::invalid_argument("write_scene_json: an angle limit does not round-trip");
}

template <std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, std::uint32_t i) {
  if (i >= N) throw std::invalid_argument("write_scene_json: unknown solver option value");
  return names[i];
}

bool is_world_body(const Body& b) {
  const Body world;
  return b.shape == Shape::none && b.mass == 0.0f && b.position == glm::vec3(0.0f) &&
         b.orientation == world.orientation && b.velocity == glm::vec3(0.0f) &&
         b.angular_velocity == glm::vec3(0.0f) && b.material == 0;
}

}  // namespace

std::string write_scene_json(const Scene& scene) {
  std::string out;
  auto put = [&out](std::string_view text) { out += text; };
  const Settings& st = scene.settings;
  const SolverSettings& so = st.solver;
  for (std::size_t i = 0; i < scene.materials.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (scene.materials[i].name == scene.materials[k].name) {
        throw std::invalid_argument(
            fmt::format("write_scene_json: materials {} and {} share the name {}", k, i,
                        json_quote(scene.materials[i].name)));
      }
    }
  }
  auto material = [&scene](std::uint32_t m) {
    if (m >= scene.materials.size()) {
      throw std::invalid_argument(fmt::format("write_scene_json: material {} is not defined", m));
    }
    return json_quote(scene.materials[m].name);
  };

  put(fmt::format("{{\n  \"format\": {},\n  \"version\": {},\n  \"name\": {},\n",
                  json_quote(kFormatName), kSceneFormatVersion, json_quote(scene.name)));
  put(fmt::format("  \"gravity\": {},\n  \"time_step\": {},\n  \"drag\": {},\n", vec(st.gravity),
                  num(st.time_step), num(st.drag)));
  if (st.contact_margin >= 0.0f)
    put(fmt::format("  \"contact_margin\": {},\n", num(st.contact_margin)));
  if (st.cell_size > 0.0f) put(fmt::format("  \"cell_size\": {},\n", num(st.cell_size)));
  put(fmt::format(
      "  \"solver\": {{\"iterations\": {}, \"relaxation\": {}, \"restitution_threshold\": {}, "
      "\"friction\": {}, \"warm_start\": {},\n             \"scheme\": \"{}\", \"restitution\": "
      "\"{}\", \"friction_model\": \"{}\", \"split_impulse\": {}, \"gyroscopic\": {}, "
      "\"max_colors\": {}, \"contact_hertz\": {}}},\n",
      so.iterations, num(so.relaxation), num(so.restitution_threshold), so.friction,
      num(so.warm_start), name_of(kSchemeNames, static_cast<std::uint32_t>(so.scheme)),
      name_of(kRestitutionNames, static_cast<std::uint32_t>(so.restitution)),
      name_of(kFrictionModelNames, static_cast<std::uint32_t>(so.friction_model)), so.split_impulse,
      so.gyroscopic, so.max_colors, num(so.contact_hertz)));

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
                      num(p.offset), material(p.material), i + 1 < scene.planes.size() ? "," : ""));
    }
    put("  ]");
  }

  const Particles& pa = scene.particles;
  if (pa.size() > 0) {
    put(",\n  \"particles\": [\n");
    for (std::size_t i = 0; i < pa.size(); ++i) {
      const glm::vec4 x = pa.pos_radius[i], v = pa.vel_invmass[i];
      std::string mass = "\"static\": true";
      if (v.w != 0.0f) {
        // A mass m with 1 / m == 1/m as stored.
        float m = 1.0f / v.w;
        for (int step = 0; step < 4 && 1.0f / m != v.w; ++step) {
          m = std::nextafter(m, 1.0f / m > v.w ? std::numeric_limits<float>::max() : 0.0f);
        }
        if (1.0f / m != v.w) {
          throw std::invalid_argument(fmt::format(
              "write_scene_json: particle {}: no float mass m has 1 / m = {}", i, num(v.w)));
        }
        mass = fmt::format("\"mass\": {}", num(m));
      }
      put(fmt::format(
          "    {{\"type\": \"particle\", \"position\": {}, \"velocity\": {}, \"radius\": "
          "{}, {}, \"material\": {}}}{}\n",
          vec(glm::vec3(x)), vec(glm::vec3(v)), num(x.w), mass, material(pa.material[i]),
          i + 1 < pa.size() ? "," : ""));
    }
    put("  ]");
  }

  // The last body is written as "world" references when add_world_body made it and a joint
  // uses it (the parser then makes it again at the same index).
  std::size_t listed = scene.bodies.size();
  if (listed > 0 && is_world_body(scene.bodies.back())) {
    const auto w = static_cast<std::uint32_t>(listed - 1);
    for (const Joint& j : scene.joints) {
      if (j.body_a == w || j.body_b == w) {
        listed = w;
        break;
      }
    }
  }
  if (!scene.bodies.empty()) {
    put(",\n  \"bodies\": [\n");
    for (std::size_t i = 0; i < listed; ++i) {
      const Body& b = scene.bodies[i];
      std::string text = fmt::format("{{\"shape\": \"{}\"", shape_name(b.shape));
      switch (b.shape) {
        case Shape::sphere:
          text += fmt::format(", \"radius\": {}", num(b.radius));
          break;
        case Shape::capsule:
          text += fmt::format(", \"radius\": {}, \"half_height\": {}", num(b.radius),
                              num(b.half_height));
          break;
        case Shape::box:
          text += fmt::format(", \"half_extents\": {}", vec(b.half_extents));
          break;
        case Shape::none:
          break;
        case Shape::plane:
          throw std::invalid_argument(fmt::format(
              "write_scene_json: body {} is a plane body; scene files hold planes in \"planes\"",
              i));
      }
      text += fmt::format(", \"position\": {}", vec(b.position));
      if (b.orientation != glm::vec4(0.0f, 0.0f, 0.0f, 1.0f)) {
        text += fmt::format(", \"orientation\": [{}, {}, {}, {}]", num(b.orientation.x),
                            num(b.orientation.y), num(b.orientation.z), num(b.orientation.w));
      }
      if (b.velocity != glm::vec3(0.0f)) text += fmt::format(", \"velocity\": {}", vec(b.velocity));
      if (b.angular_velocity != glm::vec3(0.0f)) {
        text += fmt::format(", \"angular_velocity\": {}", vec(b.angular_velocity));
      }
      text += b.mass == 0.0f ? std::string(", \"static\": true")
                             : fmt::format(", \"mass\": {}", num(b.mass));
      if (b.material != 0) text += fmt::format(", \"material\": {}", material(b.material));
      put(fmt::format("    {}}}{}\n", text, i + 1 < listed ? "," : ""));
    }
    put("  ]");
  }

  if (!scene.joints.empty()) {
    put(",\n  \"joints\": [\n");
    const Joint defaults;
    auto body_ref = [&](std::uint32_t b) {
      if (b >= scene.bodies.size()) {
        throw std::invalid_argument(
            fmt::format("write_scene_json: joint body {} does not exist", b));
      }
      return b >= listed ? std::string("\"world\"") : fmt::format("{}", b);
    };
    for (std::size_t i = 0; i < scene.joints.size(); ++i) {
      const Joint& j = scene.joints[i];
      std::string text = fmt::format(
          "{{\"type\": \"{}\", \"bodies\": [{}, {}], \"anchor_a\": {}, \"anchor_b\": {}",
          joint_name(j.type), body_ref(j.body_a), body_ref(j.body_b), vec(j.anchor_a),
          vec(j.anchor_b));
      if (j.type == JointType::hinge) {
        text += fmt::format(",\n     \"axis_a\": {}, \"axis_b\": {}, \"ref_a\": {}, \"ref_b\": {}",
                            vec(j.axis_a), vec(j.axis_b), vec(j.ref_a), vec(j.ref_b));
      }
      if (j.type == JointType::distance) text += fmt::format(", \"length\": {}", num(j.length));
      if (j.limited && j.type == JointType::hinge) {
        text += fmt::format(", \"limits\": {{\"lo_deg\": {}, \"hi_deg\": {}}}",
                            degrees(j.limit_lo.x), degrees(j.limit_hi.x));
      } else if (j.limited && j.type == JointType::ball) {
        text += fmt::format(
            ",\n     \"limits\": {{\"lo_deg\": [{}, {}, {}], \"hi_deg\": [{}, {}, {}]}}",
            degrees(j.limit_lo.x), degrees(j.limit_lo.y), degrees(j.limit_lo.z),
            degrees(j.limit_hi.x), degrees(j.limit_hi.y), degrees(j.limit_hi.z));
      }
      if (j.spook_k != defaults.spook_k || j.spook_d != defaults.spook_d) {
        text +=
            fmt::format(", \"spook\": {{\"k\": {}, \"d\": {}}}", num(j.spook_k), num(j.spook_d));
      }
      if (j.limit_k != defaults.limit_k || j.limit_d != defaults.limit_d) {
        text += fmt::format(", \"limit_spook\": {{\"k\": {}, \"d\": {}}}", num(j.limit_k),
                            num(j.limit_d));
      }
      put(fmt::format("    {}}}{}\n", text, i + 1 < scene.joints.size() ? "," : ""));
    }
    put("  ]");
  }
  put("\n}\n");
  return out;
}

}  // namespace vkphys::io
