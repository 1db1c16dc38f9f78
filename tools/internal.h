// What `vkphys view`, the one command that still reaches past the public API, needs of the
// options: the Vulkan context for its window's swapchain.
#pragma once

#include "host/vk/context.h"
#include "tools/commands.h"

namespace vkphys::tools {

// The Vulkan context the global flags ask for: --device, --validation, --sync-validation.
vk::ContextOptions context_options(const Options& opt);

}  // namespace vkphys::tools
