// Recording one world step into a command buffer: the stages of host/sim/backend.h as compute
// dispatches with a barrier after each, recorded once and replayed every step until something
// the recording depends on changes (the capacities, the colours in use, the fused path, the
// explicit integrators' n). host/gpu/step_recording.cpp says what the step runs, in order.
#pragma once

#include <array>
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
  // Whether a substep after the first carries its warm start in its predict instead of a sweep
  // (WarmStart::carried and carries_warm_start, host/sim/world_setup.h).
  bool carry_warm_start = false;
};

// Automatic fusion (FusedPolicy::automatic) from the counters of the step just taken; under
// always and never, those. Returns whether `choices` changed (the step must be re-recorded).
bool choose_fusion(FusedPolicy policy, const kern::WorldCounters& counters, const Scene& scene,
                   const WorldArrays& world, const Capacities& cap, RecordChoices& choices);

// The colours the next step records (RecordChoices::colors), after a step that used `used`:
// the most that any of the last kSteps steps used, none ahead. A recorded colour with no units
// still costs a dispatch and a barrier in every sweep (52 a step for two spare colours at the
// 100,000 boxes' 25 iterations), while a step that needs more than were recorded is redone
// with every colour (the colouring's redo flag; the result never depends on the count
// recorded), which costs a step. So the count grows at once, from a recording of every colour
// (at load and after a redo) to what the step used, and shrinks once no step of the last
// kSteps used more: a count that moves between two values is not redone every other step.
// Returns whether `choices` changed (the step must be re-recorded).
struct ColorWindow {
  static constexpr std::uint32_t kSteps = 60;
  std::array<std::uint32_t, kSteps> used{};  // the colours of the last kSteps steps, a ring
  std::uint32_t next = 0;                    // where the next step's count goes
};
bool choose_colors(std::uint32_t used, ColorWindow& window, RecordChoices& choices);

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

// A recorded step: `main` runs the stages up to the commit, `commit` the commit stage (this
// step's contacts become the next one's warm-start source: the only writes a step makes to what
// it carries, besides the state that begin backs up); begin[slot] and end[slot] run before and
// after them, for a step in in-flight slot `slot` (kSlots, host/gpu/world_buffers.h). Usually
// all four go in one submission; a step run ahead of a caller's look at the step before
// (GpuBackend::steps, after_each) submits begin and main first and its commit and end once the
// caller is done, so that a caller who stops there leaves it uncommitted: its start comes back
// from the slot's backup, as for an undone step.
// begin copies the slot's step constants and drive data in and the step-start state aside into
// the slot's backup; end copies the counters out into the slot's readback block and keeps the
// step's undo flags for the next step (WorldCounters::undone_before), with the barrier that
// makes the readback visible to the host and orders everything after it on the queue, the next
// submission included. `stats` gets the dispatches and barriers of main and one slot's ends.
struct RecordedStep {
  VkCommandBuffer main = VK_NULL_HANDLE, commit = VK_NULL_HANDLE;
  std::array<VkCommandBuffer, kSlots> begin{}, end{};
};
RecordedStep record_step(const StepRecordingInputs& in, StepStats& stats);

}  // namespace vkphys
