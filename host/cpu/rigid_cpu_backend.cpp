// The CPU reference backend for rigid bodies: the stages of host/sim/rigid_backend.h as plain
// loops over the kernel functions the shaders call (host/cpu/rigid_env.h), in the same order,
// with the CPU twins of the GPU sort and scan. Single-threaded: every run is bit-identical, and
// the coloured scheme replays the GPU's colouring exactly (same passes, same priorities).
//
// Unlike the GPU, the CPU knows the pair count before it writes pairs, so an overflow grows the
// buffers and restarts the step at once; the result is the same as the GPU's undo-and-redo.
#include <algorithm>
#include <bit>
#include <chrono>
#include <stdexcept>

#include "host/cpu/primitives.h"
#include "host/cpu/rigid_env.h"
#include "host/sim/rigid_setup.h"

namespace vkphys {
namespace {

using Clock = std::chrono::steady_clock;

class CpuRigidBackend final : public RigidBackend {
 public:
  std::string name() const override { return "cpu"; }

  void load(const Scene& scene, std::uint32_t pair_capacity) override {
    scene_ = scene;
    world_ = build_rigid_world(scene);
    const std::size_t n = world_.bodies();
    capacity_ = pair_capacity ? pair_capacity : default_pair_capacity(world_.bodies());
    params_ = make_rigid_params(scene_, world_, capacity_);  // validates before allocating
    start_.assign(2 * n, glm::vec4(0.0f));
    iinv_.assign(3 * n, glm::vec4(0.0f));
    aabb_.assign(2 * n, glm::vec4(0.0f));
    vel_pos_.assign(2 * n, glm::vec4(0.0f));
    color_.assign(2 * n, 0u);
    range_.assign(n, glm::uvec2(0u));
    joint_rows_.assign(4 * VKPHYS_JOINT_ROWS * world_.joints(), glm::vec4(0.0f));
    joint_lambda_.assign(2 * world_.joints(), glm::vec4(0.0f));
    prev_info_.clear();
    prev_lambda_.clear();
    allocate_pairs();
    stats_ = {};
  }

  void step(RigidTrace* trace) override {
    stats_.regrows = 0;
    while (!try_step(trace)) {
      capacity_ = grown_pair_capacity(pairs_wanted_);
      ++stats_.regrows;
      allocate_pairs();
    }
    stats_.pair_capacity = capacity_;
  }

  void read(RigidState& out) const override {
    out.pos = world_.pos;
    out.rot = world_.rot;
    out.vel = world_.vel;
    out.omega = world_.omega;
  }

  const RigidStats& stats() const override { return stats_; }

 private:
  // Grows the pair buffers; last step's pairs keep their slots, the hash table is rebuilt.
  void allocate_pairs() {
    params_ = make_rigid_params(scene_, world_, capacity_);
    const std::size_t p = capacity_;
    const std::size_t units = world_.joints() + p;
    pair_info_.assign(p, glm::uvec4(0u));
    pair_normal_.assign(p, glm::vec4(0.0f));
    point_geom_.assign(4 * p, glm::vec4(0.0f));
    point_lambda_.assign(4 * p, glm::vec4(0.0f));
    point_prep_.assign(16 * p, glm::vec4(0.0f));
    prev_info_.resize(p, glm::uvec4(0u));
    prev_lambda_.resize(8 * p, glm::vec4(0.0f));
    hash_.assign(params_.counts.w, VKPHYS_EMPTY_SLOT);
    unit_color_.assign(units, 0u);
    unit_dv_.assign(4 * units, glm::vec4(0.0f));
    const std::size_t sort = std::max<std::size_t>(world_.bodies(), 2 * units);
    keys_.assign(sort, 0u);
    values_.assign(sort, 0u);
    offsets_.assign(world_.bodies() + 1, 0u);
    kern::RigidEnv env = make_env();
    for (std::uint32_t q = 0; q < capacity_; ++q) env.hash_insert_pair(q, true);
  }

