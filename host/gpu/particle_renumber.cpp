// The particles renumbered on the device (host/gpu/particle_renumber.h).
#include "host/gpu/particle_renumber.h"

#include <algorithm>
#include <bit>
#include <glm/glm.hpp>

#include "kernels/limits.h"
#include "particle_renumber.spv.h"

namespace vkphys {
namespace {

// shaders/particle_renumber.comp's modes.
enum Mode : std::uint32_t { kBodies = 0, kPairs = 1, kContacts = 2, kGather = 3 };

constexpr VkDeviceSize kVec4 = sizeof(glm::vec4), kWord = sizeof(std::uint32_t);
constexpr std::uint32_t kMaxGroups = 65535;  // the shader strides past them

vk::Buffer scratch(const vk::Context& ctx, VkDeviceSize bytes, const char* what) {
  return vk::storage_buffer(ctx, bytes, what, "use fewer particles, or solver.particle_reorder 0");
}

}  // namespace

ParticleRenumber::ParticleRenumber(const vk::Context& ctx, std::uint32_t particles,
                                   std::uint32_t contacts)
    : particles_(particles),
      contacts_(contacts),
      kernel_(
          ctx, "particle_renumber",
          std::span<const std::uint32_t>(particle_renumber_spv, std::size(particle_renumber_spv)),
          sizeof(glm::uvec4)),
      scan_(ctx, particles + 1),
      sort_(ctx, std::max(contacts, 1u)),
      to_(scratch(ctx, particles * kWord, "the particles' new numbers")),
      old_pos_(scratch(ctx, particles * kVec4, "the particles' positions before renumbering")),
      old_vel_(scratch(ctx, particles * kVec4, "the particles' velocities before renumbering")),
      old_info_(scratch(ctx, particles * kVec4, "the particles' shapes before renumbering")),
      old_cg_(scratch(ctx, particles * kVec4, "the last CG solve before renumbering")),
      old_offsets_(scratch(ctx, (particles + 1u) * kWord, "warm-start offsets before renumbering")),
      keys_(scratch(ctx, contacts * kWord, "warm-start entries' new owners")),
      values_(scratch(ctx, contacts * kWord, "warm-start entries' old places")),
      new_other_(scratch(ctx, contacts * kWord, "renumbered warm-start entries")),
      new_lambda_(scratch(ctx, contacts * kVec4, "renumbered warm-start impulses")) {}

void ParticleRenumber::upload(std::span<const std::uint32_t> to) {
  to_.upload(to);
}

void ParticleRenumber::record(VkCommandBuffer cb, WorldBuffers& gpu, std::uint32_t rigid,
                              std::uint32_t pairs, bool with_cg) {
  const VkDeviceSize p = particles_;
  kernel_.reset_sets();
  const VkDescriptorSet set = kernel_.bind(
      {&to_, &gpu.buf[b_body_pos], &gpu.buf[b_body_vel], &gpu.buf[b_body_info], &gpu.buf[b_cg_dv],
       &old_pos_, &old_vel_, &old_info_, &old_cg_, &gpu.buf[b_prev_pair_info], &old_offsets_,
       &gpu.buf[b_prev_pcontact_offsets], &gpu.buf[b_prev_pcontact_other],
       &gpu.buf[b_prev_pcontact_lambda], &keys_, &values_, &new_other_, &new_lambda_});
  auto run = [&](Mode mode, std::uint32_t count, std::uint32_t w) {
    if (count == 0) return;
    const glm::uvec4 push(mode, count, rigid, w);
    kernel_.dispatch(cb, set, std::min(vk::groups_for(count, VKPHYS_GROUP_SIZE), kMaxGroups),
                     &push);
  };
  copy_region(cb, gpu.buf[b_body_pos], old_pos_, rigid * kVec4, 0, p * kVec4);
  copy_region(cb, gpu.buf[b_body_vel], old_vel_, rigid * kVec4, 0, p * kVec4);
  copy_region(cb, gpu.buf[b_body_info], old_info_, rigid * kVec4, 0, p * kVec4);
  if (with_cg) copy_region(cb, gpu.buf[b_cg_dv], old_cg_, 0, 0, p * kVec4);
  copy_region(cb, gpu.buf[b_prev_pcontact_offsets], old_offsets_, 0, 0, (p + 1) * kWord);
  vk::barrier(cb);
  gpu.buf[b_prev_pcontact_offsets].fill(cb, 0u, 0, (p + 1) * kWord);  // the counts, then offsets
  vk::barrier(cb);
  run(kBodies, particles_, with_cg ? 1u : 0u);
  run(kPairs, pairs, particles_);
  if (contacts_ > 0) run(kContacts, particles_, 0u);
  vk::barrier(cb);
  if (contacts_ > 0) {
    // New owners are below the particle count: only their bits are sorted.
    const std::uint32_t key_bits = std::max(1u, std::bit_width(particles_ - 1u));
    sort_.record(cb, keys_, values_, contacts_, key_bits,
                 gpu::LiveCount{&old_offsets_, particles_});
    scan_.record(cb, gpu.buf[b_prev_pcontact_offsets], particles_ + 1u);
    vk::barrier(cb);
    run(kGather, contacts_, particles_);
  }
  vk::barrier(cb);
}

}  // namespace vkphys
