// The step's command buffer (host/gpu/step_recording.h), stage by stage: setup (the step
// constants copied in, the per-step lists cleared, the step-start state copied aside), the
// broadphase (sweep and prune for rigid bodies, the hashed grid for particles), the narrowphase,
// the colouring (or, for Jacobi, the per-body incidence), the drive's impulses and the
// predicted velocities (with the particles' forces), the row preparation, the substeps' sweeps,
// and the commit of this step's contacts for the next one's warm start. A barrier follows
// every dispatch, and a timestamp every stage.
//
// Every world shader declares the same buffer table (kernels/world_layout.h); each kernel's
// pipeline binds the part of it its main() uses (host/vk/spirv_reflect.h), and a push constant
// picks the stage function (kernels/stages.h). Stages over GPU-counted work (narrowphase, row
// preparation, each colour, Jacobi units) are indirect dispatches whose sizes the GPU writes,
// so nothing is read back mid-step. The recording is the GPU backend's alone; the CPU backend
// runs the same stages as plain loops (host/cpu/cpu_backend.cpp).
#include "host/gpu/step_recording.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <optional>

#include "host/vk/record_counts.h"
#include "kernels/implicit.h"
#include "kernels/stages.h"

namespace vkphys {
namespace {

constexpr std::uint32_t kGroup = VKPHYS_GROUP_SIZE;
// A CG pass's workgroup sums one chunk (kernels/world_implicit.inl, shaders/world_ode.comp).
static_assert(kGroup == VKPHYS_CG_CHUNK);

}  // namespace

// Automatic fusion, from the step just taken (the next step's lists are about the same; the
// choice changes only the speed, never the result). Measured on an H100 (docs/benchmarks.md):
// fusing a colour saves its dispatch and barrier (~9 us) but runs it in rounds of one
// workgroup. A round of contact manifolds or joints takes one unit's latency, 10-20 us, so
// they fuse only where each colour fits one round (the 210-box pyramid: 1.46x faster; the
// 820-box one, two rounds, 1.3x slower); a round of particle contacts is about 4x cheaper (1,000
// particles, two rounds a colour: 2x faster; 10,000, eleven rounds: 1.8x slower). The fused
// colouring visits every unit for every colour and sub-pass and wins below about 768 units.
// Jacobi fuses when its units and its bodies each fit one round.
bool choose_fusion(FusedPolicy policy, const kern::WorldCounters& c, const Scene& scene,
                   const WorldArrays& world, const Capacities& cap, RecordChoices& choices) {
  constexpr std::uint32_t kRound = VKPHYS_FUSED_GROUP_SIZE;
  constexpr std::uint32_t kColoringUnits = 3 * kRound;
  constexpr std::uint32_t kParticleRoundsPerRound = 4;
  bool coloring = policy == FusedPolicy::always, sweeps = coloring;
  if (policy == FusedPolicy::automatic) {
    const std::uint32_t units =
        world.joints() + std::min(c.pairs, cap.pairs) + std::min(c.pcontacts, cap.contacts);
    if (scene.settings.solver.scheme == SolverScheme::colored) {
      coloring = units <= kColoringUnits;
      sweeps = true;
      for (std::uint32_t k = 0; k < choices.colors; ++k) {
        const std::uint32_t rigid = c.color_end[2 * k] - c.color_start[2 * k];
        const std::uint32_t particle = c.color_end[2 * k + 1] - c.color_start[2 * k + 1];
        // Cost in rounds of contact manifolds, times kParticleRoundsPerRound.
        const std::uint32_t cost = kParticleRoundsPerRound * vk::groups_for(rigid, kRound) +
                                   vk::groups_for(particle, kRound);
        sweeps = sweeps && cost <= kParticleRoundsPerRound;
      }
    } else {
      sweeps = units <= kRound && world.bodies() <= kRound;
    }
  }
  const bool changed = coloring != choices.fuse_coloring || sweeps != choices.fuse_sweeps;
  choices.fuse_coloring = coloring;
  choices.fuse_sweeps = sweeps;
  return changed;
}

bool choose_colors(std::uint32_t used, ColorWindow& window, RecordChoices& choices) {
  window.used[window.next] = used;
  window.next = (window.next + 1) % ColorWindow::kSteps;
  // At most the colours recorded, unless every colour was (a step that needed more was redone).
  const std::uint32_t want = *std::max_element(window.used.begin(), window.used.end());
  const bool changed = want != choices.colors;
  choices.colors = want;
  return changed;
}

namespace {

// One step's recording, one member function per stage of host/sim/backend.h (Stage), in the
// order record() calls them; the rest are the recording's building blocks (a dispatch and its
// barrier, a sort, a scan, a colour's sweep). Built and used once per recording.
class StepRecorder {
 public:
  explicit StepRecorder(const StepRecordingInputs& in);
  // Records main and commit into `step`; `stats` gets their dispatches and barriers.
  void record(RecordedStep& step, StepStats& stats);