  kern::RigidEnv make_env() {
    kern::RigidEnv e;
    e.params = params_;
    e.body_pos = world_.pos.data();
    e.body_rot = world_.rot.data();
    e.body_vel = world_.vel.data();
    e.body_omega = world_.omega.data();
    e.body_start = start_.data();
    e.body_iinv = iinv_.data();
    e.body_inertia = world_.inertia.data();
    e.body_shape = world_.shape.data();
    e.body_dims = world_.dims.data();
    e.body_aabb = aabb_.data();
    e.body_vel_pos = vel_pos_.data();
    e.body_color = color_.data();
    e.body_range = range_.data();
    e.sort_keys = keys_.data();
    e.sort_values = values_.data();
    e.pair_offsets = offsets_.data();
    e.pair_info = pair_info_.data();
    e.pair_normal = pair_normal_.data();
    e.point_geom = point_geom_.data();
    e.point_lambda = point_lambda_.data();
    e.point_prep = point_prep_.data();
    e.prev_pair_info = prev_info_.data();
    e.prev_point_lambda = prev_lambda_.data();
    e.prev_hash = hash_.data();
    e.joint_info = world_.joint_info.data();
    e.joint_frames = world_.joint_frames.data();
    e.joint_rows = joint_rows_.data();
    e.joint_lambda = joint_lambda_.data();
    e.unit_color = unit_color_.data();
    e.unit_dv = unit_dv_.data();
    return e;
  }

  // One sweep of every unit, in the scheme's order.
  void sweep(kern::RigidEnv& e, std::uint32_t kind) {
    const std::uint32_t units = e.unit_count();
    switch (scene_.settings.solver.scheme) {
      case SolverScheme::sequential:
        for (std::uint32_t u = 0; u < units; ++u) e.unit_in_place(u, kind);
        break;
      case SolverScheme::colored:
        for (std::uint32_t c = 0; c <= params_.coloring.x; ++c) {
          for (std::uint32_t s = e.counters.color_start[c]; s < e.counters.color_end[c]; ++s) {
            e.unit_in_place(values_[s], kind);
          }
        }
        break;
      case SolverScheme::jacobi:
        for (std::uint32_t u = 0; u < units; ++u) e.jacobi_unit(u, kind);
        for (std::uint32_t b = 0; b < world_.bodies(); ++b) e.jacobi_body(b);
        break;
    }
  }

  void solve(kern::RigidEnv& e, std::uint32_t kind) {
    sweep(e, RIGID_KIND_WARM);
    for (std::uint32_t it = 0; it < scene_.settings.solver.iterations; ++it) sweep(e, kind);
  }

  // Returns false (having changed nothing) when the pairs do not fit.
  bool try_step(RigidTrace* trace) {
    const std::uint32_t n = world_.bodies();
    kern::RigidEnv e = make_env();
    auto t = Clock::now();
    auto lap = [&](RigidStage s) {
      auto now = Clock::now();
      stats_.stage_ms[static_cast<std::size_t>(s)] =
          std::chrono::duration<double, std::milli>(now - t).count();
      t = now;
    };
    for (std::uint32_t i = 0; i < n; ++i) e.body_setup(i);
    lap(RigidStage::setup);
    cpu::radix_sort(std::span(keys_).first(n), std::span(values_).first(n), 32);
    for (std::uint32_t s = 0; s < n; ++s) e.sweep_count(s);
    offsets_[n] = 0;
    cpu::exclusive_scan(offsets_);
    e.sweep_finalize();
    if (e.counters.overflow) {
      pairs_wanted_ = e.counters.pairs;
      return false;
    }
    for (std::uint32_t s = 0; s < n; ++s) e.sweep_write(s);
    lap(RigidStage::broadphase);
    const std::uint32_t pairs = e.stored_pairs();
    for (std::uint32_t p = 0; p < pairs; ++p) e.narrowphase_pair(p);
    lap(RigidStage::narrowphase);
    color_or_incidence(e);
    lap(RigidStage::coloring);
    if (scene_.settings.solver.restitution == RestitutionModel::newton) {
      sweep(e, RIGID_KIND_IMPACT);
    }
    for (std::uint32_t i = 0; i < n; ++i) e.body_predict(i, true);
    if (trace) {
      trace->predicted_vel = world_.vel;
      trace->predicted_omega = world_.omega;
    }
    lap(RigidStage::predict);
    const std::uint32_t units = e.unit_count();
    for (std::uint32_t u = 0; u < units; ++u) e.prepare_unit(u);
    lap(RigidStage::prepare);
    const bool split = scene_.settings.solver.split_impulse;
    solve(e, RIGID_KIND_SOLVE);
    if (split) {
      for (std::uint32_t i = 0; i < n; ++i) e.body_save_position_velocity(i);
      for (std::uint32_t i = 0; i < n; ++i) e.body_predict(i, false);
      solve(e, RIGID_KIND_VELOCITY);
    }
    lap(RigidStage::solve);
    for (std::uint32_t p = 0; p < capacity_; ++p) e.commit_pair(p);
    for (std::uint32_t s = 0; s < params_.counts.w; ++s) e.hash_clear(s, false);
    for (std::uint32_t p = 0; p < capacity_; ++p) e.hash_insert_pair(p, false);
    for (std::uint32_t i = 0; i < n; ++i) e.body_integrate(i);
    if (trace) fill_trace(*trace, pairs);
    lap(RigidStage::integrate);
    fill_rigid_stats(e.counters, scene_, world_, capacity_, stats_);
    return true;
  }

