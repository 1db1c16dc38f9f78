// Scene file fields of version 2 that move bodies and particles by prescription: "kinematic" on a
// body or a single particle (a KinematicPath; the caller gives its target) and the top-level
// "impulses" (ScheduledImpulse), read after the bodies and particles they name.
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>

#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

KinematicPath SceneParser::read_kinematic(const Field& f, Target target) const {
  if (target.particle && f.json().is_object()) {
    if (auto it = f.json().find("angular_velocity"); it != f.json().end()) {
      Field(source_, *it, join_path(f.path(), "angular_velocity"))
          .fail("a particle does not turn: only a body's path has an angular velocity");
    }
  }
  Object o = target.particle
                 ? Object(f, {"velocity", "amplitude", "frequency", "phase"})
                 : Object(f, {"velocity", "amplitude", "frequency", "phase", "angular_velocity"});
  KinematicPath k;
  k.target = target;
  if (auto g = o.get("velocity")) k.velocity = bounded_vec3(*g, kSpeed);
  if (auto g = o.get("amplitude")) k.amplitude = bounded_vec3(*g, kCoordinate);
  if (auto g = o.get("frequency")) k.frequency = g->non_negative();
  if (auto g = o.get("phase")) k.phase = g->as_float();
  if (auto g = o.get("angular_velocity")) k.angular_velocity = bounded_vec3(*g, kAngularSpeed);
  return k;
}

void SceneParser::read_impulses(const Object& top) {
  auto f = top.get("impulses");
  if (!f) return;
  std::size_t n = f->array_size();
  scene_.impulses.reserve(n);
  for (std::size_t i = 0; i < n; ++i) scene_.impulses.push_back(read_impulse(f->at(i)));
}

ScheduledImpulse SceneParser::read_impulse(const Field& f) const {
  Object o(f, {"time", "body", "particle", "impulse", "point"});
  ScheduledImpulse s;
  s.time = o.require("time").non_negative();
  auto body = o.get("body");
  auto particle = o.get("particle");
  if (body && particle) particle->fail("cannot be combined with \"body\"; give one of the two");
  if (body) {
    body->check(body->json().is_number_integer(), "must be a body index (an integer)");
    const std::size_t n = listed_bodies_;
    s.target.index = index_below(*body, n, "body",
                                 n > 0 ? fmt::format("\"bodies\" lists {} bodies", n)
                                       : std::string("the scene has no \"bodies\""));
    s.point = scene_.bodies[s.target.index].position;
  } else if (particle) {
    particle->check(particle->json().is_number_integer(), "must be a particle index (an integer)");
    const std::size_t n = scene_.particles.size();
    s.target.particle = true;
    s.target.index = index_below(*particle, n, "particle",
                                 n > 0 ? fmt::format("\"particles\" generates {} particles", n)
                                       : std::string("the scene has no \"particles\""));
    s.point = glm::vec3(scene_.particles.pos_radius[s.target.index]);
  } else {
    fail_at(source_, f.path(), "needs \"body\" or \"particle\" (the index of what it acts on)");
  }
  s.impulse = bounded_vec3(o.require("impulse"), kImpulse);
  if (auto g = o.get("point")) {
    g->check(!particle, "a particle takes an impulse at its centre; leave \"point\" out");
    s.point = bounded_vec3(*g, kCoordinate);
  }
  return s;
}

}  // namespace vkphys::io::scene_reader
