// The CPU reference backend of the world step: the stages of host/sim/backend.h as plain
// loops over the kernel functions the shaders call (host/cpu/world_env.h), in the same order,
// with the CPU twins of the GPU sort and scan, over the arrays of host/cpu/cpu_buffers.h.
// Single-threaded: every run is bit-identical, and the coloured scheme replays the GPU's
// colouring exactly (same passes, same priorities).
//
// Unlike the GPU, the CPU knows the pair and contact counts before it writes them, so an
// overflow grows the buffers and restarts the step at once; the result is the same as the GPU's
// undo-and-redo.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "host/cpu/cpu_buffers.h"
#include "host/cpu/primitives.h"
#include "host/sim/finite.h"
#include "host/sim/ode_control.h"
#include "host/sim/world_setup.h"
#include "kernels/radix.h"

namespace vkphys {
namespace {

using Clock = std::chrono::steady_clock;

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(WarmStart warm) : warm_(warm) {}

  std::string name() const override { return "cpu"; }

  void load(const Scene& scene, std::uint32_t pair_capacity,
            std::uint32_t contact_capacity) override {
    scene_ = scene;
    world_ = build_world(scene);
    cap_ = default_capacities(world_);
    if (pair_capacity) cap_.pairs = pair_capacity;
    if (contact_capacity) cap_.contacts = contact_capacity;
    params_ = make_world_params(scene_, world_, cap_);  // validates before allocating
    carry_warm_start_ =
        warm_ == WarmStart::carried && carries_warm_start(scene_.settings.solver, world_);
    buf_.load(world_, params_, scene_.settings.solver.integrator == Integrator::implicit);
    ode_ = {};
    allocate_lists();
    stats_ = {};
    step_index_ = 0;
  }

  void step(StepTrace* trace) override { steps(1, trace, nullptr); }

  // One at a time, the last (or with after_each every) step filling `trace`; the stage times
  // averaged over the call (StageTimeMean).
  void steps(std::uint32_t n, StepTrace* trace, const std::function<void()>* after_each) override {
    stage_mean_ = {};
    for (std::uint32_t k = 0; k < n; ++k) {
      take_step(after_each || k + 1 == n ? trace : nullptr);
      if (after_each) (*after_each)();
    }
  }

  void read(WorldState& out) const override {
    world_state(scene_, world_.rigid, world_.pos, world_.vel, world_.rot, world_.omega, out);
  }

  const StepStats& stats() const override { return stats_; }

  void write(const WorldState& state) override {
    write_world_state(state, world_.rigid, world_.pos, world_.vel, world_.rot, world_.omega);
  }

  std::uint64_t steps_taken() const override { return step_index_; }

  CarriedState save() const override {
    CarriedState s;
    s.step = step_index_;
    s.pair_capacity = cap_.pairs;
    s.contact_capacity = cap_.contacts;
    s.body_pos = world_.pos;
    s.body_vel = world_.vel;
    s.rigid_rot = world_.rot;
    s.rigid_omega = world_.omega;
    s.joint_lambda = buf_.joint_lambda;
    s.prev_pair_info = buf_.prev_info;
    s.prev_point_lambda = buf_.prev_lambda;
    s.prev_pair_frame = buf_.prev_frame;
    s.prev_pcontact_offsets = buf_.prev_pc_offsets;
    s.prev_pcontact_other = buf_.prev_pc_other;
    s.prev_pcontact_lambda = buf_.prev_pc_lambda;
    s.cg_dv = buf_.cg_dv;
    return s;
  }

