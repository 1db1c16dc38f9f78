// What the library's own parts (the Recorder, host/api/recorder.cpp) and the tests need of a
// World beyond the public API: the state as the output writers take it, the backend's step
// statistics, the last step's contact lists and the GPU context. Not for tools/, which use the
// public API alone.
#pragma once

#include <memory>

#include "host/sim/backend.h"
#include "host/vk/context.h"
#include "vkphys/devices.h"
#include "vkphys/world.h"

namespace vkphys {

struct WorldInternals {
  static const WorldState& state(const World& world);
  static const StepStats& stats(const World& world);
  // The contact lists of the step that led to the held state (WorldOptions::record_contacts),
  // or null when the World does not record them or no step of it made that state (an empty
  // trace for the first state: nothing touched yet).
  static const StepTrace* trace(const World& world);
  // The step whose state the host copy holds (World::steps() but after a failed step).
  static std::uint64_t held_step(const World& world);
  static bool records_contacts(const World& world);
  // The GPU backend's Vulkan context (null on the CPU backend), for fault injection in tests.
  static const vk::Context* gpu_context(const World& world);
};

// A SharedDevice's Vulkan context, for the Worlds that run on it. Both throw Error for a
// SharedDevice that holds none; context_ptr keeps the device open while a World holds it.
struct SharedDeviceInternals {
  static std::shared_ptr<vk::Context> context_ptr(const SharedDevice& device);
  static vk::Context& context(const SharedDevice& device);
  // A SharedDevice holding `ctx`, opened by the library itself (the Viewer's, whose instance
  // has its window system's surface extensions).
  static SharedDevice adopt(std::unique_ptr<vk::Context> ctx);
};

}  // namespace vkphys
