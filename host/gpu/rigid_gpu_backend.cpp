// The Vulkan backend for rigid bodies: the stages of host/sim/rigid_backend.h as compute
// dispatches, recorded once into a command buffer and replayed every step. Every rigid shader
// declares the same buffer list (shaders/rigid_common.glsl), so every kernel is bound to the
// same descriptor list; a push constant picks the stage function and its arguments.
//
// Per step: one submit, one fence wait, and a read of the counter block (mapped memory):
// pair count, overflow flag, points, colour ranges. Stages over GPU-counted work (narrowphase,
// row preparation, each colour, Jacobi units) are indirect dispatches whose sizes the GPU
// writes, so nothing is read back mid-step. When the pairs did not fit, the host restores the
// step-start state (copied aside at the start of every step), grows the pair buffers to 1.5x
// what was needed, rebuilds the warm-start table, re-records and redoes the step.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <map>
#include <stdexcept>

#include "host/gpu/primitives.h"
#include "host/sim/rigid_setup.h"
#include "host/vk/kernel.h"
#include "rigid_body.spv.h"
#include "rigid_color.spv.h"
#include "rigid_commit.spv.h"
#include "rigid_finalize.spv.h"
#include "rigid_narrowphase.spv.h"
#include "rigid_sweep.spv.h"
#include "rigid_unit.spv.h"

namespace vkphys {
namespace {

template <std::size_t N>
std::span<const std::uint32_t> words(const std::uint32_t (&spv)[N]) {
  return {spv, N};
}

constexpr std::uint32_t kGroup = VKPHYS_GROUP_SIZE;
constexpr std::uint32_t kBindings = 32;  // the binding table of rigid_common.glsl (uniform + 31)
constexpr std::uint32_t kPush = 16;

// Push-constant modes of the shaders (see each .comp).
enum BodyMode : std::uint32_t {
  kSetup,
  kPredict,
  kPredictAgain,
  kIntegrate,
  kSavePosVel,
  kAverage
};
enum ColorMode : std::uint32_t {
  kColorInit,
  kPropose,
  kAssign,
  kColorKey,
  kColorRange,
  kIncidenceKey,
  kIncidenceRange
};
enum UnitMode : std::uint32_t { kPrepare, kColor, kOverflowColor, kJacobi };

struct RigidKernels {
  vk::Kernel body, sweep, finalize, narrowphase, color, unit, commit;
  explicit RigidKernels(const vk::Context& c)
      : body(c, "rigid_body", words(rigid_body_spv), kPush),
        sweep(c, "rigid_sweep", words(rigid_sweep_spv), kPush),
        finalize(c, "rigid_finalize", words(rigid_finalize_spv), kPush),
        narrowphase(c, "rigid_narrowphase", words(rigid_narrowphase_spv), kPush),
        color(c, "rigid_color", words(rigid_color_spv), kPush),
        unit(c, "rigid_unit", words(rigid_unit_spv), kPush),
        commit(c, "rigid_commit", words(rigid_commit_spv), kPush) {}
  std::array<vk::Kernel*, 7> all() {
    return {&body, &sweep, &finalize, &narrowphase, &color, &unit, &commit};
  }
};

class GpuRigidBackend final : public RigidBackend {
 public:
  explicit GpuRigidBackend(vk::Context& ctx)
      : ctx_(ctx), kernels_(ctx), timestamps_(ctx, kRigidStageCount + 1) {}

  ~GpuRigidBackend() override { free_command_buffer(); }

  std::string name() const override { return "gpu (" + ctx_.info().name + ")"; }

