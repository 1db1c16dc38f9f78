// The world step: the interface both backends implement, its stages and statistics. One scene
// holds rigid bodies, planes, joints and particles in any mix (kernels/world_layout.h).
//
//   setup ─► [sort by min x ─► sweep] ─► [particle grid: hash, sort, cell ranges, contacts]
//     ─► narrowphase + warm-start match ─► colour (coloured PGS) | incidence lists (Jacobi)
//     ─► predict (gravity, drag, gyroscopic) ─► [Newton-Coulomb impacts] ─► prepare rows
//     ─► warm start ─► iterate ─► [split impulse: second solve] ─► commit ─► integrate
//
// The stages (kernels/stages.h has the table):
// setup        AABBs, sweep keys, world inverse inertia (kernels/world_bodies.inl)
// broadphase   sweep and prune for pairs with a rigid body (world_broadphase.inl), the particle
//              grid for particle-particle and particle-plane contacts (particle_grid.inl)
// narrowphase  manifolds of up to 4 points (kernels/collide.h), warm-start matching
//              by (pair, feature id) (world_narrowphase.inl)
// coloring     colours for the coloured scheme, per-body unit lists for Jacobi
//              (world_coloring.inl)
// predict      v* = v + h M^-1 f, w* with the gyroscopic term, then impacts (optional)
// prepare      SPOOK rows of every unit kind (contact_manifold.inl, contact_particle.inl,
//              joints.inl)
// solve        warm start + iterations (+ the split impulse's second solve)
// integrate    contacts committed as the next step's warm-start source; x += h v,
//              q += h/2 [w, 0] q, normalised
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <glm/glm.hpp>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/stages.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace vk {
class Context;
}

enum class Stage : std::uint32_t {
#define VKPHYS_STAGE_ENUM(name) name,
  VKPHYS_STAGE_TABLE(VKPHYS_STAGE_ENUM)
#undef VKPHYS_STAGE_ENUM
};
#define VKPHYS_STAGE_COUNT(name) +1
inline constexpr std::size_t kStageCount = 0 VKPHYS_STAGE_TABLE(VKPHYS_STAGE_COUNT);
#undef VKPHYS_STAGE_COUNT
// The stage's name, which is also its timestamp label in `vkphys bench`.
const char* stage_name(Stage s);

// One steps() call's stage times, averaged into StepStats::stage_ms as each step ends (a call
// that throws leaves the mean of the steps it took).
struct StageTimeMean {
  std::array<double, kStageCount> sum{};
  std::uint32_t steps = 0;
  void add(const std::array<double, kStageCount>& step_ms, std::array<double, kStageCount>& mean) {
    ++steps;
    for (std::size_t s = 0; s < kStageCount; ++s) {
      sum[s] += step_ms[s];
      mean[s] = sum[s] / steps;
    }
  }
};

