// The Vulkan backend of the world step: the stages of host/sim/backend.h as compute
// dispatches, recorded once into a command buffer and replayed every step. Every world shader
// declares the same buffer table (kernels/world_layout.h, VKPHYS_WORLD_BUFFERS); each kernel's
// pipeline binds the part of it its main() uses (host/vk/spirv_reflect.h), and a push constant
// picks the stage function (kernels/stages.h).
//
// Per step: one submit, one fence wait, and a read of the counter block: pair and contact
// counts, overflow flag, points, colour ranges. The counters and the step constants live in
// device-local memory (every narrowphase pair counts atomically and every invocation reads the
// constants: in host-visible memory, which on a discrete GPU is system memory, each of those is
// a trip over PCIe). The host writes the constants into a host-visible copy that the step's
// first command copies in, and the step's last command copies the counters out to a
// host-visible readback block. Stages over GPU-counted work
// (narrowphase, row preparation, each colour, Jacobi units) are indirect dispatches whose sizes
// the GPU writes, so nothing is read back mid-step. When a list did not fit, the host restores
// the step-start state (copied aside at the start of every step), grows the list to 1.5x what
// was needed, rebuilds the warm-start table, re-records and redoes the step.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/gpu/primitives.h"
#include "host/gpu/world_kernels.h"
#include "host/sim/ode_control.h"
#include "host/sim/world_setup.h"
#include "host/vk/kernel.h"
#include "host/vk/record_counts.h"
#include "kernels/stages.h"

namespace vkphys {
namespace {

constexpr std::uint32_t kGroup = VKPHYS_GROUP_SIZE;

// Binding numbers by buffer name: b_body_pos, b_rigid_rot, ...
enum Binding : std::uint32_t {
  b_params = 0,
  b_counters = 1,
#define VKPHYS_BINDING_NAME(b, T, name) b_##name = b,
  VKPHYS_WORLD_BUFFERS(VKPHYS_BINDING_NAME)
#undef VKPHYS_BINDING_NAME
};

class GpuBackend final : public Backend {
 public:
  GpuBackend(vk::Context& ctx, std::optional<Stage> fault, FusedPolicy fused)
      : ctx_(ctx),
        fused_(fused == FusedPolicy::automatic && ctx.info().type == "cpu" ? FusedPolicy::never
                                                                           : fused),
        constants_(fault),
        kernels_(ctx, constants_.values),
        timestamps_(ctx, kStageCount + 1) {}

  ~GpuBackend() override { free_command_buffer(); }

  std::string name() const override { return "gpu (" + ctx_.info().name + ")"; }

