// The scene writer's "particles", "bodies" and "joints" (scene_write.h): particles one "particle"
// generator each, bodies with "mass" or "static" and quaternion orientations, joints with
// body-frame anchors and axes and limits in degrees; kinematic paths inline on their body or
// particle.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/io/scene_names.h"
#include "host/io/scene_write.h"

namespace vkphys::io::scene_write {

namespace {

constexpr double kPi = 3.14159265358979323846;

// An angle [rad] in degrees, the shortest decimal that the parser turns back into exactly v.
std::string degrees(float v) {
  const double exact = static_cast<double>(v) * 180.0 / kPi;
  for (int digits = 1; digits <= 17; ++digits) {
    const double d = std::strtod(fmt::format("{:.{}g}", exact, digits).c_str(), nullptr);
    if (static_cast<float>(d * (kPi / 180.0)) == v) return fmt::format("{}", d);
  }
  throw std::invalid_argument("write_scene_json: an angle limit does not round-trip");
}

}  // namespace

std::string particles_json(const Writer& w) {
  const Particles& pa = w.scene().particles;
  if (pa.size() == 0) return {};
  std::string out = ",\n  \"particles\": [\n";
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
    const std::uint32_t group = i < pa.group.size() ? pa.group[i] : 0u;
    const float thickness = i < pa.thickness.size() ? pa.thickness[i] : 0.0f;
    out += fmt::format(
        "    {{\"type\": \"particle\", \"position\": {}, \"velocity\": {}, \"radius\": "
        "{}, {}, \"material\": {}{}{}{}}}{}\n",
        vec(glm::vec3(x)), vec(glm::vec3(v)), num(x.w), mass, w.material(pa.material[i]),
        group ? fmt::format(", \"group\": {}", group) : std::string(),
        thickness != 0.0f ? fmt::format(", \"thickness\": {}", num(thickness)) : std::string(),
        w.kinematic({true, static_cast<std::uint32_t>(i)}), i + 1 < pa.size() ? "," : "");
  }
  return out + "  ]";
}

// Every spring with its rest length, k and d (and a tether's flag), or a force spring's model and c
// (a cloth's springs too: a written cloth is its particles, with their group, and its springs); a
// particle-body spring with its body and anchor.
std::string springs_json(const Writer& w) {
  const std::vector<Spring>& springs = w.scene().springs;
  if (springs.empty()) return {};
  std::string out = ",\n  \"springs\": [\n";
  for (std::size_t i = 0; i < springs.size(); ++i) {
    const Spring& s = springs[i];
    const std::string damping = s.model == SpringModel::force
                                    ? fmt::format("\"model\": \"force\", \"c\": {}", num(s.c))
                                    : fmt::format("\"d\": {}", num(s.d));
    const std::string ends =
        s.to_body()
            ? fmt::format("\"particle\": {}, \"body\": {}, \"anchor\": {}", s.a, s.b, vec(s.anchor))
            : fmt::format("\"particles\": [{}, {}]", s.a, s.b);
    out += fmt::format("    {{{}, \"rest\": {}, \"k\": {}, {}{}}}{}\n", ends, num(s.rest), num(s.k),
                       damping, s.tether() ? ", \"tether\": true" : "",
                       i + 1 < springs.size() ? "," : "");
  }
  return out + "  ]";
}

std::string triangles_json(const Writer& w) {
  const std::vector<Triangle>& tris = w.scene().triangles;
  if (tris.empty()) return {};
  std::string out = ",\n  \"triangles\": [\n";
  for (std::size_t i = 0; i < tris.size(); ++i) {
    out += fmt::format("    [{}, {}, {}]{}\n", tris[i].a, tris[i].b, tris[i].c,
                       i + 1 < tris.size() ? "," : "");
  }
  return out + "  ]";
}