  void restore(const Scene& scene, const CarriedState& s) override {
    load(scene, s.pair_capacity, s.contact_capacity);
    check_carried(s, carried_sizes(scene_, world_, cap_));
    world_.pos = s.body_pos;
    world_.vel = s.body_vel;
    world_.rot = s.rigid_rot;
    world_.omega = s.rigid_omega;
    buf_.joint_lambda = s.joint_lambda;
    buf_.prev_info = s.prev_pair_info;
    buf_.prev_lambda = s.prev_point_lambda;
    buf_.prev_frame = s.prev_pair_frame;
    buf_.prev_pc_offsets = s.prev_pcontact_offsets;
    buf_.prev_pc_other = s.prev_pcontact_other;
    buf_.prev_pc_lambda = s.prev_pcontact_lambda;
    buf_.cg_dv = s.cg_dv;
    allocate_lists();  // rebuilds the warm-start table from the restored pairs
    step_index_ = s.step;
  }

  bool check_stages(bool on) override {
    check_stages_ = on;
    return true;
  }

 private:
  // One step: redone at once after a list grew or the adaptive step's error passed its
  // tolerance.
  void take_step(StepTrace* trace) {
    stats_.regrows = 0;
    stats_.ode_redos = 0;
    world_.drive.step(step_index_, buf_.drive_paths, buf_.drive_impulses);
    while (!try_step(trace)) {
      if (ode_redo_) {  // the adaptive step's error passed its tolerance: n doubled, redo
        ode_redo_ = false;
        ++stats_.ode_redos;
        continue;
      }
      ++stats_.regrows;
      allocate_lists();
    }
    stage_mean_.add(step_ms_, stats_.stage_ms);
    ++step_index_;
  }

  // Grows the pair and contact lists; last step's pairs keep their slots (the hash table is
  // rebuilt), last step's particle contacts their places.
  void allocate_lists() {
    params_ = make_world_params(scene_, world_, cap_);
    buf_.size_lists(world_, params_, cap_, scene_.settings.solver.scheme == SolverScheme::colored);
    uncoloured_.reserve(params_.coloring.w);
    kern::WorldEnv env = make_env();
    for (std::uint32_t q = 0; q < cap_.pairs; ++q) env.hash_insert_pair(q, true);
  }

  kern::WorldEnv make_env() { return buf_.env(params_, world_); }

  // One sweep of every unit, in the scheme's order.
  void sweep(kern::WorldEnv& e, std::uint32_t kind) {
    const std::uint32_t units = e.unit_count();
    switch (scene_.settings.solver.scheme) {
      case SolverScheme::sequential: {
        // Contacts first, then the joints (units 0 .. joints), so that a joint's limit rows see
        // this sweep's contact impulses: with the joints first, a limb hitting the floor is bent
        // past its limit by the contacts after every limit row's update. Seed 004's rag-doll at
        // its own 30 Hz (1 x 2): the elbow 0.48-0.49 rad past its limit on landing, 0.12 with
        // this order (the coloured scheme, whose colours mix the two: 0.13).
        const std::uint32_t joints = world_.joints();
        if (kind == kern::KIND_IMPACT) {
          for (std::uint32_t u = joints; u < units; ++u) e.unit_in_place(u, kind);
        } else {
          e.sweep_planned_lanes(lane_plan_.data(), lane_plan_entries_, kind, lane_parts_.data(),
                                lane_parts_at_.data());
        }
        for (std::uint32_t u = 0; u < joints; ++u) e.unit_in_place(u, kind);
        break;
      }
      case SolverScheme::colored: {
        // Colour by colour (each colour's lists: joints and pairs, then particle contacts),
        // then the overflow colour's passes: its units on split copies and their bodies'
        // averages (kern::overflow_passes).
        const std::uint32_t overflow = 2 * params_.coloring.x;
        for (std::uint32_t list = 0; list < overflow; ++list) {
          e.colour_in_lanes(buf_.values.data() + e.counters.color_start[list], 0,
                            e.counters.color_end[list] - e.counters.color_start[list], kind, false);
        }
        if (overflow_bodies_.empty()) break;
        for (std::uint32_t pass = 0; pass < kern::overflow_passes(kind); ++pass) {
          for (std::uint32_t list = overflow; list < overflow + 2; ++list) {
            e.colour_in_lanes(buf_.values.data() + e.counters.color_start[list], 0,
                              e.counters.color_end[list] - e.counters.color_start[list], kind,
                              true);
          }
          for (const std::uint32_t b : overflow_bodies_) e.jacobi_body(b, kind);
        }
        break;
      }
      case SolverScheme::jacobi:
        e.colour_in_lanes(nullptr, 0, units, kind, true);
        for (std::uint32_t b = 0; b < world_.bodies(); ++b) e.jacobi_body(b, kind);
        break;
    }
    if (kind == kern::KIND_SOLVE || kind == kern::KIND_VELOCITY) {
      for (std::uint32_t t = 0; t < world_.trees(); ++t) e.joint_tree_solve(t, kind);
    }
  }

