// What the `vkphys` commands that still reach past the public API share: bench (it drives the
// backends and their Vulkan context directly, for timestamps and the fused-solve policy) and view
// (a window's swapchain on its own context).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/vk/context.h"
#include "tools/commands.h"

namespace vkphys::tools {

// Sizes of bench's workloads beyond vkphys::builtin_scene_max_size: they stay within the scene
// loader's limits (vkphys/limits.h).
inline constexpr std::uint32_t kPyramidBoxes10 = 55;  // boxes in a base-10 pyramid
// Largest cloth side (bench cloth): its about 6 n^2 springs stay within kMaxJoints.
inline constexpr std::uint32_t kMaxClothSide = 800;

// The Vulkan context the global flags ask for: --device, --validation, --sync-validation.
vk::ContextOptions context_options(const Options& opt);
// The backends `--backend cpu|gpu|both` asks `bench` for, in that order. Opens the Vulkan
// context into `ctx` for "gpu" (a missing device prints one line and drops "gpu") and prints
// the device line, saying so when it is a CPU Vulkan driver (`rows_marked`: how its rows are
// labelled, empty for none).
std::vector<std::string> open_bench_backends(const Options& opt, std::unique_ptr<vk::Context>& ctx,
                                             const char* rows_marked);

}  // namespace vkphys::tools
