// The world step's compute pipelines (host/gpu/step_recording.cpp records them): one per world
// shader, built from its embedded SPIR-V with the specialization constants below, and world_ode
// once per mode it is dispatched with.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "host/sim/backend.h"
#include "host/vk/kernel.h"
#include "kernels/stages.h"

namespace vkphys {

// Bytes of push constants every world shader takes (shaders/world_common.glsl: one uvec4).
inline constexpr std::uint32_t kWorldPush = 16;

// The world shaders' specialization constants: VKPHYS_FAULT (kernels/stages.h), FAULT_NONE unless
// a test asks for a wrong kernel (world_ode adds its mode: WorldKernels::ode). Throws
// std::invalid_argument for a stage that has no fault.
struct WorldConstants {
  std::array<std::uint32_t, 1> values{kern::FAULT_NONE};
  explicit WorldConstants(std::optional<Stage> fault);
};

// world_ode's modes (kernels/stages.h VKPHYS_ODE_MODES).
#define VKPHYS_COUNT_MODE(name, value) +1
inline constexpr std::uint32_t kOdeModes = 0 VKPHYS_ODE_MODES(VKPHYS_COUNT_MODE);
#undef VKPHYS_COUNT_MODE

struct WorldKernels {
  vk::Kernel body, grid, sweep, finalize, narrowphase, color, unit, commit, drive, pcontact, tree;
  WorldKernels(const vk::Context& c, std::span<const std::uint32_t> constants);
  // world_ode with `mode` as its specialization constant: one pipeline per mode, made at its
  // first use (a scene records a few of the 15). shaders/world_ode.comp says why the mode is
  // not a push constant.
  vk::Kernel& ode(std::uint32_t mode);
  // shaders/world_fused.comp (or its world_fused_workgroup.comp variant on a GPU with the
  // Vulkan memory model), made at its first use: most scenes never fuse, and a pipeline that is
  // never made is never compiled (each fault variant of the tests compiled it again).
  vk::Kernel& fused();
  // shaders/world_reach.comp (the speculative reach), made at its first use: only scenes with
  // solver.speculative_reach record it.
  vk::Kernel& reach();
  // Every pipeline made so far.
  std::vector<vk::Kernel*> all();

 private:
  const vk::Context& ctx_;
  std::vector<std::uint32_t> constants_;  // constant_id 0 on (VKPHYS_FAULT)
  std::array<std::unique_ptr<vk::Kernel>, kOdeModes> ode_;
  std::unique_ptr<vk::Kernel> fused_;
  std::unique_ptr<vk::Kernel> reach_;
};

}  // namespace vkphys