  // Each phase's rows as unit_targets left them: the targets, then the trees' factors.
  void targets(kern::WorldEnv& e, std::uint32_t phase) {
    for (std::uint32_t u = 0; u < e.unit_count(); ++u) e.unit_targets(u, phase);
    for (std::uint32_t t = 0; t < world_.trees(); ++t) e.joint_tree_factor(t);
  }

  // A sweep of kind `first` (unless KIND_NONE), then `count` of kind `kind`; `last`: they end
  // the step's solve, and the last of them measures the solver residual (world_units.inl).
  void sweeps(kern::WorldEnv& e, std::uint32_t first, std::uint32_t kind, std::uint32_t count,
              bool last) {
    const std::uint32_t total = count + (first != kern::KIND_NONE ? 1u : 0u);
    for (std::uint32_t s = 0; s < total; ++s) {
      const bool measure = last && s + 1 == total;
      if (measure) {
        for (std::uint32_t i = 0; i < world_.bodies(); ++i) e.body_keep_reference(i);
      }
      sweep(e, s == 0 && first != kern::KIND_NONE ? first : kind);
      if (measure) {
        for (std::uint32_t i = 0; i < world_.bodies(); ++i) e.body_residual(i);
      }
    }
  }

  // A substep's solve: its warm start, then the iterations. With the warm start carried
  // (kernels/world_units.inl) a later substep's predict applied it, and the first substep keeps
  // the velocities its solve starts from for the next one's carry.
  void solve(kern::WorldEnv& e, std::uint32_t kind, bool last, std::uint32_t sub) {
    if (carry_warm_start_ && sub == 0) {
      for (std::uint32_t i = 0; i < world_.bodies(); ++i) e.body_keep_reference(i);
    }
    const std::uint32_t warm = carry_warm_start_ && sub > 0 ? kern::KIND_NONE : kern::KIND_WARM;
    sweeps(e, warm, kind, scene_.settings.solver.iterations, last);
  }

  // The sweep over rigid bodies sorted by min x (and with slabs then by slab, stably): walk
  // lengths and their scan, then the work items' pairs, each item's from the running total of
  // those before it: the offsets and pairs the GPU's count, scan and write give (sweep_count,
  // sweep_write), in one pass over the walks instead of two, as particle_contacts_in_one_walk
  // does for the grid. A pair past the capacity is counted and not stored.
  void sweep_and_prune(kern::WorldEnv& e) {
    const std::uint32_t n = world_.bodies();
    std::fill(buf_.offsets.begin(), buf_.offsets.end(), 0u);
    if (world_.sweepers == 0) return;
    cpu::radix_sort(std::span(buf_.keys).first(n), std::span(buf_.values).first(n), 32);
    if (params_.sweep.x != 0.0f) {
      for (std::uint32_t s = 0; s < n; ++s) e.sweep_slab_key(s);
      cpu::radix_sort(std::span(buf_.keys).first(n), std::span(buf_.values).first(n),
                      VKPHYS_SWEEP_SLAB_BITS);
    }
    for (std::uint32_t s = 0; s < n; ++s) e.sweep_walk_length(s);
    cpu::exclusive_scan(buf_.walk);
    std::uint32_t total = 0;
    for (std::uint32_t w = 0; w < n; ++w) {
      buf_.offsets[w] = total;
      total = kern::saturating_add(total, e.sweep_pairs(w, true, total));
    }
    buf_.offsets[n] = total;
  }

