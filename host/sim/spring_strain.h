// How far a scene's springs are from their rest lengths in a state: the stiffness measure the
// cloth bench reports beside its timings and the cloth tests bound. Bullet's soft-body bench
// (../shared/peers/bullet_bench.cpp) reports the same two numbers for its links, so a cloth
// can be compared with it at the same strain.
#pragma once

#include <cstddef>
#include <optional>

#include "host/sim/backend.h"
#include "vkphys/metrics.h"
#include "vkphys/scene.h"

namespace vkphys {

// Over the scene's springs but its tethers, or only those of stiffness `only_k`; a spring's body
// end is its anchor on the body in `state`.
SpringStrain spring_strain(const Scene& scene, const WorldState& state,
                           std::optional<float> only_k = std::nullopt);

}  // namespace vkphys
