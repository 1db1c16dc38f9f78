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

// The world shaders with one pipeline each, shaders/world_<name>.comp (reach: the speculative
// reach, recorded with solver.speculative_reach on, the default in version 2). One list makes
// WorldKernels' accessors, its Shader enum and its table of sources.
// clang-format off
#define VKPHYS_WORLD_SHADERS(X) \
  X(body) X(grid) X(sweep) X(finalize) X(narrowphase) X(color) X(unit) X(commit) X(drive) \
  X(pcontact) X(tree) X(reach)
// clang-format on

// Each world shader's pipeline is made at its first use, when a step's recording asks for it:
// a scene records only some of them (no rigid bodies: no narrowphase or unit, the two largest; no
// particles: no grid or pcontact; no joint trees: no tree), and a pipeline that is never made is
// never compiled. Measured on lavapipe (llvmpipe, Mesa 22.3, with the pipeline cache on disk):
// making all eleven took 0.85-1.0 s, the unit kernel 0.33-0.45 s and the narrowphase 0.25-0.35 s
// of it, for every GPU backend made (each test process makes at least one).
struct WorldKernels {
  WorldKernels(const vk::Context& c, std::span<const std::uint32_t> constants);
  // clang-format off
#define VKPHYS_WORLD_SHADER_ACCESSOR(name) \
  vk::Kernel& name() { return made(Shader::name); }
  VKPHYS_WORLD_SHADERS(VKPHYS_WORLD_SHADER_ACCESSOR)
#undef VKPHYS_WORLD_SHADER_ACCESSOR
  // clang-format on
  // world_ode with `mode` as its specialization constant: one pipeline per mode (a scene records
  // a few of the 15). shaders/world_ode.comp says why the mode is not a push constant.
  vk::Kernel& ode(std::uint32_t mode);
  // shaders/world_fused.comp, or its world_fused_workgroup.comp variant on a GPU with the Vulkan
  // memory model (most scenes never fuse).
  vk::Kernel& fused();
  // Every pipeline made so far.
  std::vector<vk::Kernel*> all();

 private:
#define VKPHYS_WORLD_SHADER_ENUM(name) name,
  enum class Shader : std::uint32_t { VKPHYS_WORLD_SHADERS(VKPHYS_WORLD_SHADER_ENUM) count };
#undef VKPHYS_WORLD_SHADER_ENUM
  vk::Kernel& made(Shader s);

  const vk::Context& ctx_;
  std::vector<std::uint32_t> constants_;  // constant_id 0 on (VKPHYS_FAULT)
  std::array<std::unique_ptr<vk::Kernel>, static_cast<std::size_t>(Shader::count)> shaders_;
  std::array<std::unique_ptr<vk::Kernel>, kOdeModes> ode_;
  std::unique_ptr<vk::Kernel> fused_;
};

}  // namespace vkphys