  void load(const Scene& scene, std::uint32_t pair_capacity) override {
    if (scene.settings.solver.scheme == SolverScheme::sequential) {
      throw std::invalid_argument(
          "solver.scheme = \"sequential\" runs on the CPU backend only (use colored or jacobi "
          "on the GPU)");
    }
    scene_ = scene;
    world_ = build_rigid_world(scene);
    n_ = world_.bodies();
    j_ = world_.joints();
    capacity_ = pair_capacity ? pair_capacity : default_pair_capacity(n_);
    make_rigid_params(scene_, world_, capacity_);  // validates before allocating
    const VkDeviceSize v4 = sizeof(glm::vec4), u4 = sizeof(glm::uvec4), u1 = sizeof(std::uint32_t);
    const VkDeviceSize n = n_, j = j_;
    params_ = vk::Buffer(ctx_, sizeof(kern::RigidParams), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true);
    counters_ =
        vk::Buffer(ctx_, sizeof(kern::RigidCounters), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, true);
    pos_ = storage(n * v4, "body positions");
    rot_ = storage(n * v4, "body orientations");
    vel_ = storage(n * v4, "body velocities");
    omega_ = storage(n * v4, "body angular velocities");
    start_ = storage(2 * n * v4, "step-start velocities");
    iinv_ = storage(3 * n * v4, "world inverse inertia");
    inertia_ = storage(n * v4, "body inertia");
    shape_ = storage(n * u4, "body shapes");
    dims_ = storage(n * v4, "body sizes");
    aabb_ = storage(2 * n * v4, "bounding boxes");
    vel_pos_ = storage(2 * n * v4, "split-impulse velocities");
    color_ = storage(2 * n * u1, "colouring claims");
    range_ = storage(n * sizeof(glm::uvec2), "body unit ranges");
    offsets_ = storage((n + 1) * u1, "pair offsets");
    joint_info_ = storage(j * u4, "joint bodies");
    joint_frames_ = storage(j * VKPHYS_JOINT_STRIDE * v4, "joint frames");
    joint_rows_ = storage(j * 4 * VKPHYS_JOINT_ROWS * v4, "joint rows");
    joint_lambda_ = storage(j * 2 * v4, "joint impulses");
    backup_ = storage(4 * n * v4 + j * 2 * v4, "step-start backup");
    predicted_ = storage(2 * n * v4, "predicted-velocity trace");
    pos_.upload(std::span<const glm::vec4>(world_.pos));
    rot_.upload(std::span<const glm::vec4>(world_.rot));
    vel_.upload(std::span<const glm::vec4>(world_.vel));
    omega_.upload(std::span<const glm::vec4>(world_.omega));
    inertia_.upload(std::span<const glm::vec4>(world_.inertia));
    shape_.upload(std::span<const glm::uvec4>(world_.shape));
    dims_.upload(std::span<const glm::vec4>(world_.dims));
    joint_info_.upload(std::span<const glm::uvec4>(world_.joint_info));
    joint_frames_.upload(std::span<const glm::vec4>(world_.joint_frames));
    ctx_.run_once([&](VkCommandBuffer cb) {
      joint_lambda_.fill(cb, 0u);
      start_.fill(cb, 0u);
      vel_pos_.fill(cb, 0u);
    });
    scan_ = std::make_unique<gpu::Scan>(ctx_, n_ + 1);
    colors_recorded_ = scene_.settings.solver.max_colors;
    prev_info_ = vk::Buffer();
    prev_lambda_ = vk::Buffer();
    stats_ = {};
    allocate_pairs();
  }

  void step(RigidTrace* trace) override {
    stats_.regrows = 0;
    kern::RigidCounters counters;
    for (;;) {
      ctx_.submit_and_wait(cb_);
      std::memcpy(&counters, counters_.mapped(), sizeof counters);
      if (counters.overflow) {
        restore_step_start();
        capacity_ = grown_pair_capacity(counters.pairs);
        ++stats_.regrows;
        allocate_pairs();
        continue;
      }
      fill_rigid_stats(counters, scene_, world_, capacity_, stats_);
      if (counters.redo) {
        // Fewer colours were recorded than the colouring needed: redo with all of them.
        restore_step_start();
        colors_recorded_ = scene_.settings.solver.max_colors;
        rerecord();
        continue;
      }
      break;
    }
    // Record only the colours in use, plus headroom: a colour with no units still costs a
    // dispatch and a barrier per sweep. The colouring passes stop there too; if units are left
    // over, the step above is redone with every colour, so the result never depends on this.
    if (scene_.settings.solver.scheme == SolverScheme::colored &&
        stats_.colors + 2 < colors_recorded_) {
      colors_recorded_ = stats_.colors + 2;
      rerecord();
    }
    std::vector<double> ms = timestamps_.read_intervals_ms();
    for (std::size_t s = 0; s < ms.size() && s < kRigidStageCount; ++s) stats_.stage_ms[s] = ms[s];
    if (trace) fill_trace(*trace, std::min(counters.pairs, capacity_));
  }

