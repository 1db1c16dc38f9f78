// The scene-building helpers of vkphys/build.h.
#include "vkphys/build.h"

namespace vkphys {
namespace {

std::uint32_t add_body(Scene& scene, Body body) {
  scene.bodies.push_back(body);
  return static_cast<std::uint32_t>(scene.bodies.size() - 1);
}

Body body_at(Shape shape, glm::vec3 position, float mass, std::uint32_t material) {
  Body b;
  b.shape = shape;
  b.position = position;
  b.mass = mass;
  b.material = material;
  return b;
}

}  // namespace

std::uint32_t add_box(Scene& scene, glm::vec3 position, glm::vec3 half_extents, float mass,
                      std::uint32_t material) {
  Body b = body_at(Shape::box, position, mass, material);
  b.half_extents = half_extents;
  return add_body(scene, b);
}

std::uint32_t add_sphere(Scene& scene, glm::vec3 position, float radius, float mass,
                         std::uint32_t material) {
  Body b = body_at(Shape::sphere, position, mass, material);
  b.radius = radius;
  return add_body(scene, b);
}

std::uint32_t add_capsule(Scene& scene, glm::vec3 position, float radius, float half_height,
                          float mass, std::uint32_t material) {
  Body b = body_at(Shape::capsule, position, mass, material);
  b.radius = radius;
  b.half_height = half_height;
  return add_body(scene, b);
}

std::uint32_t add_world_body(Scene& scene) {
  return add_body(scene, body_at(Shape::none, glm::vec3(0.0f), 0.0f, 0));
}

std::uint32_t add_plane(Scene& scene, glm::vec3 normal, float offset, std::uint32_t material) {
  scene.planes.push_back(Plane{glm::normalize(normal), offset, material});
  return static_cast<std::uint32_t>(scene.planes.size() - 1);
}

std::uint32_t add_particle(Scene& scene, glm::vec3 position, float radius, float mass,
                           glm::vec3 velocity, std::uint32_t material) {
  scene.particles.add(position, velocity, radius, mass, material);
  return static_cast<std::uint32_t>(scene.particles.size() - 1);
}

}  // namespace vkphys
