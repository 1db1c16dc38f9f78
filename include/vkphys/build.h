/// \file
/// Building a Scene in code: each function appends one thing and returns its index (bodies and
/// particles in their own index spaces). Joints, springs and materials are appended directly to
/// scene.joints, scene.springs and scene.materials (vkphys/scene.h documents their fields); a cloth
/// is vkphys/cloth.h's add_cloth. The scene is checked when a World is made from it.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

/// Rigid bodies at `position` (their centre of mass), at rest, unrotated; mass 0 makes one static.
VKPHYS_API std::uint32_t add_box(Scene& scene, glm::vec3 position, glm::vec3 half_extents,
                                 float mass, std::uint32_t material = 0);
VKPHYS_API std::uint32_t add_sphere(Scene& scene, glm::vec3 position, float radius, float mass,
                                    std::uint32_t material = 0);
/// A capsule's core segment runs along its local y, 2 half_height long.
VKPHYS_API std::uint32_t add_capsule(Scene& scene, glm::vec3 position, float radius,
                                     float half_height, float mass, std::uint32_t material = 0);
/// The static plane dot(normal, x) = offset, `normal` (made unit here) pointing into free space.
VKPHYS_API std::uint32_t add_plane(Scene& scene, glm::vec3 normal, float offset,
                                   std::uint32_t material = 0);
/// A particle (a sphere without rotation); mass 0 makes it static.
VKPHYS_API std::uint32_t add_particle(Scene& scene, glm::vec3 position, float radius, float mass,
                                      glm::vec3 velocity = glm::vec3(0.0f),
                                      std::uint32_t material = 0);
/// A static body with no shape at the origin: the "world" joints hang from.
VKPHYS_API std::uint32_t add_world_body(Scene& scene);

}  // namespace vkphys