  // The particle grid's cells: each bucket's range of the particles sorted by cell.
  void particle_grid(kern::WorldEnv& e) {
    const std::uint32_t p = world_.particles();
    std::fill(buf_.pc_offsets.begin(), buf_.pc_offsets.end(), 0u);
    if (!world_.particle_contacts) return;
    for (std::uint32_t k = 0; k < p; ++k) e.grid_hash_particle(k);
    const auto bits = static_cast<std::uint32_t>(std::bit_width(params_.kinds.w - 1u));
    cpu::radix_sort(std::span(buf_.grid_keys), std::span(buf_.grid_values), bits);
    std::fill(buf_.cell_start.begin(), buf_.cell_start.end(), VKPHYS_EMPTY_CELL);
    for (std::uint32_t k = 0; k < p; ++k) e.grid_cell_range(k);
  }

  // The particle contacts, particle by particle, each from the running total of those before
  // it: the offsets and contacts the GPU's count, scan and write give (grid_count, grid_write),
  // in one walk of the grid instead of two, since one thread's running total is the scan. A
  // contact past the capacity is counted and not stored, as there, and the step is redone
  // (finalize_lists).
  void particle_contacts_in_one_walk(kern::WorldEnv& e) {
    const std::uint32_t p = world_.particles();
    std::uint32_t total = 0;
    for (std::uint32_t k = 0; k < p; ++k) {
      buf_.pc_offsets[k] = total;
      // Saturating at VKPHYS_SCAN_LIMIT, as cpu::exclusive_scan and the GPU's scan do.
      total = kern::saturating_add(total, e.particle_contacts(k, true, total));
    }
    buf_.pc_offsets[p] = total;
  }

  // One ODE pass over its invocations, as the GPU's dispatch of shaders/world_ode.comp.
  auto ode_pass_runner(kern::WorldEnv& e) {
    return [&e, this](std::uint32_t mode, std::uint32_t s, float h, std::uint32_t role) {
      // After convergence the GPU's recorded iterations are no-ops.
      if (kern::cg_iteration_pass(mode, s) && e.cg_idle()) return;
      const std::uint32_t count =
          kern::ode_pass_invocations(mode, world_.particles(), params_.lines.y + params_.lines.z);
      const bool sums = kern::cg_pass_sums(mode);
      if (kern::cg_pass_step(mode)) e.cg_begin_pass(mode);
      // A chunk's sums after its last particle (the GPU's workgroup).
      const std::uint32_t chunk = sums ? VKPHYS_CG_CHUNK : count;
      for (std::uint32_t first = 0; first < count; first += chunk) {
        const std::uint32_t end = std::min(count, first + chunk);
        for (std::uint32_t x = first; x < end; ++x) e.ode_pass(mode, x, s, h, role);
        if (sums) e.cg_chunk_sum(mode, first / VKPHYS_CG_CHUNK);
      }
    };
  }

  // The particles' forces before each (sub)step's solve: symplectic Euler's spring and wind term
  // (then body_predict adds it), or body_predict and the explicit method's n ODE steps (kernels/
  // world_ode.inl; with step doubling each is one step of h and two of h / 2), or the implicit
  // method's linear solve (kernels/world_implicit.inl). In a substep after the first (`sub` > 0)
  // body_predict_carrying when the warm start is carried (kernels/world_units.inl).
  void predict_forces(kern::WorldEnv& e, std::uint32_t sub) {
    const std::uint32_t n = world_.bodies(), r = world_.rigid;
    const SolverSettings& sv = scene_.settings.solver;
    if (sv.integrator == Integrator::symplectic && world_.particle_forces()) {
      for (std::uint32_t i = r; i < n; ++i) e.spring_force_pass(i);
    }
    if (sub > 0 && carry_warm_start_) {
      for (std::uint32_t i = 0; i < n; ++i) e.body_predict_carrying(i);
    } else {
      for (std::uint32_t i = 0; i < n; ++i) {
        e.body_predict(i, true);
        if (sub == 0) e.note_nonfinite_velocity(i, kern::STAGE_PREDICT);  // as BODY_PREDICT's
      }
    }
    if (sv.integrator == Integrator::symplectic || r == n) return;
    ode_.for_each_pass(sv, params_.gravity_dt.w, sub, ode_pass_runner(e));
  }

