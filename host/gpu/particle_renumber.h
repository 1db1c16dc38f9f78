// The particles renumbered on the device: the GPU backend's Backend::renumber_particles
// (solver.particle_reorder; the order and why: host/sim/particle_order.h).
//
// The wrapper that holds the particles in Morton order (host/sim/particle_order_backend.cpp)
// computes the new numbering on the host from the positions and hands it to the backend. Before
// this, the GPU took it as the CPU does: the whole carried state downloaded (a checkpoint),
// relabelled on the host, and the backend reloaded from it (buffers, lists and recordings made
// again) and the state uploaded. Here only the numbering goes up, and the device moves what it
// holds itself, in one submission (shaders/particle_renumber.comp):
//   1. copies of the particles' positions, velocities, shapes and the implicit method's last
//      solve, and of the warm-start lists' offsets; the offsets zeroed;
//   2. BODIES: each particle's values into its new slot; PAIRS: the rigid pairs' particle
//      numbers; CONTACTS: every warm-start entry renumbered, keyed by its new owner and counted;
//   3. the entries sorted by owner (the stable radix sort: within an owner they keep the old
//      order, which the CPU's counting sort gives) and the counts scanned into offsets;
//   4. GATHER: the entries into their places.
// The backend then rebuilds the rigid pairs' warm-start table from the renumbered pairs. The
// result is the host relabelling's (host/sim/particle_order.cpp, relabel_carried) bit for bit
// (tests/test_particle_order.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "host/gpu/primitives.h"
#include "host/gpu/world_buffers.h"
#include "host/vk/kernel.h"

namespace vkphys {

class ParticleRenumber {
 public:
  // Scratch for `particles` particles and warm-start lists of `contacts` entries.
  ParticleRenumber(const vk::Context& ctx, std::uint32_t particles, std::uint32_t contacts);
  bool fits(std::uint32_t particles, std::uint32_t contacts) const {
    return particles == particles_ && contacts == contacts_;
  }
  // The numbering: to[k] is the new slot of the particle at slot k (a permutation).
  void upload(std::span<const std::uint32_t> to);
  // Records steps 1-4 above into `cb` for the world in `gpu` (`rigid` bodies below the
  // particles, `pairs` pair slots); with_cg: the implicit method's last solve is carried.
  void record(VkCommandBuffer cb, WorldBuffers& gpu, std::uint32_t rigid, std::uint32_t pairs,
              bool with_cg);

 private:
  std::uint32_t particles_, contacts_;
  vk::Kernel kernel_;
  gpu::Scan scan_;
  gpu::RadixSort sort_;
  vk::Buffer to_, old_pos_, old_vel_, old_info_, old_cg_, old_offsets_;
  vk::Buffer keys_, values_, new_other_, new_lambda_;
};

}  // namespace vkphys