struct StepStats {
  std::uint32_t bodies = 0;
  std::uint32_t pairs = 0;              // broadphase pairs (AABBs overlap)
  std::uint32_t manifolds = 0;          // pairs with contact points
  std::uint32_t reused_manifolds = 0;   // of them, kept from last step (solver.contact_cache)
  std::uint32_t points = 0;             // contact points of the manifolds
  std::uint32_t particle_contacts = 0;  // particle-particle and particle-plane contacts
  std::uint32_t rows = 0;    // constraint rows: 3 per contact point (1 without friction) + joints'
  std::uint32_t colors = 0;  // the highest colour in use + 1, before the overflow colour (coloured)
  std::uint32_t overflow_units = 0;  // units in the overflow colour
  // Units the step's colouring passes took (the contacts new this step, and joints left to the
  // step's colouring): a contact that persists keeps its colour (kernels/world_coloring.inl).
  std::uint32_t colored_afresh = 0;
  std::uint32_t pair_capacity = 0;
  std::uint32_t contact_capacity = 0;  // particle contacts
  std::uint32_t regrows = 0;     // times this step was redone after a pair or contact overflow
  std::uint32_t dispatches = 0;  // compute dispatches per step (GPU)
  std::uint32_t barriers = 0;    // pipeline barriers per step (GPU)
  // Explicit integrators: ODE steps per step or substep (n, host/sim/ode_control.h), steps
  // redone because their error passed the tolerance, and the accepted step's error (adaptive;
  // 0 otherwise).
  std::uint32_t ode_steps = 0;
  std::uint32_t ode_redos = 0;
  float ode_error = 0.0f;
  // Implicit integrator: conjugate-gradient iterations of the step (summed over its substeps)
  // and the largest final relative residual |r| / |b| of its solves (solver.cg_tolerance).
  std::uint32_t cg_iterations = 0;
  float cg_residual = 0.0f;
  // Implicit: the step's solves that ended above solver.cg_tolerance (at solver.cg_max_iterations,
  // or broken down by rounding); their result is used as it is.
  std::uint32_t cg_unmet = 0;
  // GPU: times the step was redone because a solve needed more CG iterations than were recorded
  // (host/sim/ode_control.h, R); 0 on the CPU backend, which runs the cap.
  std::uint32_t cg_redos = 0;
  // GPU: times the step was redone because it needed more colours than were recorded
  // (choose_colors, host/gpu/step_recording.h); 0 on the CPU backend.
  std::uint32_t color_redos = 0;
  // The solver residual: the largest change of a body's velocity [m/s] and of a rigid body's
  // angular velocity [rad/s] in the step's last sweep; 0 at the fixed point (kernels/
  // world_units.inl).
  float solver_residual = 0.0f;
  float solver_residual_angular = 0.0f;
  std::uint64_t device_bytes = 0;  // device memory the GPU backend holds (0 on the CPU)
  // [ms] per stage: the mean over the steps of the last step() or steps() call (StageTimeMean).
  std::array<double, kStageCount> stage_ms{};
  // The bytes each stage's kernels read and write, modelled from the layouts and the counts above
  // (host/sim/traffic_model.h).
  std::array<std::uint64_t, kStageCount> stage_bytes{};
};

// The world's state. Rigid bodies in index order: the scene's bodies, then one static plane
// body per scene plane; particles in the scene's order.
struct WorldState {
  std::vector<glm::vec4> pos;    // (x, 1/m)
  std::vector<glm::vec4> rot;    // quaternion (x, y, z, w)
  std::vector<glm::vec4> vel;    // (v, 0)
  std::vector<glm::vec4> omega;  // (w, 0)
  Particles particles;           // (x, radius), (v, 1/m), material
};

// Intermediate buffers of one step, for stage-by-stage backend comparison.
struct StepTrace {
  std::vector<glm::uvec4> pairs;            // (a, b, points, 0), stored order
  std::vector<glm::vec4> normals;           // per pair
  std::vector<glm::vec4> points;            // 4 per pair (point, gap)
  std::vector<glm::vec4> lambdas;           // 4 per pair, after the solve
  std::vector<std::uint32_t> colors;        // per unit (joints, pairs, particle contacts)
  std::vector<glm::vec4> predicted_vel;     // (v*, 1/m) per body (after the forces)
  std::vector<glm::vec4> predicted_omega;   // w* per rigid body (after the gyroscopic term)
  std::vector<glm::vec4> joint_lambda;      // 2 per joint
  std::vector<glm::uvec2> pcontact_bodies;  // particle contacts, stored order
  std::vector<glm::vec4> pcontact_geom;     // (n, gap)
  std::vector<glm::vec4> pcontact_lambda;   // after the solve
  // Per body: (begin, end) of its entries among the units solved on mass-split copies, end -
  // begin its share (Jacobi: every unit; coloured: the overflow colour's, valid in a step that
  // has some; kernels/world_coloring.inl).
  std::vector<glm::uvec2> split_range;
};

