/// \file
/// The scene loader's size limits: a scene file, a Scene given to World or a built-in scene
/// (vkphys/builtin_scenes.h) with more than these is refused with an Error naming the count and
/// the limit. Checked before anything is allocated.
#pragma once

#include <cstdint>

namespace vkphys {

/// Most particles a scene may hold or generate. A resting pile owns about 3 contacts per
/// particle and a step holds fewer than 2^24 contacts, so more particles could not run anyway.
inline constexpr std::uint32_t kMaxParticles = 1u << 22;
/// Most rigid bodies a scene may list.
inline constexpr std::uint32_t kMaxBodies = 1u << 22;
/// Most joints, and springs (a cloth's included), a scene may list.
inline constexpr std::uint32_t kMaxJoints = 1u << 22;
/// Largest magnitude of each component of gravity (and of any field's acceleration) [m/s^2].
inline constexpr float kMaxAcceleration = 1.0e4f;

}  // namespace vkphys