 private:
  // The stages, each ended by stage_done (a barrier and the stage's timestamp).
  void setup();
  void broadphase();
  void narrowphase();
  void coloring();
  void predict();
  void prepare();
  void solve_substeps();
  void commit();

  void stage_done();
  // One ODE pass over its invocations (shaders/world_ode.comp), for OdeControl's pass lists.
  auto ode_pass_recorder() {
    return [this](std::uint32_t mode, std::uint32_t s, float h, std::uint32_t role) {
      run(kernels_.ode(mode),
          vk::groups_for(
              kern::ode_pass_invocations(mode, particles_, in_.params.lines.y + in_.params.lines.z),
              kGroup),
          mode, s, std::bit_cast<std::uint32_t>(h), role);
    };
  }
  // Dispatches are followed by compute-only barriers (vk::compute_barrier: a one-workgroup
  // dispatch costs about half as much after one on an H200 as after a full one). Two things
  // need the full one: indirect dispatch sizes (`finalize` below) and transfers, each of which
  // has a full barrier before it.
  void run(vk::Kernel& k, std::uint32_t groups, std::uint32_t mode, std::uint32_t a = 0,
           std::uint32_t b = 0, std::uint32_t c = 0);
  void run_indirect(vk::Kernel& k, VkDeviceSize offset, std::uint32_t mode, std::uint32_t a = 0,
                    std::uint32_t b = 0);
  void finalize(std::uint32_t mode, VkDeviceSize first, VkDeviceSize end, std::uint32_t a = 0);
  void overflow_lists(vk::Kernel& k, std::uint32_t mode, std::uint32_t a = 0);
  // `live`: the offset of the counters' word holding how many of the `count` pairs are live;
  // only those are sorted and the rest stay where they are (gpu::RadixSort::record).
  void sort(Binding keys, Binding values, std::uint32_t count, std::uint32_t bits,
            std::optional<VkDeviceSize> live = std::nullopt);
  void scan(Binding data, std::uint32_t count);
  void sweep(std::uint32_t kind);
  void sweeps(std::uint32_t first, std::uint32_t kind, std::uint32_t count, bool last);
  void gather_sweeps(std::uint32_t first, std::uint32_t kind, std::uint32_t total, bool last);
  void solve(std::uint32_t kind, bool last, std::uint32_t sub);
  void predict_forces(std::uint32_t sub);
  void units(std::uint32_t mode, std::uint32_t phase = 0);