// The buffers a step carries into the next, beyond the scene itself: the state, the joints'
// warm-start impulses and last step's contact lists (the warm-start source). With the step count
// and the list capacities they are everything the next step reads that it did not write itself,
// so a backend restored from them continues bit-identically (kernels/world_layout.h describes each
// buffer). F(element type, buffer name, element count from a CarriedSizes `z`).
#define VKPHYS_CARRIED_BUFFERS(F)                          \
  F(glm::vec4, body_pos, z.bodies)                         \
  F(glm::vec4, body_vel, z.bodies)                         \
  F(glm::vec4, rigid_rot, z.rigid)                         \
  F(glm::vec4, rigid_omega, z.rigid)                       \
  F(glm::vec4, joint_lambda, 2 * z.joints)                 \
  F(glm::uvec4, prev_pair_info, z.pairs)                   \
  F(glm::vec4, prev_point_lambda, 12 * z.pairs)            \
  F(glm::vec4, prev_pair_frame, 2 * z.pairs)               \
  F(std::uint32_t, prev_pcontact_offsets, z.particles + 1) \
  F(std::uint32_t, prev_pcontact_other, z.contacts)        \
  F(glm::vec4, prev_pcontact_lambda, z.contacts)           \
  F(glm::vec4, cg_dv, z.cg)

// The counts the carried buffers' sizes follow from.
struct CarriedSizes {
  std::size_t bodies = 0, rigid = 0, particles = 0, joints = 0, pairs = 0, contacts = 0;
  std::size_t cg = 0;  // the implicit method's last solve (kernels/world_implicit.inl), else 0
};

struct CarriedState {
  std::uint64_t step = 0;  // steps taken since the scene was loaded (the drive schedule's clock)
  std::uint32_t pair_capacity = 0, contact_capacity = 0;
#define VKPHYS_CARRIED_MEMBER(T, name, count) std::vector<T> name;
  VKPHYS_CARRIED_BUFFERS(VKPHYS_CARRIED_MEMBER)
#undef VKPHYS_CARRIED_MEMBER
  // With solver.particle_reorder, the buffers above hold the particles in the backend's slot
  // order, and this is that order: per slot, the scene index of the particle there
  // (host/sim/particle_order.h). Empty: the scene's order.
  std::vector<std::uint32_t> particle_order;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Uploads the scene (bodies, joints, planes, particles). A zero capacity picks a default.
  virtual void load(const Scene& scene, std::uint32_t pair_capacity = 0,
                    std::uint32_t contact_capacity = 0) = 0;
  virtual void step(StepTrace* trace = nullptr) = 0;
  // n steps, the last one filling `trace`: what n calls of step() give, bit for bit. The GPU
  // backend pipelines them: each step is submitted before the host reads the counters of the
  // one before it, so the host's reading and deciding overlap the device's work
  // (host/gpu/gpu_backend.cpp). stats() is then the last step's, its stage times the n steps'
  // mean (StageTimeMean); step() is steps(1) on both backends.
  // With `after_each`, every step fills `trace` and `after_each` runs after it, when read() and
  // stats() give that step's state and statistics (the GPU backend reads them from the step's
  // slot of a ring while the step after it runs); only read() and stats() may be called from
  // it. A throw from it leaves the steps taken up to it, none after.
  virtual void steps(std::uint32_t n, StepTrace* trace = nullptr,
                     const std::function<void()>* after_each = nullptr) = 0;
  // Steps taken since the load (from the restored count after a restore): after a step or
  // steps call that threw, the steps that stand.
  virtual std::uint64_t steps_taken() const = 0;
  virtual void read(WorldState& out) const = 0;
  // A hint that read() follows the next step (a World that reads after every step): the GPU
  // backend then copies the state out within that step's own submission, so the read neither
  // submits nor waits. read() is right with or without it.
  virtual void read_after_next_step() {}
  virtual const StepStats& stats() const = 0;
  // Replaces the positions, orientations and velocities with `state`'s (same sizes as read()
  // gives); the w components that hold 1/m and radii are kept, warm-start data too.
  virtual void write(const WorldState& state) = 0;
  // Everything the next step carries over (a checkpoint), and a load of `scene` continued from
  // it: the next step is bit-identical to the one the saving backend would have taken. Throws
  // std::invalid_argument when the buffers do not fit the scene.
  virtual CarriedState save() const = 0;
  virtual void restore(const Scene& scene, const CarriedState& state) = 0;
  // Renumbers the particles between steps (solver.particle_reorder, host/sim/particle_order.h):
  // the particle at slot k goes to slot to[k], with everything the next step carries about it
  // relabelled as relabel_carried does; `scene` is the loaded scene with its particles in the new
  // order. to moves only particles that nothing names by index. By default a checkpoint taken,
  // relabelled on the host and restored (a reload); the GPU backend does it on the device
  // (host/gpu/particle_renumber.h), to the same bits.
  virtual void renumber_particles(const Scene& scene, const std::vector<std::uint32_t>& to);
  // With `on`, the step checks every body's state for NaN and infinity after each stage and
  // throws NonFiniteState at the first stage that made one (the state as that stage left it).
  // Returns whether the backend can: the GPU backend cannot (one submission runs every stage).
  virtual bool check_stages(bool on) {
    (void)on;
    return false;
  }
};