  // Returns false (having changed nothing but the capacities, or the adaptive step's n) when a
  // list does not fit or the adaptive step's error passed its tolerance.
  bool try_step(StepTrace* trace) {
    const std::uint32_t n = world_.bodies();
    kern::WorldEnv e = make_env();
    const bool adaptive = ode_.adaptive(scene_.settings.solver);
    if (adaptive) {  // the state a redo starts from (what the GPU backend copies aside)
      saved_pos_ = world_.pos;
      saved_vel_ = world_.vel;
      saved_rot_ = world_.rot;
      saved_omega_ = world_.omega;
      saved_joint_lambda_ = buf_.joint_lambda;
    }
    auto t = Clock::now();
    auto lap = [&](Stage s) {
      auto now = Clock::now();
      step_ms_[static_cast<std::size_t>(s)] =
          std::chrono::duration<double, std::milli>(now - t).count();
      if (check_stages_) check_finite(s);
      t = now;
    };
    for (std::uint32_t i = 0; i < n; ++i) e.body_setup(i);
    if ((e.params.modes.w & VKPHYS_FLAG_SPECULATIVE_REACH) != 0u) {
      for (std::uint32_t i = 0; i < n; ++i) e.body_reach_setup(i);  // as the GPU's own pass
    }
    lap(Stage::setup);
    sweep_and_prune(e);
    particle_grid(e);
    // The pairs' totals first: a particle contact's unit follows the stored pairs (both lists
    // past their capacities grow in one redo, as on the GPU).
    e.finalize_lists();
    if (world_.particle_contacts) {
      particle_contacts_in_one_walk(e);
      e.finalize_lists();
    }
    if (e.counters.overflow) {
      cap_ = grown_capacities(cap_, e.counters.pairs, e.counters.pcontacts, world_.joints());
      return false;
    }
    lap(Stage::broadphase);
    const std::uint32_t pairs = e.stored_pairs();
    for (std::uint32_t q = 0; q < pairs; ++q) e.add_narrowphase_counts(e.narrowphase_pair(q));
    lap(Stage::narrowphase);
    color_or_incidence(e);
    lap(Stage::coloring);
    e.apply_impulses();
    for (std::uint32_t k = 0; k < world_.drive.paths(); ++k) e.drive_path_velocity(k);
    if (OdeControl::marks_held(scene_.settings.solver)) {
      for (std::uint32_t u = 0; u < params_.coloring.w; ++u) e.ode_mark_unit(u);
    }
    predict_forces(e, 0);
    if (trace) {
      trace->predicted_vel = world_.vel;
      trace->predicted_omega = world_.omega;
    }
    if (scene_.settings.solver.restitution == RestitutionModel::newton) {
      sweeps(e, kern::KIND_NONE, kern::KIND_IMPACT, scene_.settings.solver.impact_passes, false);
      for (std::uint32_t i = 0; i < n; ++i) e.note_nonfinite_velocity(i, kern::STAGE_PREDICT);
    }
    lap(Stage::predict);
    const std::uint32_t units = e.unit_count();
    // One pass: a unit's targets need only its own preparation (the GPU runs them as two
    // dispatches). With its rows still in cache, 10k boxes prepare in 2.9 ms instead of 3.1.
    for (std::uint32_t u = 0; u < units; ++u) {
      e.prepare_unit(u);
      e.unit_targets(u, kern::PHASE_SOLVE);
    }
    for (std::uint32_t k = 0; k < world_.trees(); ++k) e.joint_tree_factor(k);
    if (scene_.settings.solver.scheme == SolverScheme::sequential) {
      lane_parts_.resize(3 * kern::wide::kLanes * std::size_t{lane_plan_entries_});
      lane_parts_at_.resize(lane_plan_entries_);
      e.gather_plan_row_parts(lane_plan_.data(), lane_plan_entries_, lane_parts_.data(),
                              lane_parts_at_.data());
    }
    lap(Stage::prepare);
    const SolverSettings& sv = scene_.settings.solver;
    for (std::uint32_t sub = 0; sub < sv.substeps; ++sub) {
      if (sub > 0) {
        predict_forces(e, sub);
        targets(e, kern::PHASE_SOLVE);
      }
      // The step's last sweep measures the solver residual.
      const bool last_sub = sub + 1 == sv.substeps, relax = sv.relax_iterations > 0;
      solve(e, kern::KIND_SOLVE, last_sub && !sv.split_impulse && !relax, sub);
      if (sv.split_impulse) {
        for (std::uint32_t i = 0; i < n; ++i) e.body_save_position_velocity(i);
        for (std::uint32_t i = 0; i < n; ++i) e.body_predict(i, false);
        targets(e, kern::PHASE_VELOCITY);
        solve(e, kern::KIND_VELOCITY, last_sub && !relax, sub);
      }
      if (OdeControl::limits_strain(sv)) {
        OdeControl::for_each_strain_pass(sv, params_.gravity_dt.w, ode_pass_runner(e));
      }
      for (std::uint32_t i = 0; i < n; ++i) e.body_integrate(i);
      if (relax) {
        targets(e, kern::PHASE_RELAX);
        sweeps(e, kern::KIND_NONE, kern::KIND_VELOCITY, sv.relax_iterations, last_sub);
      }
    }
    lap(Stage::solve);
    // Nothing is committed yet: a rejected adaptive step restores its start and is redone.
    const float error = std::bit_cast<float>(e.counters.ode_error);
    if (adaptive && ode_.redo(sv, error)) {
      world_.pos = saved_pos_;
      world_.vel = saved_vel_;
      world_.rot = saved_rot_;
      world_.omega = saved_omega_;
      buf_.joint_lambda = saved_joint_lambda_;
      ode_redo_ = true;
      return false;
    }
    // After the adaptive step's redo, which may stay finite at a smaller step: the step's own
    // check (flag_nonfinite).
    if (e.counters.nonfinite != 0u)
      throw NonFiniteState::found_by_step(e.counters.nonfinite, false);
    stats_.ode_steps = sv.integrator == Integrator::symplectic ? 0u : ode_.steps;
    stats_.ode_error = error;
    ode_.relax(sv, error);
    for (std::uint32_t q = 0; q < cap_.pairs; ++q) e.commit_pair(q);
    for (std::uint32_t s = 0; s < params_.counts.w; ++s) e.hash_clear(s, false);
    for (std::uint32_t q = 0; q < cap_.pairs; ++q) e.hash_insert_pair(q, false);
    const std::uint32_t contacts = e.stored_pcontacts();
    for (std::uint32_t c = 0; c < contacts; ++c) e.commit_pcontact(c);
    // Without particle contacts the offsets stay the zeros they were loaded with.
    if (world_.particle_contacts) {
      for (std::uint32_t k = 0; k <= world_.particles(); ++k) e.commit_pcontact_offset(k);
    }
    for (std::uint32_t k = 0; k < world_.drive.paths(); ++k) e.drive_path_pose(k);
    if (trace) fill_trace(*trace, pairs, contacts);
    lap(Stage::integrate);
    fill_world_stats(e.counters, scene_, world_, cap_, stats_);
    return true;
  }

