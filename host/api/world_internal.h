// What vkphys's own tools need of a World beyond the public API (private to the library and
// tools/): the state as the output writers take it, the backend's step statistics and a step
// that also records its trace.
#pragma once

#include "host/sim/backend.h"
#include "host/vk/context.h"
#include "vkphys/world.h"

namespace vkphys {

struct WorldInternals {
  static const WorldState& state(const World& world);
  static const StepStats& stats(const World& world);
  // World::step(1) that fills `trace` with the step's intermediate buffers.
  static void step_traced(World& world, StepTrace& trace);
  // The GPU backend's Vulkan context (null on the CPU backend), for fault injection in tests.
  static const vk::Context* gpu_context(const World& world);
};

}  // namespace vkphys