// Thrown by a step that left a body NaN or infinite: by a step that checks its stages
// (Backend::check_stages) at the first stage that made one, with the state as that stage left
// it; otherwise by the step's own check, from WorldCounters::nonfinite (kernels/
// world_bodies.inl, flag_nonfinite: the predict stage's velocities, then each integration and
// the last sweep's). `start_kept`: the backend holds the state the step started from, the last
// finite one (the GPU backend restores it), and has not counted the step.
struct NonFiniteState : std::runtime_error {
  NonFiniteState(Stage s, std::uint32_t b, bool kept)
      : std::runtime_error(std::string("the ") + stage_name(s) + " stage made body " +
                           std::to_string(b) + " NaN or infinite"),
        stage(s),
        body(b),
        start_kept(kept) {}
  // From a step's own check: its nonzero WorldCounters::nonfinite (kern::nonfinite_code).
  static NonFiniteState found_by_step(std::uint32_t code, bool kept) {
    return NonFiniteState(static_cast<Stage>(kern::nonfinite_stage(code)),
                          kern::nonfinite_body(code), kept);
  }
  Stage stage;
  std::uint32_t body;  // world index: the scene's bodies, the plane bodies, then the particles
  bool start_kept;
};

// How a substep after the first begins its solve (carries_warm_start, host/sim/world_setup.h):
// carried, each body's velocity change over the last substep's solve added back (it is every
// unit's impulse applied again: kernels/world_units.inl), or swept, a sweep over every unit's
// rows as the first substep's. The results agree to rounding; swept is for the tests.
enum class WarmStart : std::uint32_t { carried = 0, swept = 1 };
// `inner` holding its particles in Morton order when a scene asks for it (solver.particle_reorder,
// host/sim/particle_order_backend.cpp), and passing every call through otherwise; both factories
// below return their backend wrapped so.
std::unique_ptr<Backend> with_particle_order(std::unique_ptr<Backend> inner);
std::unique_ptr<Backend> make_cpu_backend(WarmStart warm = WarmStart::carried);
// The context must outlive the backend. The sequential scheme is CPU-only: load throws.
//   `fault` is for tests only: that stage's GPU kernel computes something deliberately wrong
// (VKPHYS_FAULTS in kernels/stages.h: broadphase, narrowphase, predict or solve; another stage
// throws std::invalid_argument), to show that a comparison with the CPU catches it.
//   `fused`: whether the colouring passes and the solver sweeps may run in one workgroup, one
// dispatch per solve instead of one per colour list (shaders/world_fused.comp); the results are
// the same bit for bit either way. automatic fuses what one workgroup covers in about one round
// on a GPU (measured on an H100, docs/benchmarks.md) and nothing on a CPU Vulkan driver, which
// runs a workgroup on one core; never and always are for the tests and for measuring.
enum class FusedPolicy : std::uint32_t { automatic = 0, never = 1, always = 2 };
//   `cg`: how many CG iterations a solve's recording holds under the implicit method: to_need
// (about what the last steps needed, the step redone with the cap when a solve runs out;
// host/sim/ode_control.h) or full (solver.cg_max_iterations). The results are the same bit for
// bit either way; full is for the tests and for measuring.
enum class CgRecording : std::uint32_t { to_need = 0, full = 1 };
//   `warm`: as make_cpu_backend's.
std::unique_ptr<Backend> make_gpu_backend(vk::Context& ctx,
                                          std::optional<Stage> fault = std::nullopt,
                                          FusedPolicy fused = FusedPolicy::automatic,
                                          CgRecording cg = CgRecording::to_need,
                                          WarmStart warm = WarmStart::carried);

}  // namespace vkphys