  // Throws NonFiniteState for the first body with a NaN or infinite position, velocity,
  // orientation or angular velocity.
  void check_finite(Stage stage) const {
    for (std::uint32_t i = 0; i < world_.bodies(); ++i) {
      const bool rigid = i < world_.rigid;
      if (!finite(world_.pos[i]) || !finite(world_.vel[i]) ||
          (rigid && (!finite(world_.rot[i]) || !finite(world_.omega[i])))) {
        throw NonFiniteState(stage, i, false);
      }
    }
  }

  // Every pass over the live units, as the GPU's (world_color.comp): the sorts read them alone.
  void color_or_incidence(kern::WorldEnv& e) {
    const std::uint32_t live = e.unit_count();
    const SolverScheme scheme = scene_.settings.solver.scheme;
    if (scheme == SolverScheme::colored) {
      std::fill_n(buf_.color.begin(), 2 * world_.bodies(), 0u);  // not the joints' colours
      for (std::uint32_t u = 0; u < live; ++u)
        if (e.color_init(u)) e.list_uncolored(u);
      // The passes over the units color_init listed as uncoloured (a coloured or inactive unit
      // neither proposes nor assigns), dropping those each pass colours, and only while there
      // are some: a pass's result does not depend on the order its units run in, so the
      // colouring is the GPU's. Over every live unit, the passes took 8.6 of a 64 x 64 cloth's
      // 22 ms step (22 colours).
      const std::uint32_t sub = params_.coloring.y;
      uncoloured_.assign(buf_.values.begin(), buf_.values.begin() + e.counters.uncolored);
      for (std::uint32_t c = 0; c < params_.coloring.x && !uncoloured_.empty(); ++c) {
        for (std::uint32_t k = 0; k < sub; ++k) {
          const std::uint32_t pass = c * sub + k + 1;
          for (const std::uint32_t u : uncoloured_) e.color_propose(u, c, pass);
          for (const std::uint32_t u : uncoloured_) e.color_assign(u, c, pass);
          std::erase_if(uncoloured_,
                        [&](std::uint32_t u) { return buf_.unit_color[u] != VKPHYS_UNCOLORED; });
        }
      }
      for (std::uint32_t u = 0; u < live; ++u) e.color_key(u);
      cpu::radix_sort(std::span(buf_.keys).first(live), std::span(buf_.values).first(live), 6);
      for (std::uint32_t s = 0; s < live; ++s) e.color_range(s);
      e.color_groups(params_.coloring.x);
      for (std::uint32_t s = 0; s < live; ++s) e.pcontact_gather(s);
      const std::uint32_t contacts = e.stored_pcontacts();
      for (std::uint32_t c = 0; c < contacts; ++c) e.pcontact_settle(c);
      overflow_incidence(e);
    } else if (scheme == SolverScheme::sequential) {
      // The sweeps' plan (host/cpu/manifold_lanes.inl): the contacts' order, manifolds paired.
      const std::uint32_t joints = world_.joints(), count = e.unit_count() - joints;
      lane_plan_.resize(count);
      lane_taken_.resize(count);
      lane_held_.resize(world_.bodies());
      lane_plan_entries_ = e.plan_sequential_lanes(joints, count, lane_plan_.data(),
                                                   lane_taken_.data(), lane_held_.data());
    } else if (scheme == SolverScheme::jacobi) {
      for (std::uint32_t k = 0; k < 2 * live; ++k) e.incidence_key(k);
      const auto bits = static_cast<std::uint32_t>(std::bit_width(world_.bodies()));
      cpu::radix_sort(std::span(buf_.keys).first(2 * live), std::span(buf_.values).first(2 * live),
                      bits);
      std::fill(buf_.range.begin(), buf_.range.end(), glm::uvec2(0u));
      for (std::uint32_t s = 0; s < 2 * live; ++s) e.incidence_range(s);
    }
  }

