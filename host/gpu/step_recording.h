// Recording one world step into a command buffer: the stages of host/sim/backend.h as compute
// dispatches with a barrier after each, recorded once and replayed every step until something
// the recording depends on changes (the capacities, the colours in use, the fused path, the
// explicit integrators' n). host/gpu/step_recording.cpp says what the step runs, in order.
#pragma once

#include <cstdint>

#include "host/gpu/world_buffers.h"
#include "host/gpu/world_kernels.h"
#include "host/sim/ode_control.h"
#include "host/sim/world_setup.h"
#include "host/vk/kernel.h"

namespace vkphys {

// What a recording varies by, besides the world and its capacities.
struct RecordChoices {
  std::uint32_t colors = 0;  // colours the recorded step colours and sweeps
  // What the recorded step runs in one workgroup (shaders/world_fused.comp).
  bool fuse_coloring = false, fuse_sweeps = false;
};

// Automatic fusion (FusedPolicy::automatic) from the counters of the step just taken; under
// always and never, those. Returns whether `choices` changed (the step must be re-recorded).
bool choose_fusion(FusedPolicy policy, const kern::WorldCounters& counters, const Scene& scene,
                   const WorldArrays& world, const Capacities& cap, RecordChoices& choices);

// What a step's recording reads, borrowed from the backend for the call.
struct StepRecordingInputs {
  vk::Context& ctx;
  WorldKernels& kernels;
  const vk::Timestamps& timestamps;  // one per stage boundary, kStageCount + 1
  WorldBuffers& buffers;
  const Scene& scene;
  const WorldArrays& world;
  const Capacities& cap;
  const kern::WorldParams& params;  // the step constants made from `cap`
  const OdeControl& ode;
  const RecordChoices& choices;
};

// A new command buffer holding the whole step, ended and ready to submit; `stats` gets its
// dispatches and barriers.
VkCommandBuffer record_step(const StepRecordingInputs& in, StepStats& stats);

}  // namespace vkphys
