// The Vulkan backend: the particle step as compute dispatches, recorded once into a command
// buffer and replayed every step (host/sim/stages.h lists the stages; each shader in shaders/
// is a thin wrapper around a kernel function shared with the CPU backend).
//
// Per step the host does one submit and one fence wait, then reads the 32-byte counter block
// (mapped memory): the contact total and the overflow flag. The contact stages after the scan run
// over a GPU-written count with vkCmdDispatchIndirect, so nothing is read back mid-step. When the
// contacts did not fit, the host restores the step-start state (positions are copied to a backup
// at the start of every step, velocities by the predict stage), grows the contact buffers to 1.5x
// what was needed, re-records and redoes the step: no contact is ever dropped.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "cell_range.spv.h"
#include "contacts_commit.spv.h"
#include "contacts_count.spv.h"
#include "contacts_finalize.spv.h"
#include "contacts_prepare.spv.h"
#include "contacts_write.spv.h"
#include "hash.spv.h"
#include "host/gpu/primitives.h"
#include "host/sim/backend.h"
#include "host/sim/step_params.h"
#include "host/vk/kernel.h"
#include "integrate.spv.h"
#include "predict.spv.h"
#include "solve.spv.h"
#include "warm_start.spv.h"

namespace vkphys {
namespace {

template <std::size_t N>
std::span<const std::uint32_t> words(const std::uint32_t (&spv)[N]) {
  return {spv, N};
}

constexpr std::uint32_t kGroup = VKPHYS_GROUP_SIZE;

struct Kernels {
  vk::Kernel predict, hash, cell_range, count, finalize, write, prepare, warm_start, solve,
      integrate, commit;
  explicit Kernels(const vk::Context& c)
      : predict(c, "predict", words(predict_spv)),
        hash(c, "hash", words(hash_spv)),
        cell_range(c, "cell_range", words(cell_range_spv)),
        count(c, "contacts_count", words(contacts_count_spv)),
        finalize(c, "contacts_finalize", words(contacts_finalize_spv)),
        write(c, "contacts_write", words(contacts_write_spv)),
        prepare(c, "contacts_prepare", words(contacts_prepare_spv)),
        warm_start(c, "warm_start", words(warm_start_spv)),
        solve(c, "solve", words(solve_spv)),
        integrate(c, "integrate", words(integrate_spv)),
        commit(c, "contacts_commit", words(contacts_commit_spv)) {}
  void reset_sets() {
    for (vk::Kernel* k : {&predict, &hash, &cell_range, &count, &finalize, &write, &prepare,
                          &warm_start, &solve, &integrate, &commit}) {
      k->reset_sets();
    }
  }
};

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(vk::Context& ctx)
      : ctx_(ctx), kernels_(ctx), timestamps_(ctx, kStageCount + 1) {}

  ~GpuBackend() override { free_command_buffers(); }

  std::string name() const override { return "gpu (" + ctx_.info().name + ")"; }

  void load(const Scene& scene, std::uint32_t contact_capacity) override {
    scene_ = scene;
    n_ = static_cast<std::uint32_t>(scene.particles.size());
    capacity_ = contact_capacity ? contact_capacity : default_contact_capacity(n_);
    // Validates planes and materials before any upload, and sizes the hash table.
    table_ = make_step_params(scene_, capacity_).counts.z;
    const Particles& p = scene.particles;
    const VkDeviceSize vec4s = VkDeviceSize{n_} * sizeof(glm::vec4);
    const VkDeviceSize uints = VkDeviceSize{n_} * sizeof(std::uint32_t);
    params_ = vk::Buffer(ctx_, sizeof(StepParams), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true);
    counters_ = vk::Buffer(ctx_, sizeof(StepCounters), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, true);
    pos_ = make_storage(vec4s, "particle positions");
    vel_ = make_storage(vec4s, "particle velocities");
    vel_start_ = make_storage(vec4s, "step-start velocities");
    vel_tmp_ = make_storage(vec4s, "solver velocities");
    pos_backup_ = make_storage(vec4s, "position backup");
    pred_trace_ = make_storage(vec4s, "predicted-velocity trace");
    material_ = make_storage(uints, "particle materials");
    keys_ = make_storage(uints, "sort keys");
    values_ = make_storage(uints, "sort values");
    offsets_ = make_storage(uints + sizeof(std::uint32_t), "contact offsets");
    prev_offsets_ = make_storage(uints + sizeof(std::uint32_t), "previous contact offsets");
    ctx_.run_once([&](VkCommandBuffer cb) { prev_offsets_.fill(cb, 0u); });
    prev_bodies_ = vk::Buffer();
    prev_lambda_ = vk::Buffer();
    pos_.upload(std::span<const glm::vec4>(p.pos_radius));
    vel_.upload(std::span<const glm::vec4>(p.vel_invmass));
    material_.upload(std::span<const std::uint32_t>(p.material));
    cell_start_ = make_storage(VkDeviceSize{table_} * sizeof(std::uint32_t), "grid cell starts");
    cell_end_ = make_storage(VkDeviceSize{table_} * sizeof(std::uint32_t), "grid cell ends");
    scan_ = std::make_unique<gpu::Scan>(ctx_, n_ + 1);
    sort_ = std::make_unique<gpu::RadixSort>(ctx_, std::max(n_, 1u));
    stats_ = {};
    allocate_contacts();  // records the step, which counts its dispatches into stats_
  }