  // The overflow colour's per-body incidence (world_coloring.inl, the GPU's passes in order),
  // only when it holds units: with none, no unit is split and the ranges are never read.
  void overflow_incidence(kern::WorldEnv& e) {
    const std::uint32_t list = 2 * params_.coloring.x, n = world_.bodies();
    overflow_bodies_.clear();
    if (e.color_list_size(list) + e.color_list_size(list + 1) == 0) return;
    std::fill_n(buf_.color.begin(), 2 * world_.bodies(), 0u);  // not the joints' colours
    for (std::uint32_t k = list; k <= list + 1; ++k) {
      for (std::uint32_t t = 0; t < e.color_list_size(k); ++t) e.overflow_count(k, t);
    }
    cpu::exclusive_scan(std::span(buf_.color).first(n + 1));
    for (std::uint32_t k = list; k <= list + 1; ++k) {
      for (std::uint32_t t = 0; t < e.color_list_size(k); ++t) e.overflow_fill(k, t);
    }
    for (std::uint32_t b = 0; b < n; ++b) {
      e.overflow_order(b);
      if (buf_.range[b].y > buf_.range[b].x) overflow_bodies_.push_back(b);
    }
  }

  void fill_trace(StepTrace& t, std::uint32_t pairs, std::uint32_t contacts) const {
    t.pairs.assign(buf_.pair_info.begin(), buf_.pair_info.begin() + pairs);
    t.normals.assign(buf_.pair_normal.begin(), buf_.pair_normal.begin() + pairs);
    t.points.assign(buf_.point_geom.begin(), buf_.point_geom.begin() + 4 * pairs);
    t.lambdas.assign(buf_.point_lambda.begin(), buf_.point_lambda.begin() + 4 * pairs);
    t.colors.assign(buf_.unit_color.begin(),
                    buf_.unit_color.begin() + world_.joints() + pairs + contacts);
    t.joint_lambda = buf_.joint_lambda;
    t.pcontact_bodies.assign(buf_.pc_bodies.begin(), buf_.pc_bodies.begin() + contacts);
    t.pcontact_geom.assign(buf_.pc_geom.begin(), buf_.pc_geom.begin() + contacts);
    t.pcontact_lambda.assign(buf_.pc_lambda.begin(), buf_.pc_lambda.begin() + contacts);
    t.split_range = buf_.range;
  }

