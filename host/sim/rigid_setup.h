// Turning a Scene into the rigid-body step's arrays and constants (kernels/rigid_layout.h),
// shared by both backends so they start from identical data.
//
// Scene planes become static plane bodies appended after the scene's bodies. Bodies joined
// by a joint (directly or through a chain of joints) form a collision group: jointed parts
// overlap at their joints by design, so they never collide with each other.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "host/sim/rigid_backend.h"
#include "host/sim/scene.h"
#include "kernels/rigid_layout.h"

namespace vkphys {

struct RigidWorld {
  std::vector<glm::vec4> pos, rot, vel, omega, inertia, dims;
  std::vector<glm::uvec4> shape;
  std::vector<glm::uvec4> joint_info;
  std::vector<glm::vec4> joint_frames;  // VKPHYS_JOINT_STRIDE per joint
  std::vector<std::uint32_t> plane_bodies;
  std::uint32_t joint_rows = 0;  // rows the joints use (for statistics)
  std::uint32_t bodies() const { return static_cast<std::uint32_t>(pos.size()); }
  std::uint32_t joints() const { return static_cast<std::uint32_t>(joint_info.size()); }
};

// Validates what the step relies on (throws std::invalid_argument naming the body or joint).
RigidWorld build_rigid_world(const Scene& scene);

std::uint32_t default_pair_capacity(std::uint32_t bodies);
std::uint32_t grown_pair_capacity(std::uint32_t needed);
// Smallest power of two >= 2 * capacity (the warm-start hash table).
std::uint32_t pair_hash_size(std::uint32_t pair_capacity);

kern::RigidParams make_rigid_params(const Scene& scene, const RigidWorld& world,
                                    std::uint32_t pair_capacity);

// Statistics from the counters and colour ranges (the same on both backends).
void fill_rigid_stats(const kern::RigidCounters& counters, const Scene& scene,
                      const RigidWorld& world, std::uint32_t pair_capacity, RigidStats& stats);

}  // namespace vkphys
