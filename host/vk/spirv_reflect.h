// Which descriptor bindings a compute shader actually uses, read from its SPIR-V.
//
// Every stage function of the world step (kernels/*.inl) reads its buffers by name, and the
// world's shaders declare the whole buffer list (shaders/world_common.glsl) so that any of them
// can call any stage function. A device allows only so many storage buffers per stage (32 on
// lavapipe, the Vulkan minimum is 4), so a pipeline must not declare them all: a kernel's
// descriptor-set layout holds exactly the bindings its SPIR-V statically uses. glslang emits only
// the functions reachable from main(), so a buffer variable is used when an instruction in a
// function body takes it as its base pointer (access chain, array length, load, store, copy).
// Vulkan requires layout entries only for statically used resources; the validation layer, on
// in every GPU test, checks exactly that.
#pragma once

#include <volk.h>

#include <cstdint>
#include <span>
#include <vector>

namespace vkphys::vk {

struct ShaderBinding {
  std::uint32_t binding = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;  // or UNIFORM_BUFFER
};

// The set-0 buffer bindings `spirv` statically uses, in increasing binding order. Throws
// vk::Error if the words are not a SPIR-V module or use a descriptor set other than 0.
std::vector<ShaderBinding> used_bindings(std::span<const std::uint32_t> spirv);

}  // namespace vkphys::vk
