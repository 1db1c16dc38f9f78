// SPIR-V reflection (host/vk/spirv_reflect.h): a kernel's descriptor-set layout holds exactly
// the bindings its main() reaches, so shaders may declare more buffers than a stage may bind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "host/vk/context.h"
#include "host/vk/spirv_reflect.h"
#include "kernels/world_layout.h"
#include "scan_blocks.spv.h"
#include "world_body.spv.h"
#include "world_fused.spv.h"
#include "world_fused_workgroup.spv.h"
#include "world_narrowphase.spv.h"
#include "world_ode.spv.h"
#include "world_sweep.spv.h"
#include "world_tree.spv.h"
#include "world_unit.spv.h"

namespace vkphys {
namespace {

std::vector<std::uint32_t> binding_numbers(std::span<const std::uint32_t> spirv) {
  std::vector<std::uint32_t> out;
  for (const vk::ShaderBinding& b : vk::used_bindings(spirv)) out.push_back(b.binding);
  return out;
}

// The storage buffers a kernel binds: what a stage's maxPerStageDescriptorStorageBuffers limits
// (32 on lavapipe). The step constants (binding 0) are a uniform buffer, counted against the
// uniform-buffer limit instead.
std::size_t storage_buffers(std::span<const std::uint32_t> spirv) {
  std::size_t n = 0;
  for (const vk::ShaderBinding& b : vk::used_bindings(spirv)) {
    if (b.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER) ++n;
  }
  return n;
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

// The binding of a world buffer, by name, from the one buffer table.
std::uint32_t binding_of(std::string_view name) {
#define VKPHYS_FIND_BINDING(b, T, buffer) \
  if (name == #buffer) return b;
  VKPHYS_WORLD_BUFFERS(VKPHYS_FIND_BINDING)
#undef VKPHYS_FIND_BINDING
  throw std::invalid_argument("no world buffer named " + std::string(name));
}

// world_common.glsl declares 82 bindings, more than lavapipe lets a stage bind (32); the
// per-body kernel never touches the pair or joint buffers, the per-unit kernel touches them but
// not the bounding boxes, the integrators' kernel touches the force springs, the wind and the
// implicit integrator's CG vectors, spring blocks and lines, the narrowphase the manifold cache's
// references, the sweep its walks and the extents it streams through.
TEST(SpirvReflect, WorldKernelsBindOnlyWhatTheyUse) {
  const auto body = binding_numbers(world_body_spv);
  const auto unit = binding_numbers(world_unit_spv);
  const auto ode = binding_numbers(world_ode_spv);
  const auto narrow = binding_numbers(world_narrowphase_spv);
  const auto sweep = binding_numbers(world_sweep_spv);
  EXPECT_EQ(VKPHYS_WORLD_BINDINGS, 82u);
  EXPECT_TRUE(has(sweep, binding_of("sweep_yz")));
  EXPECT_TRUE(has(sweep, binding_of("sweep_ranges")));
  EXPECT_FALSE(has(sweep, binding_of("joint_rows")));
  EXPECT_LE(storage_buffers(world_sweep_spv), 32u);
  EXPECT_TRUE(has(narrow, binding_of("prev_pair_frame")));
  EXPECT_TRUE(has(narrow, binding_of("point_ref")));
  EXPECT_FALSE(has(narrow, binding_of("joint_rows")));
  EXPECT_LE(storage_buffers(world_narrowphase_spv), 32u);
  EXPECT_TRUE(has(ode, binding_of("fspring_params")));
  EXPECT_TRUE(has(ode, binding_of("cg_vec")));
  EXPECT_TRUE(has(ode, binding_of("cg_dv")));
  EXPECT_TRUE(has(ode, binding_of("cg_lines")));
  EXPECT_TRUE(has(ode, binding_of("cg_factor")));
  EXPECT_TRUE(has(ode, binding_of("cg_blocks")));
  EXPECT_FALSE(has(unit, binding_of("cg_blocks")));
  EXPECT_TRUE(has(ode, binding_of("wind_tris")));
  EXPECT_FALSE(has(ode, binding_of("joint_rows")));
  EXPECT_LE(storage_buffers(world_ode_spv), 32u);
  std::printf("world_ode binds %zu storage buffers (lavapipe's limit 32)\n",
              storage_buffers(world_ode_spv));
  EXPECT_TRUE(has(body, 0u));  // the step constants
  EXPECT_TRUE(has(body, binding_of("body_pos")));
  EXPECT_TRUE(has(body, binding_of("sweep_ref")));  // the solver residual
  EXPECT_FALSE(has(body, binding_of("pair_info")));
  EXPECT_FALSE(has(body, binding_of("joint_rows")));
  EXPECT_TRUE(has(unit, binding_of("joint_rows")));
  EXPECT_TRUE(has(unit, binding_of("pcontact_lambda")));
  EXPECT_FALSE(has(unit, binding_of("rigid_aabb")));
  EXPECT_LE(storage_buffers(world_body_spv), 32u);
  EXPECT_LE(storage_buffers(world_unit_spv), 32u);
  // The fused solve sweeps every unit kind and measures the residual on the bodies.
  const auto fused = binding_numbers(world_fused_spv);
  EXPECT_TRUE(has(fused, binding_of("sweep_ref")));
  EXPECT_TRUE(has(fused, binding_of("tree_blocks")));
  // 32 storage buffers and the uniform one since the overflow colour's mass-split Jacobi: at
  // lavapipe's limit, so one more binding here needs another kernel's share or a smaller one.
  EXPECT_TRUE(has(fused, 0u));
  EXPECT_LE(storage_buffers(world_fused_spv), 32u);
  // Its variant for the Vulkan memory model is the same kernel: the same bindings.
  EXPECT_EQ(binding_numbers(world_fused_workgroup_spv), fused);
  // The joint trees' kernel: the trees, the joints' rows and the bodies, no contacts.
  const auto tree = binding_numbers(world_tree_spv);
  EXPECT_TRUE(has(tree, binding_of("tree_nodes")));
  EXPECT_TRUE(has(tree, binding_of("joint_rows")));
  EXPECT_FALSE(has(tree, binding_of("point_prep")));
  EXPECT_LE(storage_buffers(world_tree_spv), 32u);
  EXPECT_TRUE(std::is_sorted(body.begin(), body.end()));
  for (const vk::ShaderBinding& b : vk::used_bindings(world_body_spv)) {
    EXPECT_EQ(b.type, b.binding == 0u ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                      : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  }
}

TEST(SpirvReflect, RejectsWhatIsNotSpirv) {
  const std::uint32_t junk[] = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(vk::used_bindings(junk), vk::Error);
  std::vector<std::uint32_t> cut(world_body_spv, world_body_spv + 40);
  cut[5] = 0xFFFF0000u | (cut[5] & 0xFFFFu);  // an instruction longer than the module
  EXPECT_THROW(vk::used_bindings(cut), vk::Error);
}

}  // namespace
}  // namespace vkphys