  void load(const Scene& scene, std::uint32_t pair_capacity,
            std::uint32_t contact_capacity) override {
    if (scene.settings.solver.scheme == SolverScheme::sequential) {
      throw std::invalid_argument(
          "solver.scheme = \"sequential\" runs on the CPU backend only (use colored or jacobi "
          "on the GPU)");
    }
    scene_ = scene;
    world_ = build_world(scene);
    n_ = world_.bodies();
    r_ = world_.rigid;
    p_ = world_.particles();
    j_ = world_.joints();
    cap_ = default_capacities(world_);
    if (pair_capacity) cap_.pairs = pair_capacity;
    if (contact_capacity) cap_.contacts = contact_capacity;
    const kern::WorldParams params = make_world_params(scene_, world_, cap_);  // validates first
    const VkDeviceSize v4 = sizeof(glm::vec4), u4 = sizeof(glm::uvec4), u1 = sizeof(std::uint32_t);
    const VkDeviceSize n = n_, r = r_, p = p_, j = j_;
    buf_[b_params] =
        vk::Buffer(ctx_, sizeof(kern::WorldParams), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, false);
    params_host_ = vk::Buffer(ctx_, sizeof(kern::WorldParams), 0, true);
    buf_[b_counters] =
        vk::Buffer(ctx_, sizeof(kern::WorldCounters), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
    counters_host_ = vk::Buffer(ctx_, sizeof(kern::WorldCounters), 0, true);
    buf_[b_body_pos] = storage(n * v4, "body positions");
    buf_[b_body_vel] = storage(n * v4, "body velocities");
    buf_[b_body_start] = storage(n * v4, "step-start velocities");
    buf_[b_body_info] = storage(n * u4, "body shapes and materials");
    buf_[b_body_color] = storage(2 * n * u1, "colouring claims");
    buf_[b_body_range] = storage(n * sizeof(glm::uvec2), "body unit ranges");
    buf_[b_rigid_rot] = storage(r * v4, "rigid-body orientations");
    buf_[b_rigid_omega] = storage(r * v4, "rigid-body angular velocities");
    buf_[b_rigid_omega_start] = storage(r * v4, "step-start angular velocities");
    buf_[b_rigid_iinv] = storage(3 * r * v4, "world inverse inertia");
    buf_[b_rigid_inertia] = storage(r * v4, "rigid-body inertia");
    buf_[b_rigid_dims] = storage(r * v4, "rigid-body sizes");
    buf_[b_rigid_aabb] = storage(2 * r * v4, "bounding boxes");
    buf_[b_rigid_vel_pos] = storage(2 * r * v4, "split-impulse velocities");
    buf_[b_sweep_ref] = storage((n + r) * v4, "solver residual velocities");
    const VkDeviceSize nt = world_.tree_nodes.size();
    buf_[b_tree_ranges] = storage(world_.trees() * sizeof(glm::uvec2), "joint trees");
    buf_[b_tree_nodes] = storage(nt * u4, "joint tree nodes");
    buf_[b_tree_blocks] = storage(VKPHYS_TREE_NODE_STRIDE * nt * v4, "joint tree factors");
    buf_[b_pair_offsets] = storage((n + 1) * u1, "pair offsets");
    buf_[b_sweep_walk] = storage((n + 1) * u1, "sweep walk offsets");
    buf_[b_sweep_forward] = storage(n * u1, "sweep forward walks");
    buf_[b_joint_info] = storage(j * u4, "joint bodies");
    buf_[b_joint_frames] = storage(j * VKPHYS_JOINT_STRIDE * v4, "joint frames");
    buf_[b_joint_rows] = storage(j * 4 * VKPHYS_JOINT_ROWS * v4, "joint rows");
    buf_[b_joint_lambda] = storage(j * 2 * v4, "joint impulses");
    buf_[b_grid_keys] = storage(p * u1, "particle cell keys");
    buf_[b_grid_values] = storage(p * u1, "particle cell values");
    buf_[b_cell_start] = storage(VkDeviceSize{params.kinds.w} * u1, "grid cell starts");
    buf_[b_cell_end] = storage(VkDeviceSize{params.kinds.w} * u1, "grid cell ends");
    buf_[b_pcontact_offsets] = storage((p + 1) * u1, "particle contact offsets");
    buf_[b_prev_pcontact_offsets] = storage((p + 1) * u1, "previous particle contact offsets");
    buf_[b_rigid_force] = storage(r * v4, "applied forces");
    buf_[b_rigid_torque] = storage(r * v4, "applied torques");
    const VkDeviceSize f = world_.force_springs();
    buf_[b_fspring_ends] = storage(f * sizeof(glm::uvec2), "force springs");
    buf_[b_fspring_params] = storage(f * v4, "force spring constants");
    buf_[b_fspring_offsets] = storage((p + 1) * u1, "force spring offsets");
    buf_[b_fspring_incident] = storage(2 * f * u1, "force spring lists");
    const VkDeviceSize t = world_.wind_triangles();
    buf_[b_wind_tris] = storage(t * sizeof(glm::uvec4), "wind triangles");
    buf_[b_wind_offsets] = storage((p + 1) * u1, "wind triangle offsets");
    buf_[b_wind_incident] = storage(3 * t * u1, "wind triangle lists");
    buf_[b_partner_offsets] = storage(world_.partner_offsets.size() * u1, "spring partner offsets");
    buf_[b_partner_list] = storage(world_.partner_list.size() * u1, "spring partner lists");
    buf_[b_ode_state] = storage(VKPHYS_ODE_STRIDE * p * v4, "integrator states");
    buf_[b_ode_deriv] = storage(p * v4, "integrator accelerations");
    buf_[b_ode_touched] = storage(p * u1, "integrator marks");
    const VkDeviceSize cg = scene_.settings.solver.integrator == Integrator::implicit ? p : 0u;
    buf_[b_cg_vec] = storage(VKPHYS_CG_STRIDE * cg * v4, "conjugate-gradient vectors");
    buf_[b_cg_partial] =
        storage(kern::ode_pass_invocations(kern::CG_PARTIAL, static_cast<std::uint32_t>(cg)) * v4,
                "conjugate-gradient partial sums");
    buf_[b_cg_scalar] = storage(cg > 0 ? 2 * v4 : 0u, "conjugate-gradient scalars");
    // Written by the host before each step (host/sim/drive.h).
    buf_[b_drive_paths] = vk::Buffer(ctx_, VkDeviceSize{world_.drive.paths()} * 4 * v4, 0, true);
    buf_[b_drive_impulses] =
        vk::Buffer(ctx_, VkDeviceSize{world_.drive.max_impulses_per_step()} * 2 * v4, 0, true);
    backup_ = storage((2 * n + 2 * r) * v4 + j * 2 * v4, "step-start backup");
    predicted_ = storage((n + r) * v4, "predicted-velocity trace");
    buf_[b_body_pos].upload(std::span<const glm::vec4>(world_.pos));
    buf_[b_body_vel].upload(std::span<const glm::vec4>(world_.vel));
    buf_[b_body_info].upload(std::span<const glm::uvec4>(world_.info));
    buf_[b_rigid_rot].upload(std::span<const glm::vec4>(world_.rot));
    buf_[b_rigid_omega].upload(std::span<const glm::vec4>(world_.omega));
    buf_[b_rigid_inertia].upload(std::span<const glm::vec4>(world_.inertia));
    buf_[b_rigid_dims].upload(std::span<const glm::vec4>(world_.dims));
    buf_[b_joint_info].upload(std::span<const glm::uvec4>(world_.joint_info));
    buf_[b_joint_frames].upload(std::span<const glm::vec4>(world_.joint_frames));
    buf_[b_tree_ranges].upload(std::span<const glm::uvec2>(world_.tree_ranges));
    buf_[b_tree_nodes].upload(std::span<const glm::uvec4>(world_.tree_nodes));
    buf_[b_rigid_force].upload(std::span<const glm::vec4>(world_.force));
    buf_[b_rigid_torque].upload(std::span<const glm::vec4>(world_.torque));
    buf_[b_fspring_ends].upload(std::span<const glm::uvec2>(world_.fspring_ends));
    buf_[b_fspring_params].upload(std::span<const glm::vec4>(world_.fspring_params));
    buf_[b_fspring_offsets].upload(std::span<const std::uint32_t>(world_.fspring_offsets));
    buf_[b_fspring_incident].upload(std::span<const std::uint32_t>(world_.fspring_incident));
    buf_[b_wind_tris].upload(std::span<const glm::uvec4>(world_.wind_tris));
    buf_[b_wind_offsets].upload(std::span<const std::uint32_t>(world_.wind_offsets));
    buf_[b_wind_incident].upload(std::span<const std::uint32_t>(world_.wind_incident));
    buf_[b_partner_offsets].upload(std::span<const std::uint32_t>(world_.partner_offsets));
    buf_[b_partner_list].upload(std::span<const std::uint32_t>(world_.partner_list));
    ode_ = {};
    ctx_.run_once([&](VkCommandBuffer cb) {
      buf_[b_joint_lambda].fill(cb, 0u);
      buf_[b_body_start].fill(cb, 0u);
      buf_[b_rigid_omega_start].fill(cb, 0u);
      buf_[b_rigid_vel_pos].fill(cb, 0u);
      buf_[b_prev_pcontact_offsets].fill(cb, 0u);
      buf_[b_ode_deriv].fill(cb, 0u);
      buf_[b_ode_touched].fill(cb, 0u);
      if (scene_.settings.solver.integrator == Integrator::implicit) buf_[b_cg_scalar].fill(cb, 0u);
    });
    scan_ = std::make_unique<gpu::Scan>(ctx_, std::max(n_, p_) + 1);
    colors_recorded_ = scene_.settings.solver.max_colors;
    fuse_coloring_ = fuse_sweeps_ = fused_ == FusedPolicy::always;
    buf_[b_prev_pair_info] = vk::Buffer();
    buf_[b_prev_point_lambda] = vk::Buffer();
    buf_[b_prev_pair_frame] = vk::Buffer();
    buf_[b_prev_pcontact_other] = vk::Buffer();
    buf_[b_prev_pcontact_lambda] = vk::Buffer();
    stats_ = {};
    step_index_ = 0;
    allocate_lists();
  }

  void step(StepTrace* trace) override {
    stats_.regrows = 0;
    stats_.ode_redos = 0;
    world_.drive.step(step_index_, drive_paths_, drive_impulses_);
    kern::WorldCounters counters;
    const SolverSettings& sv = scene_.settings.solver;
    for (;;) {
      upload_drive();  // again after a regrow, which rewrites the step constants
      ctx_.submit_and_wait(cb_);
      std::memcpy(&counters, counters_host_.mapped(), sizeof counters);
      if (counters.overflow) {
        restore_step_start();
        cap_ = grown_capacities(cap_, counters.pairs, counters.pcontacts, world_.joints());
        ++stats_.regrows;
        allocate_lists();
        continue;
      }
      fill_world_stats(counters, scene_, world_, cap_, stats_);
      if (counters.redo) {
        // Fewer colours were recorded than the colouring needed: redo with all of them.
        restore_step_start();
        colors_recorded_ = scene_.settings.solver.max_colors;
        rerecord();
        continue;
      }
      if (ode_.redo(sv, std::bit_cast<float>(counters.ode_error))) {
        // The adaptive step's error passed its tolerance: redo it with twice the ODE steps.
        restore_step_start();
        ++stats_.ode_redos;
        rerecord();
        continue;
      }
      break;
    }
    const float error = std::bit_cast<float>(counters.ode_error);
    stats_.ode_steps = sv.integrator == Integrator::symplectic ? 0u : ode_.steps;
    stats_.ode_error = error;
    // Record only the colours in use, plus headroom: a colour with no units still costs a
    // dispatch and a barrier per sweep. The colouring passes stop there too; if units are left
    // over, the step above is redone with every colour, so the result never depends on this.
    bool changed = choose_fusion(counters);
    changed = ode_.relax(sv, error) || changed;
    if (scene_.settings.solver.scheme == SolverScheme::colored &&
        stats_.colors + 2 < colors_recorded_) {
      colors_recorded_ = stats_.colors + 2;
      changed = true;
    }
    if (changed) rerecord();
    stats_.device_bytes = ctx_.allocated_bytes();
    std::vector<double> ms = timestamps_.read_intervals_ms();
    for (std::size_t s = 0; s < ms.size() && s < kStageCount; ++s) stats_.stage_ms[s] = ms[s];
    if (trace) {
      fill_trace(*trace, std::min(counters.pairs, cap_.pairs),
                 std::min(counters.pcontacts, cap_.contacts));
    }
    ++step_index_;
  }

  void read(WorldState& out) const override {
    world_state(scene_, r_, buf_[b_body_pos].download<glm::vec4>(n_),
                buf_[b_body_vel].download<glm::vec4>(n_), buf_[b_rigid_rot].download<glm::vec4>(r_),
                buf_[b_rigid_omega].download<glm::vec4>(r_), out);
  }

  const StepStats& stats() const override { return stats_; }

  void write(const WorldState& state) override {
    std::vector<glm::vec4> pos = buf_[b_body_pos].download<glm::vec4>(n_);
    std::vector<glm::vec4> vel = buf_[b_body_vel].download<glm::vec4>(n_);
    std::vector<glm::vec4> rot(r_), omega(r_);
    write_world_state(state, r_, pos, vel, rot, omega);
    buf_[b_body_pos].upload(std::span<const glm::vec4>(pos));
    buf_[b_body_vel].upload(std::span<const glm::vec4>(vel));
    buf_[b_rigid_rot].upload(std::span<const glm::vec4>(rot));
    buf_[b_rigid_omega].upload(std::span<const glm::vec4>(omega));
  }

  CarriedState save() const override {
    const CarriedSizes z = carried_sizes(world_, cap_);
    CarriedState s;
    s.step = step_index_;
    s.pair_capacity = cap_.pairs;
    s.contact_capacity = cap_.contacts;
#define VKPHYS_DOWNLOAD_CARRIED(T, name, count) s.name = buf_[b_##name].download<T>(count);
    VKPHYS_CARRIED_BUFFERS(VKPHYS_DOWNLOAD_CARRIED)
#undef VKPHYS_DOWNLOAD_CARRIED
    return s;
  }

  void restore(const Scene& scene, const CarriedState& s) override {
    load(scene, s.pair_capacity, s.contact_capacity);
    check_carried(s, carried_sizes(world_, cap_));
#define VKPHYS_UPLOAD_CARRIED(T, name, count) buf_[b_##name].upload(std::span<const T>(s.name));
    VKPHYS_CARRIED_BUFFERS(VKPHYS_UPLOAD_CARRIED)
#undef VKPHYS_UPLOAD_CARRIED
    allocate_lists();  // rebuilds the warm-start table from the restored pairs
    step_index_ = s.step;
  }

 private:
  vk::Buffer storage(VkDeviceSize bytes, const char* what) {
    return vk::storage_buffer(ctx_, bytes, what,
                              "use fewer bodies or particles, or the CPU backend");
  }

  // Automatic fusion, from the step just taken (the next step's lists are about the same; the
  // choice changes only the speed, never the result). Measured on an H100 (docs/benchmarks.md):
  // fusing a colour saves its dispatch and barrier (~9 us) but runs it in rounds of one
  // workgroup. A round of contact manifolds or joints takes one unit's latency, 10-20 us, so
  // they fuse only where each colour fits one round (the 210-box pyramid: 1.46x faster; the
  // 820-box one, two rounds, 1.3x slower); a round of particle contacts is about 4x cheaper (1,000
  // particles, two rounds a colour: 2x faster; 10,000, eleven rounds: 1.8x slower). The fused
  // colouring visits every unit for every colour and sub-pass and wins below about 768 units.
  // Jacobi fuses when its units and its bodies each fit one round. Returns whether it changed.
  bool choose_fusion(const kern::WorldCounters& c) {
    constexpr std::uint32_t kRound = VKPHYS_FUSED_GROUP_SIZE;
    constexpr std::uint32_t kColoringUnits = 3 * kRound;
    constexpr std::uint32_t kParticleRoundsPerRound = 4;
    bool coloring = fused_ == FusedPolicy::always, sweeps = coloring;
    if (fused_ == FusedPolicy::automatic) {
      const std::uint32_t units =
          j_ + std::min(c.pairs, cap_.pairs) + std::min(c.pcontacts, cap_.contacts);
      if (scene_.settings.solver.scheme == SolverScheme::colored) {
        coloring = units <= kColoringUnits;
        sweeps = true;
        for (std::uint32_t k = 0; k < colors_recorded_; ++k) {
          const std::uint32_t rigid = c.color_end[2 * k] - c.color_start[2 * k];
          const std::uint32_t particle = c.color_end[2 * k + 1] - c.color_start[2 * k + 1];
          // Cost in rounds of contact manifolds, times kParticleRoundsPerRound.
          const std::uint32_t cost = kParticleRoundsPerRound * vk::groups_for(rigid, kRound) +
                                     vk::groups_for(particle, kRound);
          sweeps = sweeps && cost <= kParticleRoundsPerRound;
        }
      } else {
        sweeps = units <= kRound && n_ <= kRound;
      }
    }
    const bool changed = coloring != fuse_coloring_ || sweeps != fuse_sweeps_;
    fuse_coloring_ = coloring;
    fuse_sweeps_ = sweeps;
    return changed;
  }

  // The step constants as the host last wrote them, into their device-local buffer.
  void copy_params_in(VkCommandBuffer cb) const {
    vk::copy(cb, params_host_, buf_[b_params], sizeof(kern::WorldParams));
  }

  // This step's kinematic paths and due impulses, into the host-visible drive buffers and the
  // step constants.
  void upload_drive() {
    if (!drive_paths_.empty()) {
      std::memcpy(buf_[b_drive_paths].mapped(), drive_paths_.data(),
                  drive_paths_.size() * sizeof(glm::vec4));
    }
    if (!drive_impulses_.empty()) {
      std::memcpy(buf_[b_drive_impulses].mapped(), drive_impulses_.data(),
                  drive_impulses_.size() * sizeof(glm::vec4));
    }
    auto* params = static_cast<kern::WorldParams*>(params_host_.mapped());
    params->drive.z = static_cast<std::uint32_t>(drive_impulses_.size() / 2);
  }

  // The state a redone step starts from: positions and velocities of every body, orientations
  // and angular velocities of the rigid bodies, joint impulses.
  void backup_copies(VkCommandBuffer cb, bool restore) {
    const VkDeviceSize v4 = sizeof(glm::vec4);
    const std::pair<const vk::Buffer*, VkDeviceSize> parts[] = {
        {&buf_[b_body_pos], n_ * v4},
        {&buf_[b_body_vel], n_ * v4},
        {&buf_[b_rigid_rot], r_ * v4},
        {&buf_[b_rigid_omega], r_ * v4},
        {&buf_[b_joint_lambda], VkDeviceSize{j_} * 2 * v4}};
    VkDeviceSize at = 0;
    for (const auto& [buffer, bytes] : parts) {
      copy_region(cb, restore ? backup_ : *buffer, restore ? *buffer : backup_, restore ? at : 0,
                  restore ? 0 : at, bytes);
      at += bytes;
    }
  }

  static void copy_region(VkCommandBuffer cb, const vk::Buffer& src, const vk::Buffer& dst,
                          VkDeviceSize src_offset, VkDeviceSize dst_offset, VkDeviceSize bytes) {
    if (!bytes) return;
    VkBufferCopy region{src_offset, dst_offset, bytes};
    vkCmdCopyBuffer(cb, src.handle(), dst.handle(), 1, &region);
  }

  void restore_step_start() {
    ctx_.run_once([&](VkCommandBuffer cb) { backup_copies(cb, true); });
  }

  // (Re)allocates everything sized by the capacities; last step's pairs keep their slots (the
  // warm-start table is rebuilt from them) and last step's particle contacts their places.
  void allocate_lists() {
    const VkDeviceSize pairs = cap_.pairs, contacts = cap_.contacts;
    const VkDeviceSize v4 = sizeof(glm::vec4), u4 = sizeof(glm::uvec4), u1 = sizeof(std::uint32_t);
    const kern::WorldParams params = make_world_params(scene_, world_, cap_);
    std::memcpy(params_host_.mapped(), &params, sizeof params);
    scene_params_h_ = params.gravity_dt.w;
    table_ = params.counts.w;
    grid_table_ = params.kinds.w;
    const VkDeviceSize units = params.coloring.w;
    buf_[b_pair_info] = storage(pairs * u4, "pairs");
    buf_[b_pair_normal] = storage(pairs * v4, "pair normals");
    buf_[b_point_geom] = storage(4 * pairs * v4, "contact points");
    buf_[b_point_lambda] = storage(4 * pairs * v4, "contact impulses");
    buf_[b_point_prep] = storage(4 * VKPHYS_POINT_PREP * pairs * v4, "contact rows");
    buf_[b_pair_frame] = storage(2 * pairs * v4, "manifold references");
    buf_[b_point_ref] = storage(8 * pairs * v4, "contact point references");
    buf_[b_prev_hash] = storage(VkDeviceSize{table_} * u1, "warm-start table");
    buf_[b_pcontact_bodies] = storage(contacts * sizeof(glm::uvec2), "particle contacts");
    buf_[b_pcontact_geom] = storage(contacts * v4, "particle contact normals");
    buf_[b_pcontact_target] = storage(contacts * v4, "particle contact targets");
    buf_[b_pcontact_lambda] = storage(contacts * v4, "particle contact impulses");
    buf_[b_pcontact_origin] = storage(contacts * u1, "particle contact origins");
    // The gather into colour order (kernels/world_coloring.inl): the coloured scheme only.
    const VkDeviceSize ordered =
        scene_.settings.solver.scheme == SolverScheme::colored ? contacts : 0;
    buf_[b_pcontact_copy_bodies] = storage(ordered * sizeof(glm::uvec2), "colour-order contacts");
    buf_[b_pcontact_copy_lambda] = storage(ordered * v4, "colour-order impulses");
    buf_[b_unit_color] = storage(units * u1, "unit colours");
    buf_[b_unit_dv] = storage((4 * (j_ + pairs) + 2 * contacts) * v4, "Jacobi velocity changes");
    const VkDeviceSize sort = std::max<VkDeviceSize>({n_, p_, 2 * units});
    buf_[b_sort_keys] = storage(sort * u1, "sort keys");
    buf_[b_sort_values] = storage(sort * u1, "sort values");
    sort_ = std::make_unique<gpu::RadixSort>(ctx_, static_cast<std::uint32_t>(sort));
    // Last step's lists survive a regrow: copied into the grown buffers.
    const std::pair<Binding, VkDeviceSize> kept[] = {{b_prev_pair_info, pairs * u4},
                                                     {b_prev_point_lambda, 12 * pairs * v4},
                                                     {b_prev_pair_frame, 2 * pairs * v4},
                                                     {b_prev_pcontact_other, contacts * u1},
                                                     {b_prev_pcontact_lambda, contacts * v4}};
    std::array<vk::Buffer, std::size(kept)> old;
    for (std::size_t k = 0; k < old.size(); ++k) {
      old[k] = std::move(buf_[kept[k].first]);
      buf_[kept[k].first] = storage(kept[k].second, "previous contacts");
    }
    free_command_buffer();
    for (vk::Kernel* k : kernels_.all()) k->reset_sets();
    sets_.clear();
    ctx_.run_once([&](VkCommandBuffer cb) {
      // The hash insert below reads the new capacities from the step constants.
      copy_params_in(cb);
      // The old list into the front of the grown buffer and zeros behind it: the two transfers
      // write disjoint ranges, so they need no barrier between them (two transfer writes to one
      // range may land in either order without one).
      for (std::size_t k = 0; k < old.size(); ++k) {
        if (old[k].handle()) vk::copy(cb, old[k], buf_[kept[k].first], old[k].size());
        buf_[kept[k].first].fill(cb, 0u, old[k].size());
      }
      vk::barrier(cb);
      buf_[b_prev_hash].fill(cb, VKPHYS_EMPTY_SLOT);
      vk::barrier(cb);
      const std::uint32_t insert[4] = {kern::COMMIT_HASH_INSERT, 1u, 0u, 0u};
      kernels_.commit.dispatch(cb, set(kernels_.commit), vk::groups_for(cap_.pairs, kGroup),
                               insert);
    });
    cb_ = record();
  }

  // Every world kernel binds from the same table; one set per kernel, made on first use after
  // the buffers were (re)allocated.
  VkDescriptorSet set(vk::Kernel& k) {
    auto it = sets_.find(&k);
    if (it != sets_.end()) return it->second;
    std::array<const vk::Buffer*, VKPHYS_WORLD_BINDINGS> table{};
    for (std::size_t b = 0; b < table.size(); ++b) table[b] = &buf_[b];
    VkDescriptorSet s = k.bind(std::span<const vk::Buffer* const>(table));
    sets_.emplace(&k, s);
    return s;
  }

  VkCommandBuffer record() {
    VkCommandBuffer cb = ctx_.allocate_command_buffer();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
    vk::RecordCounts counted;  // the step's dispatches and barriers, as recorded
    std::uint32_t stamp = 0;
    const std::uint32_t body_groups = vk::groups_for(n_, kGroup);
    const std::uint32_t trees = world_.trees(), tree_groups = vk::groups_for(trees, kGroup);
    const std::uint32_t particle_groups = vk::groups_for(p_, kGroup);
    const std::uint32_t unit_cap = j_ + cap_.pairs + cap_.contacts;
    const SolverSettings& sv = scene_.settings.solver;
    // Joints and SAP pairs (the unit kernel's units) exist only with joints or a rigid body
    // other than a plane; a particle scene's colours and sweeps skip their empty dispatches.
    const bool rigid_units = j_ > 0 || world_.sweepers > 0;
    auto stage_done = [&] {
      vk::barrier(cb);
      timestamps_.write(cb, ++stamp);
    };
    auto run = [&](vk::Kernel& k, std::uint32_t groups, std::uint32_t mode, std::uint32_t a = 0,
                   std::uint32_t b = 0, std::uint32_t c = 0) {
      const std::uint32_t push[4] = {mode, a, b, c};
      k.dispatch(cb, set(k), groups, push);
      vk::barrier(cb);
    };
    auto run_indirect = [&](vk::Kernel& k, VkDeviceSize offset, std::uint32_t mode,
                            std::uint32_t a = 0, std::uint32_t b = 0) {
      const std::uint32_t push[4] = {mode, a, b, 0u};
      k.dispatch_indirect(cb, set(k), buf_[b_counters], offset, push);
      vk::barrier(cb);
    };
    // The indirect dispatch size of colour list `list` (world_coloring.inl, color_groups).
    auto color_groups = [](std::uint32_t list) {
      return offsetof(kern::WorldCounters, color_groups) + 3 * list * sizeof(std::uint32_t);
    };
    // `mode` of kernel `k` over the overflow colour's lists that can hold units (joints and pairs
    // with rigid units, particle contacts with particles), indirect; push = (mode, list, a).
    auto overflow_lists = [&](vk::Kernel& k, std::uint32_t mode, std::uint32_t a = 0) {
      const std::uint32_t list = 2 * sv.max_colors;
      if (rigid_units) run_indirect(k, color_groups(list), mode, list, a);
      if (p_ > 0) run_indirect(k, color_groups(list + 1), mode, list + 1, a);
    };
    auto sort = [&](Binding keys, Binding values, std::uint32_t count, std::uint32_t bits) {
      sort_->record(cb, buf_[keys], buf_[values], count, bits);
    };
    auto scan = [&](Binding data, std::uint32_t count) { scan_->record(cb, buf_[data], count); };
    auto sweep = [&](std::uint32_t kind) {
      if (sv.scheme == SolverScheme::colored) {
        for (std::uint32_t c = 0; c < colors_recorded_; ++c) {
          if (rigid_units)
            run_indirect(kernels_.unit, color_groups(2 * c), kern::UNIT_COLOR, 2 * c, kind);
          if (p_ > 0) {
            run_indirect(kernels_.pcontact, color_groups(2 * c + 1), kern::PCONTACT_COLOR,
                         2 * c + 1, kind);
          }
        }
        // Units left over with fewer colours recorded than max_colors redo the step with all
        // of them (world_coloring.inl, color_groups), so only then can the overflow hold any.
        // Its units run in parallel on split copies (both lists in the unit kernel: the
        // overflow is rare, not worth its own pipeline), then the touched bodies average.
        if (colors_recorded_ == sv.max_colors) {
          for (std::uint32_t pass = 0; pass < kern::overflow_passes(kind); ++pass) {
            overflow_lists(kernels_.unit, kern::UNIT_OVERFLOW_COLOR, kind);
            run(kernels_.body, body_groups, kern::BODY_JACOBI_AVERAGE, kind);
          }
        }
      } else {
        // Particle contacts in a pipeline of their own (see shaders/world_pcontact.comp).
        if (rigid_units) {
          run_indirect(kernels_.unit, offsetof(kern::WorldCounters, rigid_unit_groups),
                       kern::UNIT_JACOBI, 0, kind);
        }
        if (p_ > 0) {
          run_indirect(kernels_.pcontact, offsetof(kern::WorldCounters, pcontact_groups),
                       kern::PCONTACT_JACOBI, 0, kind);
        }
        run(kernels_.body, body_groups, kern::BODY_JACOBI_AVERAGE, kind);
      }
      if (trees > 0 && (kind == kern::KIND_SOLVE || kind == kern::KIND_VELOCITY)) {
        run(kernels_.tree, tree_groups, kern::TREE_SOLVE, kind);
      }
    };
    // A sweep of kind `first` (unless KIND_NONE), then `count` of kind `kind`; `last`: they end
    // the step's solve, and the last of them measures the solver residual (world_units.inl).
    auto sweeps = [&](std::uint32_t first, std::uint32_t kind, std::uint32_t count, bool last) {
      if (fuse_sweeps_) {
        const std::uint32_t colors = sv.scheme == SolverScheme::colored ? colors_recorded_ : 0u;
        const std::uint32_t measure = last ? kern::FUSED_MEASURE_LAST : 0u;
        run(kernels_.fused, 1, kern::FUSED_SWEEPS, first | kind << 8 | measure, count, colors);
        return;
      }
      const std::uint32_t total = count + (first != kern::KIND_NONE ? 1u : 0u);
      for (std::uint32_t s = 0; s < total; ++s) {
        const bool measure = last && s + 1 == total;
        if (measure) run(kernels_.body, body_groups, kern::BODY_RESIDUAL_REFERENCE);
        sweep(s == 0 && first != kern::KIND_NONE ? first : kind);
        if (measure) run(kernels_.body, body_groups, kern::BODY_RESIDUAL);
      }
    };
    auto solve = [&](std::uint32_t kind, bool last) {
      sweeps(kern::KIND_WARM, kind, sv.iterations, last);
    };
    // The particles' forces before each (sub)step's solve, as the CPU backend's predict_forces:
    // symplectic Euler's spring and wind term, body_predict, the explicit method's n ODE steps or
    // the implicit method's solve (each pass over its own count of invocations).
    auto predict_forces = [&] {
      const bool explicit_ode = sv.integrator != Integrator::symplectic && p_ > 0;
      if (!explicit_ode && world_.particle_forces()) {
        run(kernels_.ode(kern::ODE_SPRING_FORCE), particle_groups, kern::ODE_SPRING_FORCE);
      }
      run(kernels_.body, body_groups, kern::BODY_PREDICT);
      if (!explicit_ode) return;
      ode_.for_each_pass(sv, scene_params_h_,
                         [&](std::uint32_t mode, std::uint32_t s, float h, std::uint32_t role) {
                           run(kernels_.ode(mode),
                               vk::groups_for(kern::ode_pass_invocations(mode, p_), kGroup), mode,
                               s, std::bit_cast<std::uint32_t>(h), role);
                         });
    };

    timestamps_.reset(cb);
    timestamps_.write(cb, 0);
    copy_params_in(cb);
    for (Binding b : {b_counters, b_pair_offsets, b_pcontact_offsets, b_body_color, b_body_range}) {
      buf_[b].fill(cb, 0u);
    }
    buf_[b_cell_start].fill(cb, VKPHYS_EMPTY_CELL);
    backup_copies(cb, false);
    vk::barrier(cb);

    run(kernels_.body, body_groups, kern::BODY_SETUP);
    stage_done();
    if (world_.sweepers > 0) {
      sort(b_sort_keys, b_sort_values, n_, 32);
      run(kernels_.sweep, body_groups, kern::SWEEP_WALK);
      scan(b_sweep_walk, n_ + 1);
      run(kernels_.sweep, body_groups, kern::SWEEP_COUNT);
      scan(b_pair_offsets, n_ + 1);
    }
    if (p_ > 0) {
      run(kernels_.grid, particle_groups, kern::GRID_HASH);
      sort(b_grid_keys, b_grid_values, p_,
           static_cast<std::uint32_t>(std::bit_width(grid_table_ - 1u)));
      run(kernels_.grid, particle_groups, kern::GRID_CELL_RANGE);
      run(kernels_.grid, particle_groups, kern::GRID_COUNT);
      scan(b_pcontact_offsets, p_ + 1);
    }
    run(kernels_.finalize, 1, kern::FINALIZE_LISTS);
    if (world_.sweepers > 0) run(kernels_.sweep, body_groups, kern::SWEEP_WRITE);
    if (p_ > 0) run(kernels_.grid, particle_groups, kern::GRID_WRITE);
    stage_done();
    run_indirect(kernels_.narrowphase, offsetof(kern::WorldCounters, pair_groups), 0);
    stage_done();
    const std::uint32_t unit_groups = vk::groups_for(unit_cap, kGroup);
    if (sv.scheme == SolverScheme::colored) {
      run(kernels_.color, unit_groups, kern::COLOR_INIT);
      const std::uint32_t sub = 2;
      if (fuse_coloring_) run(kernels_.fused, 1, kern::FUSED_COLORING, colors_recorded_);
      for (std::uint32_t c = 0; !fuse_coloring_ && c < colors_recorded_; ++c) {
        for (std::uint32_t k = 0; k < sub; ++k) {
          // Over the live units only (the rest are inactive from COLOR_INIT on).
          run_indirect(kernels_.color, offsetof(kern::WorldCounters, unit_groups),
                       kern::COLOR_PROPOSE, c, c * sub + k + 1);
          run_indirect(kernels_.color, offsetof(kern::WorldCounters, unit_groups),
                       kern::COLOR_ASSIGN, c, c * sub + k + 1);
        }
      }
      run(kernels_.color, unit_groups, kern::COLOR_KEY);
      sort(b_sort_keys, b_sort_values, unit_cap, 6);
      run(kernels_.color, unit_groups, kern::COLOR_RANGE);
      run(kernels_.finalize, 1, kern::FINALIZE_COLORS, colors_recorded_);
      if (p_ > 0) {
        run(kernels_.color, unit_groups, kern::COLOR_GATHER);
        run_indirect(kernels_.pcontact, offsetof(kern::WorldCounters, pcontact_groups),
                     kern::PCONTACT_SETTLE);
      }
      // The overflow colour's per-body incidence (world_coloring.inl): count, scan, fill,
      // order; recorded with the overflow sweeps (see sweep), indirect over its two lists.
      if (colors_recorded_ == sv.max_colors) {
        buf_[b_body_color].fill(cb, 0u);  // the colouring's claims and marks are spent
        vk::barrier(cb);
        overflow_lists(kernels_.color, kern::OVERFLOW_COUNT);
        scan(b_body_color, n_ + 1);
        overflow_lists(kernels_.color, kern::OVERFLOW_FILL);
        run(kernels_.color, body_groups, kern::OVERFLOW_ORDER);
      }
    } else {
      const std::uint32_t entries = 2 * unit_cap;
      run(kernels_.color, vk::groups_for(entries, kGroup), kern::INCIDENCE_KEY);
      sort(b_sort_keys, b_sort_values, entries, static_cast<std::uint32_t>(std::bit_width(n_)));
      run(kernels_.color, vk::groups_for(entries, kGroup), kern::INCIDENCE_RANGE);
    }
    stage_done();
    const std::uint32_t paths = world_.drive.paths();
    if (world_.drive.max_impulses_per_step() > 0) run(kernels_.drive, 1, kern::DRIVE_IMPULSES);
    if (paths > 0) run(kernels_.drive, vk::groups_for(paths, kGroup), kern::DRIVE_PATH_VELOCITY);
    if (OdeControl::marks_held(sv) && p_ > 0) {
      run(kernels_.ode(kern::ODE_MARK), unit_groups, kern::ODE_MARK);
    }
    predict_forces();
    // Kept for StepTrace (48 bytes per rigid body, 16 per particle): the solve overwrites v*,
    // w* in place.
    const VkDeviceSize v4 = sizeof(glm::vec4);
    copy_region(cb, buf_[b_body_vel], predicted_, 0, 0, n_ * v4);
    copy_region(cb, buf_[b_rigid_omega], predicted_, 0, n_ * v4, r_ * v4);
    vk::barrier(cb);
    if (sv.restitution == RestitutionModel::newton) {
      sweeps(kern::KIND_NONE, kern::KIND_IMPACT, sv.impact_passes, false);
    }
    stage_done();
    // Preparation and targets: joints and pairs in the unit kernel, particle contacts in their
    // own (particle contacts have nothing to prepare).
    auto units = [&](std::uint32_t mode, std::uint32_t phase = 0) {
      if (rigid_units) {
        run_indirect(kernels_.unit, offsetof(kern::WorldCounters, rigid_unit_groups), mode, phase);
      }
      if (mode == kern::UNIT_TARGETS && p_ > 0) {
        run_indirect(kernels_.pcontact, offsetof(kern::WorldCounters, pcontact_groups),
                     kern::PCONTACT_TARGETS, phase);
      }
      // The joint trees' factors from the phase's rows (kernels/joint_trees.inl).
      if (mode == kern::UNIT_TARGETS && trees > 0) {
        run(kernels_.tree, tree_groups, kern::TREE_FACTOR);
      }
    };
    units(kern::UNIT_PREPARE);
    units(kern::UNIT_TARGETS, kern::PHASE_SOLVE);
    stage_done();
    for (std::uint32_t sub = 0; sub < sv.substeps; ++sub) {
      if (sub > 0) {
        predict_forces();
        units(kern::UNIT_TARGETS, kern::PHASE_SOLVE);
      }
      // The step's last sweep measures the solver residual.
      const bool last_sub = sub + 1 == sv.substeps, relax = sv.relax_iterations > 0;
      solve(kern::KIND_SOLVE, last_sub && !sv.split_impulse && !relax);
      if (sv.split_impulse) {
        run(kernels_.body, body_groups, kern::BODY_SAVE_POS_VEL);
        run(kernels_.body, body_groups, kern::BODY_PREDICT_AGAIN);
        units(kern::UNIT_TARGETS, kern::PHASE_VELOCITY);
        solve(kern::KIND_VELOCITY, last_sub && !relax);
      }
      run(kernels_.body, body_groups, kern::BODY_INTEGRATE);
      if (relax) {
        units(kern::UNIT_TARGETS, kern::PHASE_RELAX);
        sweeps(kern::KIND_NONE, kern::KIND_VELOCITY, sv.relax_iterations, last_sub);
      }
    }
    stage_done();
    run(kernels_.commit, vk::groups_for(cap_.pairs, kGroup), kern::COMMIT_PAIRS);
    run(kernels_.commit, vk::groups_for(table_, kGroup), kern::COMMIT_HASH_CLEAR);
    run(kernels_.commit, vk::groups_for(cap_.pairs, kGroup), kern::COMMIT_HASH_INSERT);
    if (p_ > 0) {
      run(kernels_.commit, vk::groups_for(std::max(cap_.contacts, p_ + 1), kGroup),
          kern::COMMIT_PARTICLE_CONTACTS);
    }
    if (paths > 0) run(kernels_.drive, vk::groups_for(paths, kGroup), kern::DRIVE_PATH_POSE);
    stage_done();
    vk::copy(cb, buf_[b_counters], counters_host_, sizeof(kern::WorldCounters));
    vk::barrier_to_host(cb);
    vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    stats_.dispatches = counted.dispatches();
    stats_.barriers = counted.barriers();
    return cb;
  }

  void rerecord() {
    free_command_buffer();
    cb_ = record();
  }

  void free_command_buffer() {
    if (cb_) ctx_.free_command_buffer(cb_);
    cb_ = VK_NULL_HANDLE;
  }

  void fill_trace(StepTrace& t, std::uint32_t pairs, std::uint32_t contacts) const {
    const VkDeviceSize v4 = sizeof(glm::vec4);
    t.pairs = buf_[b_pair_info].download<glm::uvec4>(pairs);
    t.normals = buf_[b_pair_normal].download<glm::vec4>(pairs);
    t.points = buf_[b_point_geom].download<glm::vec4>(4 * std::size_t{pairs});
    t.lambdas = buf_[b_point_lambda].download<glm::vec4>(4 * std::size_t{pairs});
    t.colors = buf_[b_unit_color].download<std::uint32_t>(j_ + std::size_t{pairs} + contacts);
    t.joint_lambda = buf_[b_joint_lambda].download<glm::vec4>(2 * std::size_t{j_});
    t.predicted_vel = predicted_.download<glm::vec4>(n_);
    t.predicted_omega = predicted_.download<glm::vec4>(r_, n_ * v4);
    t.pcontact_bodies = buf_[b_pcontact_bodies].download<glm::uvec2>(contacts);
    t.pcontact_geom = buf_[b_pcontact_geom].download<glm::vec4>(contacts);
    t.pcontact_lambda = buf_[b_pcontact_lambda].download<glm::vec4>(contacts);
    t.split_range = buf_[b_body_range].download<glm::uvec2>(n_);
  }

  vk::Context& ctx_;
  FusedPolicy fused_;  // automatic resolved to never on a CPU Vulkan driver
  // What the recorded step runs in one workgroup (shaders/world_fused.comp).
  bool fuse_coloring_ = false, fuse_sweeps_ = false;
  WorldConstants constants_;
  WorldKernels kernels_;
  vk::Timestamps timestamps_;
  Scene scene_;
  WorldArrays world_;
  Capacities cap_;
  std::uint32_t n_ = 0, r_ = 0, p_ = 0, j_ = 0, table_ = 0, grid_table_ = 0;
  std::uint32_t colors_recorded_ = 0;  // colours the recorded step colours and sweeps
  OdeControl ode_;                     // the explicit integrators' n (host/sim/ode_control.h)
  float scene_params_h_ = 0.0f;        // the step constants' (sub)step h
  StepStats stats_;
  std::uint64_t step_index_ = 0;  // steps taken since load (the drive schedule's clock)
  std::vector<glm::vec4> drive_paths_, drive_impulses_;
  std::array<vk::Buffer, VKPHYS_WORLD_BINDINGS> buf_;
  vk::Buffer backup_, predicted_;
  vk::Buffer params_host_;    // the step constants as the host writes them
  vk::Buffer counters_host_;  // the counters as the step's last command copies them out
  std::unique_ptr<gpu::Scan> scan_;
  std::unique_ptr<gpu::RadixSort> sort_;
  std::map<const vk::Kernel*, VkDescriptorSet> sets_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(vk::Context& ctx, std::optional<Stage> fault,
                                          FusedPolicy fused) {
  return std::make_unique<GpuBackend>(ctx, fault, fused);
}

}  // namespace vkphys
