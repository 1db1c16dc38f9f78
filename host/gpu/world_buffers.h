// The world step's device memory: the buffer table every world shader declares
// (kernels/world_layout.h, VKPHYS_WORLD_BUFFERS), indexed by binding number, and the few buffers
// beside it that no shader binds (the step-start backup, the predicted-velocity trace, the
// host-visible copies of the step constants and counters).
//
// Two lifetimes size it. The world's buffers (bodies, joints, springs, trees, particle lists)
// follow the scene and are made once per load (size_world). The append-style lists (pairs,
// contact points, particle contacts, units, sort space) follow the capacities and are remade
// whenever a list overflows (size_lists); last step's contacts survive that, for the warm start.
// Keeping both here lets the backend (host/gpu/gpu_backend.cpp) say when to size and the step's
// recording (host/gpu/step_recording.cpp) say what to run, each without the other's details.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "host/gpu/primitives.h"
#include "host/sim/world_setup.h"
#include "host/vk/kernel.h"
#include "kernels/world_layout.h"

namespace vkphys {

// Binding numbers by buffer name: b_body_pos, b_rigid_rot, ...
enum Binding : std::uint32_t {
  b_params = 0,
  b_counters = 1,
#define VKPHYS_BINDING_NAME(b, T, name) b_##name = b,
  VKPHYS_WORLD_BUFFERS(VKPHYS_BINDING_NAME)
#undef VKPHYS_BINDING_NAME
};

// Records a copy of `bytes` from src at src_offset to dst at dst_offset; nothing for 0 bytes.
void copy_region(VkCommandBuffer cb, const vk::Buffer& src, const vk::Buffer& dst,
                 VkDeviceSize src_offset, VkDeviceSize dst_offset, VkDeviceSize bytes);

// Two steps may be in flight at once (GpuBackend::steps: step n + 1 is submitted before step
// n's counters are read), so what a step's submission writes from the host or leaves for the
// host is kept per in-flight slot, a step's slot being its index mod kSlots.
inline constexpr std::uint32_t kSlots = 2;

struct WorldBuffers {
  std::array<vk::Buffer, VKPHYS_WORLD_BINDINGS> buf;
  vk::Buffer predicted;
  std::array<vk::Buffer, kSlots> backup;         // the step-start state (backup_copies)
  VkDeviceSize backup_cg = 0;                    // cg_dv's bytes (0 but under the implicit method)
  std::array<vk::Buffer, kSlots> params_host;    // the step constants as the host writes them
  std::array<vk::Buffer, kSlots> counters_host;  // the counters as the step's end copies them out
  std::array<vk::Buffer, kSlots> stamps_host;    // the step's stage timestamps, copied out alike
  // The step's kinematic paths, then its due impulses (host/sim/drive.h), as the host writes
  // them; copied into b_drive_paths and b_drive_impulses as the step begins.
  std::array<vk::Buffer, kSlots> drive_host;
  // The counters' indirect dispatch sizes, copied there after the finalize kernel writes them
  // (host/gpu/step_recording.cpp). No shader binds it, so the compute-only barriers between
  // dispatches never need to make it visible again, though every kernel may write the counters.
  vk::Buffer dispatch_args;
  std::unique_ptr<gpu::Scan> scan;
  std::unique_ptr<gpu::RadixSort> sort;
  std::map<const vk::Kernel*, VkDescriptorSet> sets;

  // The buffers the scene fixes, uploaded from `world` (zeros where the step starts from
  // nothing); forgets the lists a previous scene kept.
  void size_world(vk::Context& ctx, const Scene& scene, const WorldArrays& world,
                  const kern::WorldParams& params);

  // The lists sized by `cap` (`params` made from it). Returns last step's lists, each with the
  // binding it was under, to be copied into the front of their grown successors.
  using KeptLists = std::array<std::pair<Binding, vk::Buffer>, 5>;
  KeptLists size_lists(vk::Context& ctx, const Scene& scene, const WorldArrays& world,
                       const Capacities& cap, const kern::WorldParams& params);

  // Every world kernel binds from the same table; one set per kernel, made on first use after
  // the buffers were (re)allocated.
  VkDescriptorSet set(vk::Kernel& k);

  // The step constants as the host last wrote them into `slot`, into their device-local buffer.
  void copy_params_in(VkCommandBuffer cb, std::uint32_t slot) const;

  // `slot`'s kinematic paths and due impulses into the buffers the step binds.
  void copy_drive_in(VkCommandBuffer cb, std::uint32_t slot) const;

  // The state a redone step starts from: positions and velocities of every body, orientations
  // and angular velocities of the rigid bodies, joint impulses, the implicit method's last
  // solution (the first solve's warm start). Into `backup[slot]`, or back out of it with
  // `restore`.
  void backup_copies(VkCommandBuffer cb, bool restore, const WorldArrays& world,
                     std::uint32_t slot);
};

}  // namespace vkphys
