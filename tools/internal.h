// What the `vkphys` commands that still reach past the public API share: bench (it drives the
// backends and their Vulkan context directly, for timestamps and the fused-solve policy), view
// (a window's swapchain on its own context) and export-scene (the library's built-in scene
// builders, sized within the scene loader's limits).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/io/scene_file.h"
#include "host/vk/context.h"
#include "tools/commands.h"

namespace vkphys::tools {

// Largest size parameters of the built-in scenes (bench --sizes, export-scene --size): the
// scene they build stays within the scene loader's limits (kMaxBodies, kMaxParticles).
inline constexpr std::uint32_t kMaxPyramidBase = [] {
  std::uint64_t b = 1;
  while ((b + 1) * (b + 2) / 2 <= io::kMaxBodies) ++b;
  return static_cast<std::uint32_t>(b);
}();                                                  // base rows: base (base + 1) / 2 boxes
inline constexpr std::uint32_t kPyramidBoxes10 = 55;  // boxes in a base-10 pyramid
// Largest cloth side (bench cloth): its about 6 n^2 springs stay within kMaxJoints.
inline constexpr std::uint32_t kMaxClothSide = 800;

// Throws std::runtime_error "FLAG N: WHAT takes at most MAX" when size > max.
void check_size(const char* flag, std::uint64_t size, const std::string& what, std::uint64_t max);

// The Vulkan context the global flags ask for: --device, --validation, --sync-validation.
vk::ContextOptions context_options(const Options& opt);
// The backends `--backend cpu|gpu|both` asks `bench` for, in that order. Opens the Vulkan
// context into `ctx` for "gpu" (a missing device prints one line and drops "gpu") and prints
// the device line, saying so when it is a CPU Vulkan driver (`rows_marked`: how its rows are
// labelled, empty for none).
std::vector<std::string> open_bench_backends(const Options& opt, std::unique_ptr<vk::Context>& ctx,
                                             const char* rows_marked);

}  // namespace vkphys::tools