  const WarmStart warm_;
  bool carry_warm_start_ = false;  // WarmStart::carried and carries_warm_start, set at load
  Scene scene_;
  WorldArrays world_;
  kern::WorldParams params_{};
  Capacities cap_;
  StepStats stats_;
  std::uint64_t step_index_ = 0;  // steps taken since load (the drive schedule's clock)
  bool check_stages_ = false;     // check_stages: look for NaN and infinity after each stage
  std::array<double, kStageCount> step_ms_{};  // the step's stage times (try_step's laps)
  StageTimeMean stage_mean_;                   // the call's (StepStats::stage_ms)
  OdeControl ode_;         // the explicit integrators' n (host/sim/ode_control.h)
  bool ode_redo_ = false;  // try_step returned false for the adaptive step, not a list
  // The bodies the overflow colour touches this step: the sweeps average only these (each on
  // its own, so in any order; the GPU runs every body, the others' ranges empty).
  std::vector<std::uint32_t> overflow_bodies_;
  // The sequential scheme's sweep plan for the step (host/cpu/manifold_lanes.inl).
  std::vector<glm::uvec4> lane_plan_;
  std::vector<unsigned char> lane_taken_;
  std::vector<std::uint32_t> lane_held_;
  std::uint32_t lane_plan_entries_ = 0;
  // The plan's groups' row parts, gathered once a step (manifold_lanes.inl), and where each
  // plan entry's parts start.
  std::vector<kern::wide::RowParts> lane_parts_;
  std::vector<std::uint32_t> lane_parts_at_;
  std::vector<glm::vec4> saved_pos_, saved_vel_, saved_rot_, saved_omega_, saved_joint_lambda_;
  std::vector<std::uint32_t> uncoloured_;  // the colouring's units still to colour
  CpuBuffers buf_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(WarmStart warm) {
  return with_particle_order(std::make_unique<CpuBackend>(warm));
}

}  // namespace vkphys
