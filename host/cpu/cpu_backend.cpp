// The CPU reference backend: the particle step's stages as plain loops over the same kernel
// functions the shaders call (host/cpu/particle_env.h), in the same order, with the CPU twins of
// the GPU sort and scan. Single-threaded on purpose: it is the ground truth, and its loops
// visit elements in index order so every run is bit-identical.
#include <bit>
#include <chrono>
#include <utility>

#include "host/cpu/particle_env.h"
#include "host/cpu/primitives.h"
#include "host/sim/backend.h"
#include "host/sim/step_params.h"

namespace vkphys {
namespace {

using Clock = std::chrono::steady_clock;

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }

  void load(const Scene& scene, std::uint32_t contact_capacity) override {
    scene_ = scene;
    state_ = scene.particles;
    capacity_ = contact_capacity ? contact_capacity : default_contact_capacity(state_.size());
    stats_ = {};
    prev_offsets_.assign(state_.size() + 1, 0u);
    prev_bodies_.clear();
    prev_lambda_.clear();
  }

  void step(StepTrace* trace) override {
    const std::size_t n = state_.size();
    StepParams params = make_step_params(scene_, capacity_);
    stats_.regrows = 0;
    kern::ParticleEnv env;
    env.pos_radius = state_.pos_radius.data();
    env.vel_invmass = state_.vel_invmass.data();
    env.material = state_.material.data();
    auto t = Clock::now();
    auto lap = [&](Stage s) {
      auto now = Clock::now();
      stats_.stage_ms[static_cast<std::size_t>(s)] =
          std::chrono::duration<double, std::milli>(now - t).count();
      t = now;
    };

    vel_start_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      glm::vec4 v = state_.vel_invmass[i];
      vel_start_[i] = v;
      state_.vel_invmass[i] =
          glm::vec4(kern::predict_velocity(glm::vec3(v), v.w, glm::vec3(params.gravity_dt),
                                           params.grid.w, params.gravity_dt.w),
                    v.w);
    }
    if (trace) trace->predicted_vel = state_.vel_invmass;
    lap(Stage::predict);

    keys_.resize(n);
    values_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys_[i] = kern::grid_hash(kern::grid_cell(glm::vec3(state_.pos_radius[i]), params.grid.y),
                                 params.counts.z);
      values_[i] = static_cast<std::uint32_t>(i);
    }
    lap(Stage::hash);
    cpu::radix_sort(keys_, values_, static_cast<std::uint32_t>(std::countr_zero(params.counts.z)));
    lap(Stage::sort);

    cell_start_.assign(params.counts.z, VKPHYS_EMPTY_CELL);
    cell_end_.assign(params.counts.z, VKPHYS_EMPTY_CELL);
    env.params = params;
    env.sort_keys = keys_.data();
    env.sort_values = values_.data();
    env.cell_start = cell_start_.data();
    env.cell_end = cell_end_.data();
    for (std::uint32_t k = 0; k < n; ++k) env.find_cell_range(k);
    lap(Stage::cell_ranges);

    offsets_.assign(n + 1, 0u);
    for (std::uint32_t i = 0; i < n; ++i) offsets_[i] = env.particle_contacts(i, false, 0u);
    lap(Stage::count_contacts);
    std::uint32_t total = cpu::exclusive_scan(offsets_);
    // The CPU knows the total before writing, so it grows before the write instead of redoing.
    if (total > capacity_) {
      capacity_ = grown_contact_capacity(total);
      stats_.regrows = 1;
      params.counts.w = capacity_;
      env.params = params;
    }
    lap(Stage::scan);

    bodies_.resize(total);
    geom_.resize(total);
    target_.resize(total);
    lambda_.resize(total);
    env.contact_offset = offsets_.data();
    env.contact_bodies = bodies_.data();
    env.contact_geom = geom_.data();
    env.contact_target = target_.data();
    env.contact_lambda = lambda_.data();
    for (std::uint32_t i = 0; i < n; ++i) env.particle_contacts(i, true, offsets_[i]);
    lap(Stage::write_contacts);

    env.vel_start = vel_start_.data();
    env.prev_contact_offset = prev_offsets_.data();
    env.prev_contact_bodies = prev_bodies_.data();
    env.prev_contact_lambda = prev_lambda_.data();
    for (std::uint32_t c = 0; c < total; ++c) env.prepare_contact(c);
    lap(Stage::prepare);

    // Pass 0 applies the warm-start impulses, passes 1..iterations are Jacobi sweeps; each
    // reads one velocity array and writes the other, as on the GPU.
    scratch_.resize(n);
    for (std::uint32_t pass = 0; pass <= scene_.settings.solver.iterations; ++pass) {
      env.vel_invmass = state_.vel_invmass.data();
      env.vel_out = scratch_.data();
      for (std::uint32_t b = 0; b < n; ++b) {
        if (pass == 0) {
          env.warm_start_body(b);
        } else {
          env.solve_body(b);
        }
      }
      std::swap(state_.vel_invmass, scratch_);
    }
    lap(Stage::solve);

    for (std::size_t i = 0; i < n; ++i) {
      glm::vec4 p = state_.pos_radius[i];
      state_.pos_radius[i] =
          glm::vec4(kern::integrate_position(glm::vec3(p), glm::vec3(state_.vel_invmass[i]),
                                             params.gravity_dt.w),
                    p.w);
    }
    lap(Stage::integrate);

    prev_offsets_ = offsets_;
    prev_bodies_ = bodies_;
    prev_lambda_ = lambda_;
    stats_.contacts = total;
    stats_.contact_capacity = capacity_;
    if (trace) {
      trace->sorted_keys = keys_;
      trace->sorted_values = values_;
      trace->cell_start = cell_start_;
      trace->cell_end = cell_end_;
      trace->contact_offset = offsets_;
      trace->contact_bodies = bodies_;
      trace->contact_geom = geom_;
      trace->contact_target = target_;
      trace->contact_lambda = lambda_;
      trace->vel = state_.vel_invmass;
      trace->pos = state_.pos_radius;
    }
  }

  void read(Particles& out) const override { out = state_; }
  const StepStats& stats() const override { return stats_; }

 private:
  Scene scene_;
  Particles state_;
  std::uint32_t capacity_ = 0;
  StepStats stats_;
  std::vector<glm::vec4> vel_start_, scratch_, geom_, target_, lambda_, prev_lambda_;
  std::vector<std::uint32_t> keys_, values_, cell_start_, cell_end_, offsets_, prev_offsets_;
  std::vector<glm::uvec2> bodies_, prev_bodies_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace vkphys