  void read(RigidState& out) const override {
    out.pos = pos_.download<glm::vec4>(n_);
    out.rot = rot_.download<glm::vec4>(n_);
    out.vel = vel_.download<glm::vec4>(n_);
    out.omega = omega_.download<glm::vec4>(n_);
  }

  const RigidStats& stats() const override { return stats_; }

 private:
  vk::Buffer storage(VkDeviceSize bytes, const char* what) {
    return vk::storage_buffer(ctx_, bytes, what, "use fewer bodies or the CPU backend");
  }

  void backup_copies(VkCommandBuffer cb, bool restore) {
    const VkDeviceSize body = VkDeviceSize{n_} * sizeof(glm::vec4);
    const vk::Buffer* state[] = {&pos_, &rot_, &vel_, &omega_};
    for (std::size_t k = 0; k < 4; ++k) {
      copy_region(cb, restore ? backup_ : *state[k], restore ? *state[k] : backup_,
                  restore ? k * body : 0, restore ? 0 : k * body, body);
    }
    const VkDeviceSize joints = VkDeviceSize{j_} * 2 * sizeof(glm::vec4);
    if (joints) {
      copy_region(cb, restore ? backup_ : joint_lambda_, restore ? joint_lambda_ : backup_,
                  restore ? 4 * body : 0, restore ? 0 : 4 * body, joints);
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

  // (Re)allocates everything sized by the pair capacity; last step's pairs keep their slots
  // and the warm-start table is rebuilt from them.
  void allocate_pairs() {
    const VkDeviceSize p = capacity_, units = j_ + p;
    const VkDeviceSize v4 = sizeof(glm::vec4), u4 = sizeof(glm::uvec4), u1 = sizeof(std::uint32_t);
    kern::RigidParams params = make_rigid_params(scene_, world_, capacity_);
    std::memcpy(params_.mapped(), &params, sizeof params);
    table_ = params.counts.w;
    pair_info_ = storage(p * u4, "pairs");
    pair_normal_ = storage(p * v4, "pair normals");
    point_geom_ = storage(4 * p * v4, "contact points");
    point_lambda_ = storage(4 * p * v4, "contact impulses");
    point_prep_ = storage(16 * p * v4, "contact rows");
    vk::Buffer old_info = std::move(prev_info_), old_lambda = std::move(prev_lambda_);
    prev_info_ = storage(p * u4, "previous pairs");
    prev_lambda_ = storage(8 * p * v4, "previous contact points");
    hash_ = storage(VkDeviceSize{table_} * u1, "warm-start table");
    unit_color_ = storage(units * u1, "unit colours");
    unit_dv_ = storage(4 * units * v4, "Jacobi velocity changes");
    const VkDeviceSize sort = std::max<VkDeviceSize>(n_, 2 * units);
    keys_ = storage(sort * u1, "sort keys");
    values_ = storage(sort * u1, "sort values");
    sort_ = std::make_unique<gpu::RadixSort>(ctx_, static_cast<std::uint32_t>(sort));
    free_command_buffer();
    for (vk::Kernel* k : kernels_.all()) k->reset_sets();
    sets_.clear();
    ctx_.run_once([&](VkCommandBuffer cb) {
      prev_info_.fill(cb, 0u);
      prev_lambda_.fill(cb, 0u);
      if (old_info.handle()) {
        vk::copy(cb, old_info, prev_info_, old_info.size());
        vk::copy(cb, old_lambda, prev_lambda_, old_lambda.size());
      }
      vk::barrier(cb);
      hash_.fill(cb, VKPHYS_EMPTY_SLOT);
      vk::barrier(cb);
      const std::uint32_t insert[4] = {2u, 1u, 0u, 0u};
      kernels_.commit.dispatch(cb, set(kernels_.commit), vk::groups_for(capacity_, kGroup), insert);
    });
    cb_ = record();
  }

  // Every rigid kernel binds the same buffers (rigid_common.glsl); one set per kernel, made on
  // first use after the buffers were (re)allocated.
  VkDescriptorSet set(vk::Kernel& k) {
    auto it = sets_.find(&k);
    if (it != sets_.end()) return it->second;
    const vk::Buffer* list[kBindings] = {
        &params_,      &counters_,    &pos_,        &rot_,          &vel_,        &omega_,
        &start_,       &iinv_,        &inertia_,    &shape_,        &dims_,       &aabb_,
        &vel_pos_,     &color_,       &range_,      &keys_,         &values_,     &offsets_,
        &pair_info_,   &pair_normal_, &point_geom_, &point_lambda_, &point_prep_, &prev_info_,
        &prev_lambda_, &hash_,        &joint_info_, &joint_frames_, &joint_rows_, &joint_lambda_,
        &unit_color_,  &unit_dv_};
    VkDescriptorSet s = k.bind(std::span<const vk::Buffer* const>(list, kBindings));
    sets_.emplace(&k, s);
    return s;
  }

  VkCommandBuffer record() {
    VkCommandBuffer cb = ctx_.allocate_command_buffer();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
    std::uint32_t dispatches = 0;
    std::uint32_t stamp = 0;
    const std::uint32_t body_groups = vk::groups_for(n_, kGroup);
    const std::uint32_t unit_cap = j_ + capacity_;
    const SolverSettings& sv = scene_.settings.solver;
    auto stage_done = [&] {
      vk::barrier(cb);
      timestamps_.write(cb, ++stamp);
    };
    auto run = [&](vk::Kernel& k, std::uint32_t groups, std::uint32_t mode, std::uint32_t a = 0,
                   std::uint32_t b = 0) {
      const std::uint32_t push[4] = {mode, a, b, 0u};
      k.dispatch(cb, set(k), groups, push);
      ++dispatches;
      vk::barrier(cb);
    };
    auto run_indirect = [&](vk::Kernel& k, VkDeviceSize offset, std::uint32_t mode,
                            std::uint32_t a = 0, std::uint32_t b = 0) {
      const std::uint32_t push[4] = {mode, a, b, 0u};
      k.dispatch_indirect(cb, set(k), counters_, offset, push);
      ++dispatches;
      vk::barrier(cb);
    };
    auto sweep = [&](std::uint32_t kind) {
      if (sv.scheme == SolverScheme::colored) {
        for (std::uint32_t c = 0; c < colors_recorded_; ++c) {
          run_indirect(kernels_.unit,
                       offsetof(kern::RigidCounters, color_groups) + 3 * c * sizeof(std::uint32_t),
                       kColor, c, kind);
        }
        run(kernels_.unit, 1, kOverflowColor, sv.max_colors, kind);
      } else {
        run_indirect(kernels_.unit, offsetof(kern::RigidCounters, unit_groups), kJacobi, 0, kind);
        run(kernels_.body, body_groups, kAverage);
      }
    };
    auto solve = [&](std::uint32_t kind) {
      sweep(RIGID_KIND_WARM);
      for (std::uint32_t it = 0; it < sv.iterations; ++it) sweep(kind);
    };

    timestamps_.reset(cb);
    timestamps_.write(cb, 0);
    counters_.fill(cb, 0u);
    offsets_.fill(cb, 0u);
    color_.fill(cb, 0u);
    range_.fill(cb, 0u);
    backup_copies(cb, false);
    vk::barrier(cb);

    run(kernels_.body, body_groups, kSetup);
    stage_done();
    sort_->record(cb, keys_, values_, n_, 32);
    dispatches += sort_->dispatches(n_, 32);
    run(kernels_.sweep, body_groups, 0);
    scan_->record(cb, offsets_, n_ + 1);
    dispatches += scan_->dispatches(n_ + 1);
    run(kernels_.finalize, 1, 0);
    run(kernels_.sweep, body_groups, 1);
    stage_done();
    run_indirect(kernels_.narrowphase, offsetof(kern::RigidCounters, pair_groups), 0);
    stage_done();
    const std::uint32_t unit_groups = vk::groups_for(unit_cap, kGroup);
    if (sv.scheme == SolverScheme::colored) {
      run(kernels_.color, unit_groups, kColorInit);
      const std::uint32_t sub = 2;
      for (std::uint32_t c = 0; c < colors_recorded_; ++c) {
        for (std::uint32_t k = 0; k < sub; ++k) {
          run(kernels_.color, unit_groups, kPropose, c, c * sub + k + 1);
          run(kernels_.color, unit_groups, kAssign, c, c * sub + k + 1);
        }
      }
      run(kernels_.color, unit_groups, kColorKey);
      sort_->record(cb, keys_, values_, unit_cap, 5);
      dispatches += sort_->dispatches(unit_cap, 5);
      run(kernels_.color, unit_groups, kColorRange);
      run(kernels_.finalize, 1, 1, colors_recorded_);
    } else {
      const std::uint32_t entries = 2 * unit_cap;
      run(kernels_.color, vk::groups_for(entries, kGroup), kIncidenceKey);
      const auto bits = static_cast<std::uint32_t>(std::bit_width(n_));
      sort_->record(cb, keys_, values_, entries, bits);
      dispatches += sort_->dispatches(entries, bits);
      run(kernels_.color, vk::groups_for(entries, kGroup), kIncidenceRange);
    }
    stage_done();
    if (sv.restitution == RestitutionModel::newton) sweep(RIGID_KIND_IMPACT);
    run(kernels_.body, body_groups, kPredict);
    // Kept for RigidTrace (a copy of 32 bytes per body): the solve overwrites v*, w* in place.
    copy_region(cb, vel_, predicted_, 0, 0, VkDeviceSize{n_} * sizeof(glm::vec4));
    copy_region(cb, omega_, predicted_, 0, VkDeviceSize{n_} * sizeof(glm::vec4),
                VkDeviceSize{n_} * sizeof(glm::vec4));
    stage_done();
    run_indirect(kernels_.unit, offsetof(kern::RigidCounters, unit_groups), kPrepare);
    stage_done();
    solve(RIGID_KIND_SOLVE);
    if (sv.split_impulse) {
      run(kernels_.body, body_groups, kSavePosVel);
      run(kernels_.body, body_groups, kPredictAgain);
      solve(RIGID_KIND_VELOCITY);
    }
    stage_done();
    run(kernels_.commit, vk::groups_for(capacity_, kGroup), 0);
    run(kernels_.commit, vk::groups_for(table_, kGroup), 1);
    run(kernels_.commit, vk::groups_for(capacity_, kGroup), 2);
    run(kernels_.body, body_groups, kIntegrate);
    stage_done();
    vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    stats_.dispatches = dispatches;
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

  void fill_trace(RigidTrace& t, std::uint32_t pairs) const {
    t.pairs = pair_info_.download<glm::uvec4>(pairs);
    t.normals = pair_normal_.download<glm::vec4>(pairs);
    t.points = point_geom_.download<glm::vec4>(4 * std::size_t{pairs});
    t.lambdas = point_lambda_.download<glm::vec4>(4 * std::size_t{pairs});
    t.colors = unit_color_.download<std::uint32_t>(j_ + std::size_t{pairs});
    t.joint_lambda = joint_lambda_.download<glm::vec4>(2 * std::size_t{j_});
    t.predicted_vel = predicted_.download<glm::vec4>(n_);
    t.predicted_omega = predicted_.download<glm::vec4>(n_, VkDeviceSize{n_} * sizeof(glm::vec4));
  }

  vk::Context& ctx_;
  RigidKernels kernels_;
  vk::Timestamps timestamps_;
  Scene scene_;
  RigidWorld world_;
  std::uint32_t n_ = 0, j_ = 0, capacity_ = 0, table_ = 0;
  std::uint32_t colors_recorded_ = 0;  // colours the recorded step colours and sweeps
  RigidStats stats_;
  vk::Buffer params_, counters_, pos_, rot_, vel_, omega_, start_, iinv_, inertia_, shape_, dims_,
      aabb_, vel_pos_, color_, range_, keys_, values_, offsets_, pair_info_, pair_normal_,
      point_geom_, point_lambda_, point_prep_, prev_info_, prev_lambda_, hash_, joint_info_,
      joint_frames_, joint_rows_, joint_lambda_, unit_color_, unit_dv_, backup_, predicted_;
  std::unique_ptr<gpu::Scan> scan_;
  std::unique_ptr<gpu::RadixSort> sort_;
  std::map<const vk::Kernel*, VkDescriptorSet> sets_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
};

}  // namespace

std::unique_ptr<RigidBackend> make_gpu_rigid_backend(vk::Context& ctx) {
  return std::make_unique<GpuRigidBackend>(ctx);
}

}  // namespace vkphys
