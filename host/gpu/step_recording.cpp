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

VkCommandBuffer record_step(const StepRecordingInputs& in, StepStats& stats) {
  WorldKernels& kernels = in.kernels;
  WorldBuffers& gpu = in.buffers;
  const WorldArrays& world = in.world;
  const RecordChoices& choices = in.choices;
  const std::uint32_t bodies = world.bodies(), rigid = world.rigid, particles = world.particles(),
                      joints = world.joints();
  VkCommandBuffer cb = in.ctx.allocate_command_buffer();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
  vk::RecordCounts counted;  // the step's dispatches and barriers, as recorded
  std::uint32_t stamp = 0;
  const std::uint32_t body_groups = vk::groups_for(bodies, kGroup);
  const std::uint32_t trees = world.trees(), tree_groups = vk::groups_for(trees, kGroup);
  const std::uint32_t particle_groups = vk::groups_for(particles, kGroup);
  const std::uint32_t unit_cap = joints + in.cap.pairs + in.cap.contacts;
  const SolverSettings& sv = in.scene.settings.solver;
  // Joints and SAP pairs (the unit kernel's units) exist only with joints or a rigid body
  // other than a plane; a particle scene's colours and sweeps skip their empty dispatches.
  const bool rigid_units = joints > 0 || world.sweepers > 0;
  // Jacobi over particle contacts alone, unfused: one gather dispatch a sweep
  // (world_jacobi_gather.glsl; the fused kernel runs the two passes over the sorted incidence).
  const bool gather = jacobi_gathers(sv, world) && !choices.fuse_sweeps;
  auto stage_done = [&] {
    vk::barrier(cb);
    in.timestamps.write(cb, ++stamp);
  };
  // Dispatches are followed by compute-only barriers (vk::compute_barrier: a one-workgroup
  // dispatch costs about half as much after one on an H200 as after a full one). Two things need
  // the full one: indirect dispatch sizes (`finalize` below) and transfers, each of which has a
  // full barrier before it.
  auto run = [&](vk::Kernel& k, std::uint32_t groups, std::uint32_t mode, std::uint32_t a = 0,
                 std::uint32_t b = 0, std::uint32_t c = 0) {
    const std::uint32_t push[4] = {mode, a, b, c};
    k.dispatch(cb, gpu.set(k), groups, push);
    vk::compute_barrier(cb);
  };
  auto run_indirect = [&](vk::Kernel& k, VkDeviceSize offset, std::uint32_t mode,
                          std::uint32_t a = 0, std::uint32_t b = 0) {
    const std::uint32_t push[4] = {mode, a, b, 0u};
    k.dispatch_indirect(cb, gpu.set(k), gpu.dispatch_args, offset, push);
    vk::compute_barrier(cb);
  };
  // The finalize kernel writes indirect dispatch sizes into the counters, bytes [first, end);
  // they are copied into dispatch_args, which the indirect dispatches read and no shader binds,
  // so no later compute-only barrier has to make them visible again.
  auto finalize = [&](std::uint32_t mode, VkDeviceSize first, VkDeviceSize end,
                      std::uint32_t a = 0) {
    const std::uint32_t push[4] = {mode, a, 0u, 0u};
    kernels.finalize.dispatch(cb, gpu.set(kernels.finalize), 1, push);
    vk::barrier(cb);
    copy_region(cb, gpu.buf[b_counters], gpu.dispatch_args, first, first, end - first);
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
    if (particles > 0) run_indirect(k, color_groups(list + 1), mode, list + 1, a);
  };
  auto sort = [&](Binding keys, Binding values, std::uint32_t count, std::uint32_t bits) {
    gpu.sort->record(cb, gpu.buf[keys], gpu.buf[values], count, bits);
  };
  auto scan = [&](Binding data, std::uint32_t count) {
    gpu.scan->record(cb, gpu.buf[data], count);
  };
  auto sweep = [&](std::uint32_t kind) {
    if (sv.scheme == SolverScheme::colored) {
      for (std::uint32_t c = 0; c < choices.colors; ++c) {
        if (rigid_units)
          run_indirect(kernels.unit, color_groups(2 * c), kern::UNIT_COLOR, 2 * c, kind);
        if (particles > 0) {
          run_indirect(kernels.pcontact, color_groups(2 * c + 1), kern::PCONTACT_COLOR, 2 * c + 1,
                       kind);
        }
      }
      // Units left over with fewer colours recorded than max_colors redo the step with all
      // of them (world_coloring.inl, color_groups), so only then can the overflow hold any.
      // Its units run in parallel on split copies (both lists in the unit kernel: the
      // overflow is rare, not worth its own pipeline), then the touched bodies average.
      if (choices.colors == sv.max_colors) {
        for (std::uint32_t pass = 0; pass < kern::overflow_passes(kind); ++pass) {
          overflow_lists(kernels.unit, kern::UNIT_OVERFLOW_COLOR, kind);
          run(kernels.body, body_groups, kern::BODY_JACOBI_AVERAGE, kind);
        }
      }
    } else {
      // Particle contacts in a pipeline of their own (see shaders/world_pcontact.comp).
      if (rigid_units) {
        run_indirect(kernels.unit, offsetof(kern::WorldCounters, rigid_unit_groups),
                     kern::UNIT_JACOBI, 0, kind);
      }
      if (particles > 0) {
        run_indirect(kernels.pcontact, offsetof(kern::WorldCounters, pcontact_groups),
                     kern::PCONTACT_JACOBI, 0, kind);
      }
      run(kernels.body, body_groups, kern::BODY_JACOBI_AVERAGE, kind);
    }
    if (trees > 0 && (kind == kern::KIND_SOLVE || kind == kern::KIND_VELOCITY)) {
      run(kernels.tree, tree_groups, kern::TREE_SOLVE, kind);
    }
  };
  // A sweep of kind `first` (unless KIND_NONE), then `count` of kind `kind`; `last`: they end
  // the step's solve, and the last of them measures the solver residual (world_units.inl).
  auto sweeps = [&](std::uint32_t first, std::uint32_t kind, std::uint32_t count, bool last) {
    if (choices.fuse_sweeps) {
      const std::uint32_t colors = sv.scheme == SolverScheme::colored ? choices.colors : 0u;
      const std::uint32_t measure = last ? kern::FUSED_MEASURE_LAST : 0u;
      run(kernels.fused(), 1, kern::FUSED_SWEEPS, first | kind << 8 | measure, count, colors);
      return;
    }
    const std::uint32_t total = count + (first != kern::KIND_NONE ? 1u : 0u);
    if (gather) {
      // One dispatch a sweep, alternating its buffers (but the warm start, in place), and the
      // copy back after an odd count of turns (shaders/world_jacobi_gather.glsl); the last
      // sweep measures the residual itself.
      std::uint32_t turns = 0;
      for (std::uint32_t s = 0; s < total; ++s) {
        const std::uint32_t k = s == 0 && first != kern::KIND_NONE ? first : kind;
        const std::uint32_t measure = last && s + 1 == total ? 1u : 0u;
        run(kernels.pcontact, body_groups, kern::PCONTACT_GATHER, turns % 2, k, measure);
        if (k == kern::KIND_IMPACT) {
          run(kernels.pcontact, body_groups, kern::PCONTACT_GATHER_IMPACT_START);
        }
        if (k != kern::KIND_WARM) ++turns;
      }
      if (turns % 2 == 1) run(kernels.pcontact, body_groups, kern::PCONTACT_GATHER_SETTLE);
      return;
    }
    for (std::uint32_t s = 0; s < total; ++s) {
      const bool measure = last && s + 1 == total;
      if (measure) run(kernels.body, body_groups, kern::BODY_RESIDUAL_REFERENCE);
      sweep(s == 0 && first != kern::KIND_NONE ? first : kind);
      if (measure) run(kernels.body, body_groups, kern::BODY_RESIDUAL);
    }
  };
  auto solve = [&](std::uint32_t kind, bool last) {
    sweeps(kern::KIND_WARM, kind, sv.iterations, last);
  };
  // The particles' forces before each (sub)step's solve, as the CPU backend's predict_forces:
  // symplectic Euler's spring and wind term, body_predict, the explicit method's n ODE steps or
  // the implicit method's solve (each pass over its own count of invocations).
  auto predict_forces = [&] {
    const bool explicit_ode = sv.integrator != Integrator::symplectic && particles > 0;
    if (!explicit_ode && world.particle_forces()) {
      run(kernels.ode(kern::ODE_SPRING_FORCE), particle_groups, kern::ODE_SPRING_FORCE);
    }
    run(kernels.body, body_groups, kern::BODY_PREDICT);
    if (!explicit_ode) return;
    in.ode.for_each_pass(sv, in.params.gravity_dt.w,
                         [&](std::uint32_t mode, std::uint32_t s, float h, std::uint32_t role) {
                           run(kernels.ode(mode),
                               vk::groups_for(kern::ode_pass_invocations(mode, particles), kGroup),
                               mode, s, std::bit_cast<std::uint32_t>(h), role);
                         });
  };

  in.timestamps.reset(cb);
  in.timestamps.write(cb, 0);
  gpu.copy_params_in(cb);
  for (Binding b : {b_counters, b_pair_offsets, b_pcontact_offsets, b_body_range}) {
    gpu.buf[b].fill(cb, 0u);
  }
  const VkDeviceSize color_marks = 2 * VkDeviceSize{bodies} * sizeof(std::uint32_t);
  gpu.buf[b_body_color].fill(cb, 0u, 0, color_marks);  // not the joints' colours after them
  gpu.buf[b_cell_start].fill(cb, VKPHYS_EMPTY_CELL);
  gpu.backup_copies(cb, false, world);
  vk::barrier(cb);

  run(kernels.body, body_groups, kern::BODY_SETUP);
  stage_done();
  if (world.sweepers > 0) {
    sort(b_sort_keys, b_sort_values, bodies, 32);
    if (in.params.sweep.x != 0.0f) {
      run(kernels.sweep, body_groups, kern::SWEEP_SLAB);
      sort(b_sort_keys, b_sort_values, bodies, VKPHYS_SWEEP_SLAB_BITS);
    }
    run(kernels.sweep, body_groups, kern::SWEEP_WALK);
    scan(b_sweep_walk, bodies + 1);
    run(kernels.sweep, body_groups, kern::SWEEP_COUNT);
    scan(b_pair_offsets, bodies + 1);
  }
  if (particles > 0) {
    run(kernels.grid, particle_groups, kern::GRID_HASH);
    sort(b_grid_keys, b_grid_values, particles,
         static_cast<std::uint32_t>(std::bit_width(in.params.kinds.w - 1u)));
    run(kernels.grid, particle_groups, kern::GRID_CELL_RANGE);
    run(kernels.grid, particle_groups, kern::GRID_COUNT);
    scan(b_pcontact_offsets, particles + 1);
  }
  finalize(kern::FINALIZE_LISTS, offsetof(kern::WorldCounters, pair_groups),
           offsetof(kern::WorldCounters, ode_error));
  if (world.sweepers > 0) run(kernels.sweep, body_groups, kern::SWEEP_WRITE);
  if (particles > 0) run(kernels.grid, particle_groups, kern::GRID_WRITE);
  stage_done();
  // SAP pairs need a body that starts a sweep; without one the pair stages have nothing to do.
  if (world.sweepers > 0) {
    run_indirect(kernels.narrowphase, offsetof(kern::WorldCounters, pair_groups), 0);
  }
  stage_done();
  const std::uint32_t unit_groups = vk::groups_for(unit_cap, kGroup);
  if (sv.scheme == SolverScheme::colored) {
    run(kernels.color, unit_groups, kern::COLOR_INIT);
    const std::uint32_t sub = 2;
    if (choices.fuse_coloring) run(kernels.fused(), 1, kern::FUSED_COLORING, choices.colors);
    for (std::uint32_t c = 0; !choices.fuse_coloring && c < choices.colors; ++c) {
      for (std::uint32_t k = 0; k < sub; ++k) {
        // Over the live units only (the rest are inactive from COLOR_INIT on).
        run_indirect(kernels.color, offsetof(kern::WorldCounters, unit_groups), kern::COLOR_PROPOSE,
                     c, c * sub + k + 1);
        run_indirect(kernels.color, offsetof(kern::WorldCounters, unit_groups), kern::COLOR_ASSIGN,
                     c, c * sub + k + 1);
      }
    }
    run(kernels.color, unit_groups, kern::COLOR_KEY);
    sort(b_sort_keys, b_sort_values, unit_cap, 6);
    run(kernels.color, unit_groups, kern::COLOR_RANGE);
    finalize(kern::FINALIZE_COLORS, offsetof(kern::WorldCounters, color_groups),
             offsetof(kern::WorldCounters, pcontact_first), choices.colors);
    if (particles > 0) {
      run(kernels.color, unit_groups, kern::COLOR_GATHER);
      run_indirect(kernels.pcontact, offsetof(kern::WorldCounters, pcontact_groups),
                   kern::PCONTACT_SETTLE);
    }
    // The overflow colour's per-body incidence (world_coloring.inl): count, scan, fill,
    // order; recorded with the overflow sweeps (see sweep), indirect over its two lists.
    if (choices.colors == sv.max_colors) {
      vk::barrier(cb);
      gpu.buf[b_body_color].fill(cb, 0u, 0, color_marks);  // the claims and marks are spent
      vk::barrier(cb);
      overflow_lists(kernels.color, kern::OVERFLOW_COUNT);
      scan(b_body_color, bodies + 1);
      overflow_lists(kernels.color, kern::OVERFLOW_FILL);
      run(kernels.color, body_groups, kern::OVERFLOW_ORDER);
    }
  } else if (gather) {
    // The gather's incidence without the sort (world_coloring.inl, incidence_count).
    const VkDeviceSize contacts = offsetof(kern::WorldCounters, pcontact_groups);
    run_indirect(kernels.color, contacts, kern::INCIDENCE_COUNT);
    scan(b_body_color, bodies + 1);
    run_indirect(kernels.color, contacts, kern::INCIDENCE_FILL);
    run(kernels.color, body_groups, kern::OVERFLOW_ORDER);
  } else {
    const std::uint32_t entries = 2 * unit_cap;
    run(kernels.color, vk::groups_for(entries, kGroup), kern::INCIDENCE_KEY);
    sort(b_sort_keys, b_sort_values, entries, static_cast<std::uint32_t>(std::bit_width(bodies)));
    run(kernels.color, vk::groups_for(entries, kGroup), kern::INCIDENCE_RANGE);
  }
  stage_done();
  const std::uint32_t paths = world.drive.paths();
  if (world.drive.max_impulses_per_step() > 0) run(kernels.drive, 1, kern::DRIVE_IMPULSES);
  if (paths > 0) run(kernels.drive, vk::groups_for(paths, kGroup), kern::DRIVE_PATH_VELOCITY);
  if (OdeControl::marks_held(sv) && particles > 0) {
    run(kernels.ode(kern::ODE_MARK), unit_groups, kern::ODE_MARK);
  }
  predict_forces();
  // Kept for StepTrace (48 bytes per rigid body, 16 per particle): the solve overwrites v*,
  // w* in place.
  const VkDeviceSize v4 = sizeof(glm::vec4);
  vk::barrier(cb);
  copy_region(cb, gpu.buf[b_body_vel], gpu.predicted, 0, 0, bodies * v4);
  copy_region(cb, gpu.buf[b_rigid_omega], gpu.predicted, 0, bodies * v4, rigid * v4);
  vk::barrier(cb);
  if (sv.restitution == RestitutionModel::newton) {
    sweeps(kern::KIND_NONE, kern::KIND_IMPACT, sv.impact_passes, false);
  }
  stage_done();
  // Preparation and targets: joints and pairs in the unit kernel, particle contacts in their
  // own (particle contacts have nothing to prepare).
  auto units = [&](std::uint32_t mode, std::uint32_t phase = 0) {
    if (rigid_units) {
      run_indirect(kernels.unit, offsetof(kern::WorldCounters, rigid_unit_groups), mode, phase);
    }
    if (mode == kern::UNIT_TARGETS && particles > 0) {
      run_indirect(kernels.pcontact, offsetof(kern::WorldCounters, pcontact_groups),
                   kern::PCONTACT_TARGETS, phase);
    }
    // The joint trees' factors from the phase's rows (kernels/joint_trees.inl).
    if (mode == kern::UNIT_TARGETS && trees > 0) {
      run(kernels.tree, tree_groups, kern::TREE_FACTOR);
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
      run(kernels.body, body_groups, kern::BODY_SAVE_POS_VEL);
      run(kernels.body, body_groups, kern::BODY_PREDICT_AGAIN);
      units(kern::UNIT_TARGETS, kern::PHASE_VELOCITY);
      solve(kern::KIND_VELOCITY, last_sub && !relax);
    }
    run(kernels.body, body_groups, kern::BODY_INTEGRATE);
    if (relax) {
      units(kern::UNIT_TARGETS, kern::PHASE_RELAX);
      sweeps(kern::KIND_NONE, kern::KIND_VELOCITY, sv.relax_iterations, last_sub);
    }
  }
  stage_done();
  if (world.sweepers > 0) {
    run(kernels.commit, vk::groups_for(in.cap.pairs, kGroup), kern::COMMIT_PAIRS);
    run(kernels.commit, vk::groups_for(in.params.counts.w, kGroup), kern::COMMIT_HASH_CLEAR);
    run(kernels.commit, vk::groups_for(in.cap.pairs, kGroup), kern::COMMIT_HASH_INSERT);
  }
  if (particles > 0) {
    run(kernels.commit, vk::groups_for(std::max(in.cap.contacts, particles + 1), kGroup),
        kern::COMMIT_PARTICLE_CONTACTS);
  }
  if (paths > 0) run(kernels.drive, vk::groups_for(paths, kGroup), kern::DRIVE_PATH_POSE);
  stage_done();
  vk::copy(cb, gpu.buf[b_counters], gpu.counters_host, sizeof(kern::WorldCounters));
  vk::barrier_to_host(cb);
  vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  stats.dispatches = counted.dispatches();
  stats.barriers = counted.barriers();
  return cb;
}

}  // namespace vkphys