  void step(StepTrace* trace) override {
    stats_.regrows = 0;
    for (;;) {
      ctx_.submit_and_wait(trace ? traced_cb() : cb_);
      StepCounters counters;
      std::memcpy(&counters, counters_.mapped(), sizeof counters);
      if (!counters.overflow) {
        stats_.contacts = counters.contacts;
        break;
      }
      // Too many contacts: undo the step, grow, redo. The solve saw a truncated contact set.
      ctx_.run_once([&](VkCommandBuffer c) {
        vk::copy(c, pos_backup_, pos_, pos_.size());
        vk::copy(c, vel_start_, vel_, vel_.size());
      });
      capacity_ = grown_contact_capacity(counters.contacts);
      ++stats_.regrows;
      allocate_contacts();
    }
    stats_.contact_capacity = capacity_;
    std::vector<double> ms = timestamps_.read_intervals_ms();
    for (std::size_t s = 0; s < ms.size() && s < kStageCount; ++s) stats_.stage_ms[s] = ms[s];
    if (trace) fill_trace(*trace);
  }

  void read(Particles& out) const override {
    out.pos_radius = pos_.download<glm::vec4>(n_);
    out.vel_invmass = vel_.download<glm::vec4>(n_);
    out.material = material_.download<std::uint32_t>(n_);
  }

  const StepStats& stats() const override { return stats_; }

 private:
  vk::Buffer make_storage(VkDeviceSize bytes, const char* what) {
    return vk::storage_buffer(ctx_, bytes, what, "use fewer particles or the CPU backend");
  }

  void allocate_contacts() {
    const VkDeviceSize c = capacity_;
    bodies_ = make_storage(c * sizeof(glm::uvec2), "contact bodies");
    geom_ = make_storage(c * sizeof(glm::vec4), "contact geometry");
    target_ = make_storage(c * sizeof(glm::vec4), "contact targets");
    lambda_ = make_storage(c * sizeof(glm::vec4), "contact impulses");
    // The previous step's contacts grow too, keeping their contents for the warm start.
    vk::Buffer old_bodies = std::move(prev_bodies_), old_lambda = std::move(prev_lambda_);
    prev_bodies_ = make_storage(c * sizeof(glm::uvec2), "previous contact bodies");
    prev_lambda_ = make_storage(c * sizeof(glm::vec4), "previous contact impulses");
    if (old_bodies.handle()) {
      ctx_.run_once([&](VkCommandBuffer cb) {
        vk::copy(cb, old_bodies, prev_bodies_, old_bodies.size());
        vk::copy(cb, old_lambda, prev_lambda_, old_lambda.size());
      });
    }
    StepParams params = make_step_params(scene_, capacity_);
    std::memcpy(params_.mapped(), &params, sizeof params);
    free_command_buffers();
    kernels_.reset_sets();
    cb_ = record(false);
  }

  // The step with trace copies, recorded on first use and kept until the buffers change.
  VkCommandBuffer traced_cb() {
    if (!trace_cb_) trace_cb_ = record(true);
    return trace_cb_;
  }

  void free_command_buffers() {
    for (VkCommandBuffer* cb : {&cb_, &trace_cb_}) {
      if (*cb) ctx_.free_command_buffer(*cb);
      *cb = VK_NULL_HANDLE;
    }
  }

