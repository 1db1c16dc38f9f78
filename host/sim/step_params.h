// Builds the per-step constants (kernels/layout.h StepParams) from a scene: derived grid cell
// size, contact margin and hash table size, materials and planes packed for the GPU.
#pragma once

#include <cstdint>

#include "host/sim/scene.h"
#include "kernels/layout.h"

namespace vkphys {

using kern::StepCounters;
using kern::StepParams;

StepParams make_step_params(const Scene& scene, std::uint32_t contact_capacity);

// Default directed-contact capacity: 8 per particle (a settled pile has about 6), growing on
// demand.
std::uint32_t default_contact_capacity(std::size_t particles);
// Capacity after an overflow that needed `wanted` contacts: 1.5x headroom.
std::uint32_t grown_contact_capacity(std::uint32_t wanted);

}  // namespace vkphys