  void color_or_incidence(kern::RigidEnv& e) {
    const std::uint32_t units = params_.coloring.w;
    const SolverScheme scheme = scene_.settings.solver.scheme;
    if (scheme == SolverScheme::colored) {
      std::fill(color_.begin(), color_.end(), 0u);
      for (std::uint32_t u = 0; u < units; ++u) e.color_init(u);
      const std::uint32_t sub = params_.coloring.y;
      for (std::uint32_t c = 0; c < params_.coloring.x; ++c) {
        for (std::uint32_t k = 0; k < sub; ++k) {
          const std::uint32_t pass = c * sub + k + 1;
          for (std::uint32_t u = 0; u < units; ++u) e.color_propose(u, c, pass);
          for (std::uint32_t u = 0; u < units; ++u) e.color_assign(u, c, pass);
        }
      }
      for (std::uint32_t u = 0; u < units; ++u) e.color_key(u);
      cpu::radix_sort(std::span(keys_).first(units), std::span(values_).first(units), 5);
      for (std::uint32_t s = 0; s < units; ++s) e.color_range(s);
      e.color_groups(params_.coloring.x);
    } else if (scheme == SolverScheme::jacobi) {
      for (std::uint32_t k = 0; k < 2 * units; ++k) e.incidence_key(k);
      const auto bits = static_cast<std::uint32_t>(std::bit_width(world_.bodies()));
      cpu::radix_sort(std::span(keys_).first(2 * units), std::span(values_).first(2 * units), bits);
      std::fill(range_.begin(), range_.end(), glm::uvec2(0u));
      for (std::uint32_t s = 0; s < 2 * units; ++s) e.incidence_range(s);
    }
  }

  void fill_trace(RigidTrace& t, std::uint32_t pairs) const {
    t.pairs.assign(pair_info_.begin(), pair_info_.begin() + pairs);
    t.normals.assign(pair_normal_.begin(), pair_normal_.begin() + pairs);
    t.points.assign(point_geom_.begin(), point_geom_.begin() + 4 * pairs);
    t.lambdas.assign(point_lambda_.begin(), point_lambda_.begin() + 4 * pairs);
    t.colors.assign(unit_color_.begin(), unit_color_.begin() + world_.joints() + pairs);
    t.joint_lambda = joint_lambda_;
  }

  Scene scene_;
  RigidWorld world_;
  kern::RigidParams params_{};
  std::uint32_t capacity_ = 0, pairs_wanted_ = 0;
  RigidStats stats_;
  std::vector<glm::vec4> start_, iinv_, aabb_, vel_pos_, pair_normal_, point_geom_, point_lambda_,
      point_prep_, prev_lambda_, joint_rows_, joint_lambda_, unit_dv_;
  std::vector<glm::uvec4> pair_info_, prev_info_;
  std::vector<glm::uvec2> range_;
  std::vector<std::uint32_t> color_, keys_, values_, offsets_, hash_, unit_color_;
};

}  // namespace

std::unique_ptr<RigidBackend> make_cpu_rigid_backend() {
  return std::make_unique<CpuRigidBackend>();
}

}  // namespace vkphys
