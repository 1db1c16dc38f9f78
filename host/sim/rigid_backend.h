// The rigid-body step: the interface both backends implement, its stages and statistics.
//
//   setup ─► sort ─► sweep (count, scan, write) ─► narrowphase + warm-start match
//     ─► colour (coloured PGS) | incidence lists (Jacobi) ─► [Newton-Coulomb impacts]
//     ─► predict (gravity, gyroscopic) ─► prepare rows ─► warm start ─► iterate
//     ─► [split impulse: second solve without position correction] ─► integrate ─► commit
//
// setup        AABBs, sweep keys, world inverse inertia (kernels/rigid_bodies.inl)
// broadphase   radix sort by AABB min x, sweep and prune + plane pairs (rigid_broadphase.inl)
// narrowphase  manifolds of up to 4 points (kernels/collide.h), warm-start matching
//              by (pair, feature id) (rigid_narrowphase.inl)
// coloring     colours for the coloured scheme, per-body unit lists for Jacobi
//              (rigid_coloring.inl)
// predict      impacts (optional), v* = v + h g, w* with the gyroscopic term
// prepare      SPOOK rows for contacts (rigid_solver.inl) and joints (rigid_joints.inl)
// solve        warm start + iterations (+ the split impulse's second solve)
// integrate    x += h v, q += h/2 [w, 0] q, normalised
// commit       this step's manifolds become the next step's warm-start source
#pragma once

#include <array>
#include <cstdint>
#include <glm/glm.hpp>
#include <memory>
#include <string>
#include <vector>

#include "host/sim/scene.h"

namespace vkphys {
namespace vk {
class Context;
}

enum class RigidStage : std::uint32_t {
  setup,
  broadphase,
  narrowphase,
  coloring,
  predict,
  prepare,
  solve,
  integrate,
};
inline constexpr std::size_t kRigidStageCount = 8;
const char* rigid_stage_name(RigidStage s);

struct RigidStats {
  std::uint32_t bodies = 0;
  std::uint32_t pairs = 0;           // broadphase pairs (AABBs overlap)
  std::uint32_t manifolds = 0;       // pairs with contact points
  std::uint32_t points = 0;          // contact points
  std::uint32_t rows = 0;            // constraint rows: 3 per point (1 without friction) + joints'
  std::uint32_t colors = 0;          // colours used before the overflow colour (coloured scheme)
  std::uint32_t overflow_units = 0;  // units in the overflow colour
  std::uint32_t pair_capacity = 0;
  std::uint32_t regrows = 0;     // times this step was redone after a pair overflow
  std::uint32_t dispatches = 0;  // compute dispatches per step (GPU)
  std::array<double, kRigidStageCount> stage_ms{};
};

// Body state; index order: the scene's bodies, then one static plane body per scene plane.
struct RigidState {
  std::vector<glm::vec4> pos;    // (x, 1/m)
  std::vector<glm::vec4> rot;    // quaternion (x, y, z, w)
  std::vector<glm::vec4> vel;    // (v, 0)
  std::vector<glm::vec4> omega;  // (w, 0)
};

// Intermediate buffers of one step, for stage-by-stage backend comparison.
struct RigidTrace {
  std::vector<glm::uvec4> pairs;           // (a, b, points, 0), stored order
  std::vector<glm::vec4> normals;          // per pair
  std::vector<glm::vec4> points;           // 4 per pair (point, gap)
  std::vector<glm::vec4> lambdas;          // 4 per pair, after the solve
  std::vector<std::uint32_t> colors;       // per unit (joints, then pairs)
  std::vector<glm::vec4> predicted_vel;    // v* per body (after gravity)
  std::vector<glm::vec4> predicted_omega;  // w* per body (after the gyroscopic term)
  std::vector<glm::vec4> joint_lambda;     // 2 per joint
};

class RigidBackend {
 public:
  virtual ~RigidBackend() = default;
  virtual std::string name() const = 0;
  // Uploads the scene (bodies, joints, planes). pair_capacity = 0 picks a default.
  virtual void load(const Scene& scene, std::uint32_t pair_capacity = 0) = 0;
  virtual void step(RigidTrace* trace = nullptr) = 0;
  virtual void read(RigidState& out) const = 0;
  virtual const RigidStats& stats() const = 0;
};

std::unique_ptr<RigidBackend> make_cpu_rigid_backend();
// The context must outlive the backend. The sequential scheme is CPU-only: load throws.
std::unique_ptr<RigidBackend> make_gpu_rigid_backend(vk::Context& ctx);

}  // namespace vkphys
