// Scene file section "camera" (version 2): the camera of the pictures (Scene::camera). It does
// not touch the simulation but is held to the same rules as every other field, so that a camera
// that cannot form a picture is an error naming its field rather than a blank or mirrored image:
// the target at the position (no view direction), an up along the view direction (no picture
// up), a field of view of 0 or 180 degrees (no picture, or an infinitely wide one).
#include <fmt/format.h>

#include <cmath>
#include <glm/glm.hpp>

#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

namespace {
// The field of view's range [degrees]. The ends stop short of 0 and 180 because the projection
// divides by tan(fov / 2) in float: a few thousandths of a degree from 180 the half angle rounds
// past pi/2 and the tangent turns negative (the picture flips), and near 0 it rounds to zero.
constexpr double kMinFov = 1.0e-3, kMaxFov = 179.0;
// Least angle between up and the view direction [degrees]: closer, the picture's up direction,
// up's part perpendicular to the view, is mostly rounding.
constexpr double kMinUpAngle = 1.0;
}  // namespace

void SceneParser::read_camera(const Object& top) {
  auto f = top.get("camera");
  if (!f) return;
  Object o(*f, {"position", "target", "up", "fov_y_deg"});
  SceneCamera c;
  c.position = bounded_vec3(o.require("position"), kCoordinate);
  const Field target = o.require("target");
  c.target = bounded_vec3(target, kCoordinate);
  // The difference as the renderer forms it, in float: coordinates near the limit are 6 cm
  // apart in float, so a smaller distance written in the file may round to none.
  const glm::dvec3 view(c.target - c.position);
  target.check(glm::length(view) >= kMinSize,
               fmt::format("must be at least {:g} m from camera.position (the camera looks from "
                           "its position at its target)",
                           kMinSize));
  if (auto g = o.get("up")) {
    c.up = g->as_vec3();
    const glm::dvec3 up(c.up);
    g->check(glm::length(up) > 0.0, "must not be zero");
    const double sine = glm::length(glm::cross(up, view)) / (glm::length(up) * glm::length(view));
    g->check(sine >= std::sin(glm::radians(kMinUpAngle)),
             fmt::format("is parallel to the view direction camera.target - camera.position; "
                         "must be at least {:g} degree from it",
                         kMinUpAngle));
  } else {
    const glm::dvec3 up(c.up);
    target.check(glm::length(glm::cross(up, view)) / glm::length(view) >=
                     std::sin(glm::radians(kMinUpAngle)),
                 fmt::format("looks along camera.up (default [0, 1, 0]), which must be at least "
                             "{:g} degree from the view direction: give camera.up",
                             kMinUpAngle));
  }
  if (auto g = o.get("fov_y_deg")) {
    c.fov_y_deg = g->as_float();
    const double fov = static_cast<double>(c.fov_y_deg);
    g->check(fov >= kMinFov && fov <= kMaxFov,
             fmt::format("must be in [{:g}, {:g}] degrees (the vertical field of view; 0 and 180 "
                         "form no picture)",
                         kMinFov, kMaxFov));
  }
  scene_.camera = c;
}

}  // namespace vkphys::io::scene_reader