  // Records one whole step. With `trace`, the predicted velocities are also copied aside.
  VkCommandBuffer record(bool trace) {
    VkCommandBuffer cb = ctx_.allocate_command_buffer();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
    std::uint32_t dispatches = 0;
    const std::uint32_t groups = vk::groups_for(n_, kGroup);
    std::uint32_t stamp = 0;
    auto stage_done = [&] {
      vk::barrier(cb);
      timestamps_.write(cb, ++stamp);
    };
    auto run = [&](vk::Kernel& k, std::initializer_list<const vk::Buffer*> b, std::uint32_t g) {
      k.dispatch(cb, k.bind(b), g);
      dispatches += g ? 1 : 0;
    };
    timestamps_.reset(cb);
    timestamps_.write(cb, 0);
    counters_.fill(cb, 0u);
    vk::copy(cb, pos_, pos_backup_, pos_.size());
    vk::barrier(cb);

    run(kernels_.predict, {&params_, &vel_, &vel_start_}, groups);
    if (trace) {
      vk::barrier(cb);
      vk::copy(cb, vel_, pred_trace_, vel_.size());
    }
    stage_done();
    run(kernels_.hash, {&params_, &pos_, &keys_, &values_}, groups);
    stage_done();
    auto key_bits = static_cast<std::uint32_t>(std::countr_zero(table_));
    sort_->record(cb, keys_, values_, n_, key_bits);
    dispatches += sort_->dispatches(n_, key_bits);
    stage_done();
    cell_start_.fill(cb, VKPHYS_EMPTY_CELL);
    vk::barrier(cb);
    run(kernels_.cell_range, {&params_, &keys_, &cell_start_, &cell_end_}, groups);
    stage_done();
    run(kernels_.count,
        {&params_, &pos_, &values_, &cell_start_, &cell_end_, &offsets_, &bodies_, &geom_, &target_,
         &lambda_},
        vk::groups_for(n_ + 1, kGroup));
    stage_done();
    scan_->record(cb, offsets_, n_ + 1);
    dispatches += scan_->dispatches(n_ + 1);
    run(kernels_.finalize, {&params_, &offsets_, &counters_}, 1);
    stage_done();
    run(kernels_.write,
        {&params_, &pos_, &values_, &cell_start_, &cell_end_, &offsets_, &bodies_, &geom_, &target_,
         &lambda_},
        groups);
    stage_done();
    kernels_.prepare.dispatch_indirect(
        cb,
        kernels_.prepare.bind({&params_, &material_, &vel_start_, &bodies_, &geom_, &target_,
                               &lambda_, &counters_, &prev_offsets_, &prev_bodies_, &prev_lambda_}),
        counters_, offsetof(StepCounters, dispatch_x));
    ++dispatches;
    stage_done();
    const std::uint32_t iterations = scene_.settings.solver.iterations;
    VkDescriptorSet warm_forward = kernels_.warm_start.bind(
        {&params_, &vel_, &vel_tmp_, &offsets_, &bodies_, &geom_, &target_, &lambda_});
    VkDescriptorSet forward = kernels_.solve.bind(
        {&params_, &vel_, &vel_tmp_, &offsets_, &bodies_, &geom_, &target_, &lambda_});
    VkDescriptorSet backward = kernels_.solve.bind(
        {&params_, &vel_tmp_, &vel_, &offsets_, &bodies_, &geom_, &target_, &lambda_});
    // Pass 0 applies the warm start, passes 1..iterations are Jacobi sweeps (ping-pong).
    for (std::uint32_t pass = 0; pass <= iterations; ++pass) {
      vk::Kernel& k = pass == 0 ? kernels_.warm_start : kernels_.solve;
      k.dispatch(cb, pass == 0 ? warm_forward : pass % 2 == 0 ? forward : backward, groups);
      ++dispatches;
      vk::barrier(cb);
    }
    if (iterations % 2 == 0) vk::copy(cb, vel_tmp_, vel_, vel_.size());
    stage_done();
    run(kernels_.integrate, {&params_, &pos_, &vel_}, groups);
    vk::barrier(cb);
    run(kernels_.commit,
        {&params_, &counters_, &offsets_, &bodies_, &lambda_, &prev_offsets_, &prev_bodies_,
         &prev_lambda_},
        vk::groups_for(std::max(n_ + 1, capacity_), kGroup));
    stage_done();
    vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    stats_.dispatches = dispatches;
    return cb;
  }

  void fill_trace(StepTrace& t) const {
    t.predicted_vel = pred_trace_.download<glm::vec4>(n_);
    t.sorted_keys = keys_.download<std::uint32_t>(n_);
    t.sorted_values = values_.download<std::uint32_t>(n_);
    t.cell_start = cell_start_.download<std::uint32_t>(table_);
    t.cell_end = cell_end_.download<std::uint32_t>(table_);
    t.contact_offset = offsets_.download<std::uint32_t>(n_ + 1);
    const std::uint32_t total = stats_.contacts;
    t.contact_bodies = bodies_.download<glm::uvec2>(total);
    t.contact_geom = geom_.download<glm::vec4>(total);
    t.contact_target = target_.download<glm::vec4>(total);
    t.contact_lambda = lambda_.download<glm::vec4>(total);
    t.vel = vel_.download<glm::vec4>(n_);
    t.pos = pos_.download<glm::vec4>(n_);
  }

  vk::Context& ctx_;
  Kernels kernels_;
  vk::Timestamps timestamps_;
  Scene scene_;
  std::uint32_t n_ = 0, capacity_ = 0, table_ = 0;
  StepStats stats_;
  vk::Buffer params_, counters_, pos_, vel_, vel_start_, vel_tmp_, pos_backup_, pred_trace_;
  vk::Buffer material_, keys_, values_, offsets_, cell_start_, cell_end_;
  vk::Buffer bodies_, geom_, target_, lambda_, prev_offsets_, prev_bodies_, prev_lambda_;
  std::unique_ptr<gpu::Scan> scan_;
  std::unique_ptr<gpu::RadixSort> sort_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkCommandBuffer trace_cb_ = VK_NULL_HANDLE;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(vk::Context& ctx) {
  return std::make_unique<GpuBackend>(ctx);
}

}  // namespace vkphys