std::string bodies_json(const Writer& w) {
  const Scene& scene = w.scene();
  if (scene.bodies.empty()) return {};
  const std::size_t listed = w.listed();
  std::string out = ",\n  \"bodies\": [\n";
  for (std::size_t i = 0; i < listed; ++i) {
    const Body& b = scene.bodies[i];
    std::string text = fmt::format("{{\"shape\": \"{}\"", shape_name(b.shape));
    switch (b.shape) {
      case Shape::sphere:
        text += fmt::format(", \"radius\": {}", num(b.radius));
        break;
      case Shape::capsule:
        text +=
            fmt::format(", \"radius\": {}, \"half_height\": {}", num(b.radius), num(b.half_height));
        break;
      case Shape::box:
        text += fmt::format(", \"half_extents\": {}", vec(b.half_extents));
        break;
      case Shape::none:
        break;
      case Shape::plane:
        throw std::invalid_argument(fmt::format(
            "write_scene_json: body {} is a plane body; scene files hold planes in \"planes\"", i));
    }
    text += fmt::format(", \"position\": {}", vec(b.position));
    if (!same(b.orientation, glm::vec4(0.0f, 0.0f, 0.0f, 1.0f))) {
      text += fmt::format(", \"orientation\": [{}, {}, {}, {}]", num(b.orientation.x),
                          num(b.orientation.y), num(b.orientation.z), num(b.orientation.w));
    }
    const glm::vec3 zero(0.0f);
    if (!same(b.velocity, zero)) text += fmt::format(", \"velocity\": {}", vec(b.velocity));
    if (!same(b.angular_velocity, zero)) {
      text += fmt::format(", \"angular_velocity\": {}", vec(b.angular_velocity));
    }
    text += b.mass == 0.0f ? std::string(", \"static\": true")
                           : fmt::format(", \"mass\": {}", num(b.mass));
    if (b.material != 0) text += fmt::format(", \"material\": {}", w.material(b.material));
    if (!same(b.force, zero)) text += fmt::format(", \"force\": {}", vec(b.force));
    if (!same(b.torque, zero)) text += fmt::format(", \"torque\": {}", vec(b.torque));
    text += w.kinematic({false, static_cast<std::uint32_t>(i)});
    out += fmt::format("    {}}}{}\n", text, i + 1 < listed ? "," : "");
  }
  return out + "  ]";
}

std::string joints_json(const Writer& w) {
  const Scene& scene = w.scene();
  if (scene.joints.empty()) return {};
  std::string out = ",\n  \"joints\": [\n";
  const Joint defaults;
  auto body_ref = [&](std::uint32_t b) {
    if (b >= scene.bodies.size()) {
      throw std::invalid_argument(fmt::format("write_scene_json: joint body {} does not exist", b));
    }
    return b >= w.listed() ? std::string("\"world\"") : fmt::format("{}", b);
  };
  for (std::size_t i = 0; i < scene.joints.size(); ++i) {
    const Joint& j = scene.joints[i];
    std::string text =
        fmt::format("{{\"type\": \"{}\", \"bodies\": [{}, {}], \"anchor_a\": {}, \"anchor_b\": {}",
                    joint_name(j.type), body_ref(j.body_a), body_ref(j.body_b), vec(j.anchor_a),
                    vec(j.anchor_b));
    if (j.type == JointType::hinge) {
      text += fmt::format(",\n     \"axis_a\": {}, \"axis_b\": {}, \"ref_a\": {}, \"ref_b\": {}",
                          vec(j.axis_a), vec(j.axis_b), vec(j.ref_a), vec(j.ref_b));
    }
    if (j.type == JointType::distance) text += fmt::format(", \"length\": {}", num(j.length));
    if (j.limited && j.type == JointType::hinge) {
      text += fmt::format(", \"limits\": {{\"lo_deg\": {}, \"hi_deg\": {}}}", degrees(j.limit_lo.x),
                          degrees(j.limit_hi.x));
    } else if (j.limited && j.type == JointType::ball) {
      text +=
          fmt::format(",\n     \"limits\": {{\"lo_deg\": [{}, {}, {}], \"hi_deg\": [{}, {}, {}]}}",
                      degrees(j.limit_lo.x), degrees(j.limit_lo.y), degrees(j.limit_lo.z),
                      degrees(j.limit_hi.x), degrees(j.limit_hi.y), degrees(j.limit_hi.z));
    }
    if (j.spook_k != defaults.spook_k || j.spook_d != defaults.spook_d) {
      text += fmt::format(", \"spook\": {{\"k\": {}, \"d\": {}}}", num(j.spook_k), num(j.spook_d));
    }
    if (j.limit_k != defaults.limit_k || j.limit_d != defaults.limit_d) {
      text += fmt::format(", \"limit_spook\": {{\"k\": {}, \"d\": {}}}", num(j.limit_k),
                          num(j.limit_d));
    }
    out += fmt::format("    {}}}{}\n", text, i + 1 < scene.joints.size() ? "," : "");
  }
  return out + "  ]";
}

}  // namespace vkphys::io::scene_write