  const StepRecordingInputs& in_;
  WorldKernels& kernels_;
  WorldBuffers& gpu_;
  const WorldArrays& world_;
  const RecordChoices& choices_;
  const SolverSettings& sv_;
  const std::uint32_t bodies_, rigid_, particles_, joints_, trees_;
  const std::uint32_t body_groups_, tree_groups_, particle_groups_;
  const std::uint32_t unit_cap_, unit_groups_;  // joints, pair slots and contact slots
  // Joints and SAP pairs (the unit kernel's units) exist only with joints or a rigid body
  // other than a plane; a particle scene's colours and sweeps skip their empty dispatches.
  const bool rigid_units_;
  // Particle contacts (the grid's) exist only where WorldArrays::particle_contacts says they
  // can: a cloth without self-collision over a ball and no plane skips the grid, the particle
  // lists of every colour and sweep, their targets and their commit.
  const bool pcontacts_;
  // Jacobi over particle contacts alone, unfused: one gather dispatch a sweep
  // (world_jacobi_gather.glsl; the fused kernel runs the two passes over the sorted incidence).
  const bool gather_;
  // body_color's colouring claims and marks, two words a body (not the joints' colours after).
  const VkDeviceSize color_marks_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  std::uint32_t stamp_ = 0;
};

// The indirect dispatch size of colour list `list` (world_coloring.inl, color_groups).
VkDeviceSize color_groups(std::uint32_t list) {
  return offsetof(kern::WorldCounters, color_groups) + 3 * list * sizeof(std::uint32_t);
}

StepRecorder::StepRecorder(const StepRecordingInputs& in)
    : in_(in),
      kernels_(in.kernels),
      gpu_(in.buffers),
      world_(in.world),
      choices_(in.choices),
      sv_(in.scene.settings.solver),
      bodies_(in.world.bodies()),
      rigid_(in.world.rigid),
      particles_(in.world.particles()),
      joints_(in.world.joints()),
      trees_(in.world.trees()),
      body_groups_(vk::groups_for(bodies_, kGroup)),
      tree_groups_(vk::groups_for(trees_, kGroup)),
      particle_groups_(vk::groups_for(particles_, kGroup)),
      unit_cap_(joints_ + in.cap.pairs + in.cap.contacts),
      unit_groups_(vk::groups_for(unit_cap_, kGroup)),
      rigid_units_(joints_ > 0 || in.world.sweepers > 0),
      pcontacts_(in.world.particle_contacts),
      gather_(jacobi_gathers(in.scene.settings.solver, in.world) && !in.choices.fuse_sweeps),
      color_marks_(2 * VkDeviceSize{bodies_} * sizeof(std::uint32_t)) {}

void StepRecorder::record(RecordedStep& step, StepStats& stats) {
  auto begin = [&] {
    cb_ = in_.ctx.allocate_command_buffer();
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    // Pending twice while two steps are in flight (record_step): one recording, both slots.
    info.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
    vk::check(vkBeginCommandBuffer(cb_, &info), "vkBeginCommandBuffer");
    return cb_;
  };
  auto end = [&] { vk::check(vkEndCommandBuffer(cb_), "vkEndCommandBuffer"); };
  vk::RecordCounts counted;  // the step's dispatches and barriers, as recorded
  step.main = begin();
  in_.timestamps.reset(cb_);
  in_.timestamps.write(cb_, 0);
  setup();
  broadphase();
  narrowphase();
  coloring();
  predict();
  prepare();
  solve_substeps();
  end();
  // Ordered after main by main's last barrier (stage_done), whose second scope is every later
  // command on the queue, in a later submission too.
  step.commit = begin();
  commit();
  end();
  stats.dispatches = counted.dispatches();
  stats.barriers = counted.barriers();
}

void StepRecorder::stage_done() {
  vk::barrier(cb_);
  in_.timestamps.write(cb_, ++stamp_);
}

void StepRecorder::run(vk::Kernel& k, std::uint32_t groups, std::uint32_t mode, std::uint32_t a,
                       std::uint32_t b, std::uint32_t c) {
  const std::uint32_t push[4] = {mode, a, b, c};
  k.dispatch(cb_, gpu_.set(k), groups, push);
  vk::compute_barrier(cb_);
}

void StepRecorder::run_indirect(vk::Kernel& k, VkDeviceSize offset, std::uint32_t mode,
                                std::uint32_t a, std::uint32_t b) {
  const std::uint32_t push[4] = {mode, a, b, 0u};
  k.dispatch_indirect(cb_, gpu_.set(k), gpu_.dispatch_args, offset, push);
  vk::compute_barrier(cb_);
}

// The finalize kernel writes indirect dispatch sizes into the counters, bytes [first, end);
// they are copied into dispatch_args, which the indirect dispatches read and no shader binds, so
// no later compute-only barrier has to make them visible again.
void StepRecorder::finalize(std::uint32_t mode, VkDeviceSize first, VkDeviceSize end,
                            std::uint32_t a) {
  const std::uint32_t push[4] = {mode, a, 0u, 0u};
  kernels_.finalize().dispatch(cb_, gpu_.set(kernels_.finalize()), 1, push);
  vk::barrier(cb_);
  copy_region(cb_, gpu_.buf[b_counters], gpu_.dispatch_args, first, first, end - first);
  vk::barrier(cb_);
}

// `mode` of kernel `k` over the overflow colour's lists that can hold units (joints and pairs
// with rigid units, particle contacts with particles), indirect; push = (mode, list, a).
void StepRecorder::overflow_lists(vk::Kernel& k, std::uint32_t mode, std::uint32_t a) {
  const std::uint32_t list = 2 * sv_.max_colors;
  if (rigid_units_) run_indirect(k, color_groups(list), mode, list, a);
  if (pcontacts_) run_indirect(k, color_groups(list + 1), mode, list + 1, a);
}

void StepRecorder::sort(Binding keys, Binding values, std::uint32_t count, std::uint32_t bits,
                        std::optional<VkDeviceSize> live) {
  const gpu::LiveCount counted =
      live ? gpu::LiveCount{&gpu_.buf[b_counters],
                            static_cast<std::uint32_t>(*live / sizeof(std::uint32_t))}
           : gpu::LiveCount{};
  gpu_.sort->record(cb_, gpu_.buf[keys], gpu_.buf[values], count, bits, counted);
}

void StepRecorder::scan(Binding data, std::uint32_t count) {
  gpu_.scan->record(cb_, gpu_.buf[data], count);
}

// One sweep of kind `kind` over every unit, unfused.
void StepRecorder::sweep(std::uint32_t kind) {
  if (sv_.scheme == SolverScheme::colored) {
    for (std::uint32_t c = 0; c < choices_.colors; ++c) {
      if (rigid_units_)
        run_indirect(kernels_.unit(), color_groups(2 * c), kern::UNIT_COLOR, 2 * c, kind);
      if (pcontacts_) {
        run_indirect(kernels_.pcontact(), color_groups(2 * c + 1), kern::PCONTACT_COLOR, 2 * c + 1,
                     kind);
      }
    }
    // Units left over with fewer colours recorded than max_colors redo the step with all of
    // them (world_coloring.inl, color_groups), so only then can the overflow hold any. Its units
    // run in parallel on split copies (both lists in the unit kernel: the overflow is rare, not
    // worth its own pipeline), then the touched bodies average.
    if (choices_.colors == sv_.max_colors) {
      for (std::uint32_t pass = 0; pass < kern::overflow_passes(kind); ++pass) {
        overflow_lists(kernels_.unit(), kern::UNIT_OVERFLOW_COLOR, kind);
        run(kernels_.body(), body_groups_, kern::BODY_JACOBI_AVERAGE, kind);
      }
    }
  } else {
    // Particle contacts in a pipeline of their own (see shaders/world_pcontact.comp).
    if (rigid_units_) {
      run_indirect(kernels_.unit(), offsetof(kern::WorldCounters, rigid_unit_groups),
                   kern::UNIT_JACOBI, 0, kind);
    }
    if (pcontacts_) {
      run_indirect(kernels_.pcontact(), offsetof(kern::WorldCounters, pcontact_groups),
                   kern::PCONTACT_JACOBI, 0, kind);
    }
    run(kernels_.body(), body_groups_, kern::BODY_JACOBI_AVERAGE, kind);
  }
  if (trees_ > 0 && (kind == kern::KIND_SOLVE || kind == kern::KIND_VELOCITY)) {
    run(kernels_.tree(), tree_groups_, kern::TREE_SOLVE, kind);
  }
}

// A sweep of kind `first` (unless KIND_NONE), then `count` of kind `kind`; `last`: they end the
// step's solve, and the last of them measures the solver residual (world_units.inl).
void StepRecorder::sweeps(std::uint32_t first, std::uint32_t kind, std::uint32_t count, bool last) {
  if (choices_.fuse_sweeps) {
    const std::uint32_t colors = sv_.scheme == SolverScheme::colored ? choices_.colors : 0u;
    const std::uint32_t measure = last ? kern::FUSED_MEASURE_LAST : 0u;
    run(kernels_.fused(), 1, kern::FUSED_SWEEPS, first | kind << 8 | measure, count, colors);
    return;
  }
  const std::uint32_t total = count + (first != kern::KIND_NONE ? 1u : 0u);
  if (gather_) {
    gather_sweeps(first, kind, total, last);
    return;
  }
  for (std::uint32_t s = 0; s < total; ++s) {
    const bool measure = last && s + 1 == total;
    if (measure) run(kernels_.body(), body_groups_, kern::BODY_KEEP_REFERENCE);
    sweep(s == 0 && first != kern::KIND_NONE ? first : kind);
    if (measure) run(kernels_.body(), body_groups_, kern::BODY_RESIDUAL);
  }
}

// Jacobi's gather: one dispatch a sweep, alternating its buffers (but the warm start, in place),
// and the copy back after an odd count of turns (shaders/world_jacobi_gather.glsl); the last
// sweep measures the residual itself.
void StepRecorder::gather_sweeps(std::uint32_t first, std::uint32_t kind, std::uint32_t total,
                                 bool last) {
  std::uint32_t turns = 0;
  for (std::uint32_t s = 0; s < total; ++s) {
    const std::uint32_t k = s == 0 && first != kern::KIND_NONE ? first : kind;
    const std::uint32_t measure = last && s + 1 == total ? 1u : 0u;
    run(kernels_.pcontact(), body_groups_, kern::PCONTACT_GATHER, turns % 2, k, measure);
    if (k == kern::KIND_IMPACT) {
      run(kernels_.pcontact(), body_groups_, kern::PCONTACT_GATHER_IMPACT_START);
    }
    if (k != kern::KIND_WARM) ++turns;
  }
  if (turns % 2 == 1) run(kernels_.pcontact(), body_groups_, kern::PCONTACT_GATHER_SETTLE);
}

// A substep's solve: its warm start, then the iterations. With the warm start carried
// (kernels/world_units.inl) a later substep's predict applied it, and the first substep keeps the
// velocities its solve starts from for the next one's carry.
void StepRecorder::solve(std::uint32_t kind, bool last, std::uint32_t sub) {
  const bool carry = choices_.carry_warm_start;
  if (carry && sub == 0) run(kernels_.body(), body_groups_, kern::BODY_KEEP_REFERENCE);
  sweeps(carry && sub > 0 ? kern::KIND_NONE : kern::KIND_WARM, kind, sv_.iterations, last);
}

// The particles' forces before each (sub)step's solve, as the CPU backend's predict_forces:
// symplectic Euler's spring and wind term, body_predict, the explicit method's n ODE steps or
// the implicit method's solve (each pass over its own count of invocations). In a substep after
// the first (`sub` > 0) BODY_PREDICT_CARRYING when the warm start is carried (kernels/
// world_units.inl).
void StepRecorder::predict_forces(std::uint32_t sub) {
  const bool explicit_ode = sv_.integrator != Integrator::symplectic && particles_ > 0;
  if (!explicit_ode && world_.particle_forces()) {
    run(kernels_.ode(kern::ODE_SPRING_FORCE), particle_groups_, kern::ODE_SPRING_FORCE);
  }
  const bool carry = sub > 0 && choices_.carry_warm_start;
  // The first substep's velocities checked for NaN as the predict stage's (push.y).
  run(kernels_.body(), body_groups_, carry ? kern::BODY_PREDICT_CARRYING : kern::BODY_PREDICT,
      sub == 0 ? 1u : 0u);
  if (!explicit_ode) return;
  in_.ode.for_each_pass(sv_, in_.params.gravity_dt.w, sub, ode_pass_recorder());
}

// Preparation and targets: joints and pairs in the unit kernel, particle contacts in their own
// (particle contacts have nothing to prepare).
void StepRecorder::units(std::uint32_t mode, std::uint32_t phase) {
  if (rigid_units_) {
    run_indirect(kernels_.unit(), offsetof(kern::WorldCounters, rigid_unit_groups), mode, phase);
  }
  if (mode == kern::UNIT_TARGETS && pcontacts_) {
    run_indirect(kernels_.pcontact(), offsetof(kern::WorldCounters, pcontact_groups),
                 kern::PCONTACT_TARGETS, phase);
  }
  // The joint trees' factors from the phase's rows (kernels/joint_trees.inl).
  if (mode == kern::UNIT_TARGETS && trees_ > 0) {
    run(kernels_.tree(), tree_groups_, kern::TREE_FACTOR);
  }
}

void StepRecorder::setup() {
  // The counters but the step before's undo flags (WorldCounters::undone_before).
  gpu_.buf[b_counters].fill(cb_, 0u, 0, offsetof(kern::WorldCounters, undone_before));
  for (Binding b : {b_pair_offsets, b_pcontact_offsets, b_body_range}) gpu_.buf[b].fill(cb_, 0u);
  gpu_.buf[b_body_color].fill(cb_, 0u, 0, color_marks_);
  gpu_.buf[b_cell_start].fill(cb_, VKPHYS_EMPTY_CELL);
  vk::barrier(cb_);  // after record_step_begin's copies too, submitted before this
  run(kernels_.body(), body_groups_, kern::BODY_SETUP);
  if ((in_.params.modes.w & VKPHYS_FLAG_SPECULATIVE_REACH) != 0u) {
    run(kernels_.reach(), body_groups_, 0u);  // kernels/world_bodies.inl, body_reach_setup
  }
  stage_done();
}

void StepRecorder::broadphase() {
  if (world_.sweepers > 0) {
    sort(b_sort_keys, b_sort_values, bodies_, 32);
    if (in_.params.sweep.x != 0.0f) {
      run(kernels_.sweep(), body_groups_, kern::SWEEP_SLAB);
      sort(b_sort_keys, b_sort_values, bodies_, VKPHYS_SWEEP_SLAB_BITS);
    }
    run(kernels_.sweep(), body_groups_, kern::SWEEP_WALK);
    scan(b_sweep_walk, bodies_ + 1);
    run(kernels_.sweep(), body_groups_, kern::SWEEP_COUNT);
    scan(b_pair_offsets, bodies_ + 1);
  }
  if (pcontacts_) {
    run(kernels_.grid(), particle_groups_, kern::GRID_HASH);
    sort(b_grid_keys, b_grid_values, particles_,
         static_cast<std::uint32_t>(std::bit_width(in_.params.kinds.w - 1u)));
    run(kernels_.grid(), particle_groups_, kern::GRID_CELL_RANGE);
    run(kernels_.grid(), particle_groups_, kern::GRID_COUNT);
    scan(b_pcontact_offsets, particles_ + 1);
  }
  finalize(kern::FINALIZE_LISTS, offsetof(kern::WorldCounters, pair_groups),
           offsetof(kern::WorldCounters, ode_error));
  if (world_.sweepers > 0) run(kernels_.sweep(), body_groups_, kern::SWEEP_WRITE);
  if (pcontacts_) run(kernels_.grid(), particle_groups_, kern::GRID_WRITE);
  stage_done();
}

void StepRecorder::narrowphase() {
  // SAP pairs need a body that starts a sweep; without one the pair stages have nothing to do.
  if (world_.sweepers > 0) {
    run_indirect(kernels_.narrowphase(), offsetof(kern::WorldCounters, pair_groups), 0);
  }
  stage_done();
}

// The colouring (coloured scheme) or the per-body incidence (Jacobi).
void StepRecorder::coloring() {
  // Every pass over the live units (WorldCounters::unit_groups), not the unit capacity: the
  // sorts read the live units alone, so nothing reads the stale keys and colours past them.
  const VkDeviceSize live = offsetof(kern::WorldCounters, unit_groups);
  if (sv_.scheme == SolverScheme::colored) {
    run_indirect(kernels_.color(), live, kern::COLOR_INIT);
    const std::uint32_t sub = 2;
    if (choices_.fuse_coloring) {
      run(kernels_.fused(), 1, kern::FUSED_COLORING, choices_.colors);
    } else {
      // The passes run over the units color_init listed (the pairs and the new particle
      // contacts: a particle contact that persists keeps its colour), not every live unit.
      const VkDeviceSize listed = offsetof(kern::WorldCounters, uncolored_groups);
      finalize(kern::FINALIZE_UNCOLORED, listed, listed + 3 * sizeof(std::uint32_t));
      for (std::uint32_t c = 0; c < choices_.colors; ++c) {
        for (std::uint32_t k = 0; k < sub; ++k) {
          run_indirect(kernels_.color(), listed, kern::COLOR_PROPOSE, c, c * sub + k + 1);
          run_indirect(kernels_.color(), listed, kern::COLOR_ASSIGN, c, c * sub + k + 1);
        }
      }
    }
    run_indirect(kernels_.color(), live, kern::COLOR_KEY);
    sort(b_sort_keys, b_sort_values, unit_cap_, 6, offsetof(kern::WorldCounters, units));
    run_indirect(kernels_.color(), live, kern::COLOR_RANGE);
    finalize(kern::FINALIZE_COLORS, offsetof(kern::WorldCounters, color_groups),
             offsetof(kern::WorldCounters, pcontact_first), choices_.colors);
    if (pcontacts_) {
      run_indirect(kernels_.color(), live, kern::COLOR_GATHER);
      run_indirect(kernels_.pcontact(), offsetof(kern::WorldCounters, pcontact_groups),
                   kern::PCONTACT_SETTLE);
    }
    // The overflow colour's per-body incidence (world_coloring.inl): count, scan, fill, order;
    // recorded with the overflow sweeps (see sweep), indirect over its two lists.
    if (choices_.colors == sv_.max_colors) {
      vk::barrier(cb_);
      gpu_.buf[b_body_color].fill(cb_, 0u, 0, color_marks_);  // the claims and marks are spent
      vk::barrier(cb_);
      overflow_lists(kernels_.color(), kern::OVERFLOW_COUNT);
      scan(b_body_color, bodies_ + 1);
      overflow_lists(kernels_.color(), kern::OVERFLOW_FILL);
      run(kernels_.color(), body_groups_, kern::OVERFLOW_ORDER);
    }
  } else if (gather_) {
    // The gather's incidence without the sort (world_coloring.inl, incidence_count).
    const VkDeviceSize contacts = offsetof(kern::WorldCounters, pcontact_groups);
    run_indirect(kernels_.color(), contacts, kern::INCIDENCE_COUNT);
    scan(b_body_color, bodies_ + 1);
    run_indirect(kernels_.color(), contacts, kern::INCIDENCE_FILL);
    run(kernels_.color(), body_groups_, kern::OVERFLOW_ORDER);
  } else {
    run_indirect(kernels_.color(), live, kern::INCIDENCE_KEY);  // a unit's two entries
    sort(b_sort_keys, b_sort_values, 2 * unit_cap_,
         static_cast<std::uint32_t>(std::bit_width(bodies_)),
         offsetof(kern::WorldCounters, unit_sides));
    run_indirect(kernels_.color(), live, kern::INCIDENCE_RANGE);
  }
  stage_done();
}

// The drive's impulses, the particles' forces and the predicted velocities, kept for StepTrace;
// Newton restitution's impact passes.
void StepRecorder::predict() {
  const std::uint32_t paths = world_.drive.paths();
  if (world_.drive.max_impulses_per_step() > 0) run(kernels_.drive(), 1, kern::DRIVE_IMPULSES);
  if (paths > 0) run(kernels_.drive(), vk::groups_for(paths, kGroup), kern::DRIVE_PATH_VELOCITY);
  if (OdeControl::marks_held(sv_) && particles_ > 0) {
    run(kernels_.ode(kern::ODE_MARK), unit_groups_, kern::ODE_MARK);
  }
  predict_forces(0);
  // Kept for StepTrace (48 bytes per rigid body, 16 per particle): the solve overwrites v*, w*
  // in place.
  const VkDeviceSize v4 = sizeof(glm::vec4);
  vk::barrier(cb_);
  copy_region(cb_, gpu_.buf[b_body_vel], gpu_.predicted, 0, 0, bodies_ * v4);
  copy_region(cb_, gpu_.buf[b_rigid_omega], gpu_.predicted, 0, bodies_ * v4, rigid_ * v4);
  vk::barrier(cb_);
  if (sv_.restitution == RestitutionModel::newton) {
    sweeps(kern::KIND_NONE, kern::KIND_IMPACT, sv_.impact_passes, false);
    // What the impact passes changed, checked for NaN as the predict stage's.
    run(kernels_.body(), body_groups_, kern::BODY_CHECK_PREDICTED);
  }
  stage_done();
}

void StepRecorder::prepare() {
  units(kern::UNIT_PREPARE);
  units(kern::UNIT_TARGETS, kern::PHASE_SOLVE);
  stage_done();
}

// Every substep's solve (and split-impulse or relaxation solves) and integration.
void StepRecorder::solve_substeps() {
  for (std::uint32_t sub = 0; sub < sv_.substeps; ++sub) {
    if (sub > 0) {
      predict_forces(sub);
      units(kern::UNIT_TARGETS, kern::PHASE_SOLVE);
    }
    // The step's last sweep measures the solver residual.
    const bool last_sub = sub + 1 == sv_.substeps, relax = sv_.relax_iterations > 0;
    solve(kern::KIND_SOLVE, last_sub && !sv_.split_impulse && !relax, sub);
    if (sv_.split_impulse) {
      run(kernels_.body(), body_groups_, kern::BODY_SAVE_POS_VEL);
      run(kernels_.body(), body_groups_, kern::BODY_PREDICT_AGAIN);
      units(kern::UNIT_TARGETS, kern::PHASE_VELOCITY);
      solve(kern::KIND_VELOCITY, last_sub && !relax, sub);
    }
    if (OdeControl::limits_strain(sv_)) {
      OdeControl::for_each_strain_pass(sv_, in_.params.gravity_dt.w, ode_pass_recorder());
    }
    run(kernels_.body(), body_groups_, kern::BODY_INTEGRATE);
    if (relax) {
      units(kern::UNIT_TARGETS, kern::PHASE_RELAX);
      sweeps(kern::KIND_NONE, kern::KIND_VELOCITY, sv_.relax_iterations, last_sub);
    }
  }
  stage_done();
}

// This step's contacts committed as the next one's warm-start source; kinematic paths posed.
void StepRecorder::commit() {
  if (world_.sweepers > 0) {
    run(kernels_.commit(), vk::groups_for(in_.cap.pairs, kGroup), kern::COMMIT_PAIRS);
    run(kernels_.commit(), vk::groups_for(in_.params.counts.w, kGroup), kern::COMMIT_HASH_CLEAR);
    run(kernels_.commit(), vk::groups_for(in_.cap.pairs, kGroup), kern::COMMIT_HASH_INSERT);
  }
  if (pcontacts_) {  // without, the previous contacts stay the empty lists loaded
    run(kernels_.commit(), vk::groups_for(std::max(in_.cap.contacts, particles_ + 1), kGroup),
        kern::COMMIT_PARTICLE_CONTACTS);
  }
  const std::uint32_t paths = world_.drive.paths();
  if (paths > 0) run(kernels_.drive(), vk::groups_for(paths, kGroup), kern::DRIVE_PATH_POSE);
  stage_done();
}

}  // namespace

RecordedStep record_step(const StepRecordingInputs& in, StepStats& stats) {
  RecordedStep step;
  StepRecorder(in).record(step, stats);
  vk::RecordCounts ends;  // one slot's begin and end, run with the step every time
  WorldBuffers& gpu = in.buffers;
  auto record = [&](auto&& commands) {
    VkCommandBuffer cb = in.ctx.allocate_command_buffer();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
    commands(cb);
    vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    return cb;
  };
  for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
    std::optional<vk::RecordCounts> again;  // the other slots' are the same: not counted
    if (slot > 0) again.emplace();
    step.begin[slot] = record([&](VkCommandBuffer cb) {
      gpu.copy_params_in(cb, slot);
      gpu.copy_drive_in(cb, slot);
      gpu.backup_copies(cb, false, in.world, slot);
    });
    step.end[slot] = record([&](VkCommandBuffer cb) {
      const vk::Buffer& counters = gpu.buf[b_counters];
      // Up to the undo flags that the copies below write (the host reads their sources).
      vk::copy(cb, counters, gpu.counters_host[slot], offsetof(kern::WorldCounters, undone_before));
      constexpr VkDeviceSize kFlags[] = {
          offsetof(kern::WorldCounters, overflow), offsetof(kern::WorldCounters, redo),
          offsetof(kern::WorldCounters, cg_short), offsetof(kern::WorldCounters, ode_over),
          offsetof(kern::WorldCounters, nonfinite)};
      static_assert(std::size(kFlags) == std::size(kern::WorldCounters{}.undone_before));
      for (std::size_t f = 0; f < std::size(kFlags); ++f) {
        copy_region(cb, counters, counters, kFlags[f],
                    offsetof(kern::WorldCounters, undone_before) + f * sizeof(std::uint32_t),
                    sizeof(std::uint32_t));
      }
      // The step's stage times, before the next step on the queue resets the pool (the reset
      // waits for every earlier command on its queries).
      in.timestamps.copy_to(cb, gpu.stamps_host[slot]);
      vk::barrier_to_host_and_queue(cb);
    });
  }
  stats.barriers += ends.barriers();
  return step;
}

}  // namespace vkphys
