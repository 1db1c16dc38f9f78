// Grabbing a body or particle with the mouse (World::pick and World::pull, `vkphys view`): a ray
// from the camera through the cursor picks the nearest dynamic body or particle it enters, and a
// mouse spring (seed 003, "Mouse springs") pulls the picked point towards the point under the
// cursor at the depth it was picked at. The seed recommends a spring over setting the grabbed
// position directly because fast mouse motions would otherwise make the simulation unstable.
//
// The force is seed 003's damped spring (section "Spring forces", f = -[k_s(|l| - r) +
// k_d (l' . l)/|l|] l/|l|) with rest length r = 0 and the damping taken on the whole velocity of
// the grabbed point rather than on its component along l:
//
//     F = k (target - p) - c v
//
// With r = 0 the spring term -k_s |l| l/|l| is exactly k (target - p); damping only along l,
// undefined at l = 0, would let the grabbed point orbit the cursor undamped, so the viewer damps
// all of v (the cursor's point is treated as at rest during a step).
//
// Gains: the picked object is a mass m on the spring, k = m w0^2 and c = 2 m w0 (critically damped,
// damping ratio 1), so every object follows the cursor on the same time scale 1/w0 whatever its
// mass. The force acts at the picked point for one step as the impulse F h: dv = F h / m and, for
// a rigid body, dw = I_world^-1 (r x F) h with r the point's offset from the centre of mass. The
// explicit step is stable while w0 h is well below 1 (kMouseOmega h = 0.13 at 60 Hz).
#pragma once

#include <glm/glm.hpp>
#include <optional>

#include "host/sim/backend.h"
#include "vkphys/grab.h"
#include "vkphys/scene.h"

namespace vkphys {

// The spring's angular frequency w0 [rad/s]: about 8 rad/s, a quarter-second response.
inline constexpr double kMouseOmega = 8.0;

// The nearest dynamic scene body (sphere, box or capsule with mass > 0) or dynamic particle
// that the ray from `origin` along the unit vector `dir` enters, at a distance >= 0; nothing
// when it misses them all. Planes and static bodies are never picked.
std::optional<Grab> pick(const Scene& scene, const WorldState& state, glm::dvec3 origin,
                         glm::dvec3 dir);

// The picked point in world coordinates, and its velocity.
glm::dvec3 grabbed_point(const WorldState& state, const Grab& grab);
glm::dvec3 grabbed_velocity(const WorldState& state, const Grab& grab);

// F = k (target - p) - c v (the header's derivation).
inline glm::dvec3 spring_force(double k, double c, glm::dvec3 target, glm::dvec3 p, glm::dvec3 v) {
  return k * (target - p) - c * v;
}

// Applies the mouse spring pulling the grabbed point towards `target` for one step of `h`
// seconds to `state`'s velocities (then Backend::write it). Returns the force [N].
glm::dvec3 apply_mouse_spring(const Scene& scene, WorldState& state, const Grab& grab,
                              glm::dvec3 target, double h);

}  // namespace vkphys
