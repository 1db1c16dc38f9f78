// SPIR-V reflection (host/vk/spirv_reflect.h): a kernel's descriptor-set layout holds exactly
// the bindings its main() reaches, so shaders may declare more buffers than a stage may bind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "host/vk/context.h"
#include "host/vk/spirv_reflect.h"
#include "rigid_body.spv.h"
#include "rigid_unit.spv.h"
#include "scan_blocks.spv.h"

namespace vkphys {
namespace {

std::vector<std::uint32_t> binding_numbers(std::span<const std::uint32_t> spirv) {
  std::vector<std::uint32_t> out;
  for (const vk::ShaderBinding& b : vk::used_bindings(spirv)) out.push_back(b.binding);
  return out;
}

bool has(const std::vector<std::uint32_t>& v, std::uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(SpirvReflect, ScanUsesItsTwoStorageBuffers) {
  const auto used = vk::used_bindings(scan_blocks_spv);
  ASSERT_EQ(used.size(), 2u);
  EXPECT_EQ(used[0].binding, 0u);
  EXPECT_EQ(used[1].binding, 1u);
  EXPECT_EQ(used[0].type, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  EXPECT_EQ(used[1].type, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
}

// rigid_common.glsl declares 32 bindings; the per-body kernel never touches the pair, point or
// joint buffers (18-29), the per-unit kernel touches them but not the AABBs (11).
TEST(SpirvReflect, RigidKernelsBindOnlyWhatTheyUse) {
  const auto body = binding_numbers(rigid_body_spv);
  const auto unit = binding_numbers(rigid_unit_spv);
  EXPECT_TRUE(has(body, 0u));    // the step constants
  EXPECT_TRUE(has(body, 2u));    // body_pos
  EXPECT_FALSE(has(body, 18u));  // pair_info
  EXPECT_FALSE(has(body, 28u));  // joint_rows
  EXPECT_TRUE(has(unit, 28u));
  EXPECT_FALSE(has(unit, 11u));  // body_aabb
  EXPECT_LT(body.size(), 32u);
  EXPECT_TRUE(std::is_sorted(body.begin(), body.end()));
  for (const vk::ShaderBinding& b : vk::used_bindings(rigid_body_spv)) {
    EXPECT_EQ(b.type, b.binding == 0u ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                      : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  }
}

TEST(SpirvReflect, RejectsWhatIsNotSpirv) {
  const std::uint32_t junk[] = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(vk::used_bindings(junk), vk::Error);
  std::vector<std::uint32_t> cut(rigid_body_spv, rigid_body_spv + 40);
  cut[5] = 0xFFFF0000u | (cut[5] & 0xFFFFu);  // an instruction longer than the module
  EXPECT_THROW(vk::used_bindings(cut), vk::Error);
}

}  // namespace
}  // namespace vkphys
