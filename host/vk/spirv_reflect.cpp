#include "host/vk/spirv_reflect.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "host/vk/context.h"

namespace vkphys::vk {

namespace {

// SPIR-V opcodes, decorations and storage classes this reader needs (SPIR-V 1.3 spec, 3.x).
enum : std::uint32_t {
  kOpTypePointer = 32,
  kOpFunction = 54,
  kOpVariable = 59,
  kOpLoad = 61,
  kOpStore = 62,
  kOpCopyMemory = 63,
  kOpAccessChain = 65,
  kOpInBoundsAccessChain = 66,
  kOpPtrAccessChain = 67,
  kOpArrayLength = 68,
  kOpDecorate = 71,
  kDecorationBufferBlock = 3,
  kDecorationBinding = 33,
  kDecorationDescriptorSet = 34,
  kStorageUniform = 2,
  kStorageBuffer = 12,
  kMagic = 0x07230203u,
};

struct Variable {
  std::uint32_t pointer_type = 0;
  std::uint32_t storage = 0;
};

}  // namespace

std::vector<ShaderBinding> used_bindings(std::span<const std::uint32_t> spirv) {
  if (spirv.size() < 5 || spirv[0] != kMagic) throw Error("used_bindings: not a SPIR-V module");
  std::map<std::uint32_t, std::uint32_t> binding_of, set_of;  // variable id -> decoration
  std::set<std::uint32_t> buffer_block_types;                 // struct ids decorated BufferBlock
  std::map<std::uint32_t, std::uint32_t> pointee;             // pointer type id -> pointee id
  std::map<std::uint32_t, Variable> variables;                // global variables by id
  std::set<std::uint32_t> used;
  bool in_functions = false;
  for (std::size_t at = 5; at < spirv.size();) {
    const std::uint32_t count = spirv[at] >> 16;
    const std::uint32_t op = spirv[at] & 0xFFFFu;
    if (count == 0 || at + count > spirv.size()) throw Error("used_bindings: truncated SPIR-V");
    const std::uint32_t* w = &spirv[at];
    if (op == kOpDecorate && count >= 3) {
      if (w[2] == kDecorationBinding && count >= 4) binding_of[w[1]] = w[3];
      if (w[2] == kDecorationDescriptorSet && count >= 4) set_of[w[1]] = w[3];
      if (w[2] == kDecorationBufferBlock) buffer_block_types.insert(w[1]);
    } else if (op == kOpTypePointer && count >= 4) {
      pointee[w[1]] = w[3];
    } else if (op == kOpFunction) {
      in_functions = true;
    } else if (op == kOpVariable && count >= 4 && !in_functions) {
      variables[w[2]] = {w[1], w[3]};
    } else if (in_functions) {
      switch (op) {
        case kOpAccessChain:
        case kOpInBoundsAccessChain:
        case kOpPtrAccessChain:
        case kOpArrayLength:
        case kOpLoad:
          if (count >= 4) used.insert(w[3]);
          break;
        case kOpStore:
        case kOpCopyMemory:
          if (count >= 3) used.insert(w[1]), used.insert(w[2]);
          break;
        default:
          break;
      }
    }
    at += count;
  }
  std::vector<ShaderBinding> out;
  for (const auto& [id, binding] : binding_of) {
    if (!used.count(id)) continue;
    auto var = variables.find(id);
    if (var == variables.end()) continue;
    auto set = set_of.find(id);
    if (set != set_of.end() && set->second != 0) {
      throw Error("used_bindings: binding " + std::to_string(binding) + " is in descriptor set " +
                  std::to_string(set->second) + "; vkphys shaders use set 0 only");
    }
    const Variable& v = var->second;
    ShaderBinding b;
    b.binding = binding;
    if (v.storage == kStorageBuffer) {
      b.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    } else if (v.storage == kStorageUniform) {
      const bool buffer_block = buffer_block_types.count(pointee[v.pointer_type]) > 0;
      b.type = buffer_block ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    } else {
      continue;
    }
    out.push_back(b);
  }
  std::sort(out.begin(), out.end(),
            [](const ShaderBinding& a, const ShaderBinding& b) { return a.binding < b.binding; });
  return out;
}

}  // namespace vkphys::vk
