// The world step's stage table: one list from which the C++ stage enum, the stage names, the
// GPU timestamp labels (host/sim/backend.h) and the shader mode constants (below) all come, so
// the host and the shaders can never disagree about what a push-constant mode means.
//
// Stages are what `vkphys bench` times (a GPU timestamp after each, a clock lap on the CPU):
//   setup        bounds, sweep keys, world inverse inertia, particle grid keys   (world_bodies)
//   broadphase   sorts, sweep and prune, particle grid, pair and particle-contact lists
//   narrowphase  manifolds of the SAP pairs, warm-start matching                (world_narrowphase)
//   coloring     colours (coloured scheme) or per-body unit lists (Jacobi)      (world_coloring)
//   predict      scheduled impulses, kinematic paths, forces and fields, [force springs, the
//                particles' explicit ODE steps (world_ode)], [impacts]
//   prepare      SPOOK rows of every unit kind, and their targets for the first substep
//   solve        per substep: [forces, targets,] warm start + iterations (+ the split
//                impulse's second solve), positions, [targets, relax sweeps]
//   integrate    contact persistence (commit), kinematic poses
//
// Shader modes: each world shader is a thin switch over a push-constant mode; the constants are
// generated here as `const uint` (valid in GLSL and in C++), one per (shader, mode).
#ifndef VKPHYS_KERNELS_STAGES_H
#define VKPHYS_KERNELS_STAGES_H
#include "kernels/common.h"

#define VKPHYS_STAGE_TABLE(STAGE) \
  STAGE(setup)                    \
  STAGE(broadphase)               \
  STAGE(narrowphase)              \
  STAGE(coloring)                 \
  STAGE(predict)                  \
  STAGE(prepare)                  \
  STAGE(solve)                    \
  STAGE(integrate)

// (constant, value): shaders/world_body.comp, per body
#define VKPHYS_BODY_MODES(MODE)   \
  MODE(BODY_SETUP, 0u)            \
  MODE(BODY_PREDICT, 1u)          \
  MODE(BODY_PREDICT_AGAIN, 2u)    \
  MODE(BODY_INTEGRATE, 3u)        \
  MODE(BODY_SAVE_POS_VEL, 4u)     \
  MODE(BODY_JACOBI_AVERAGE, 5u)   \
  MODE(BODY_KEEP_REFERENCE, 6u)   \
  MODE(BODY_RESIDUAL, 7u)         \
  MODE(BODY_PREDICT_CARRYING, 8u) \
  MODE(BODY_CHECK_PREDICTED, 9u)

// shaders/world_grid.comp, per particle (or per sorted grid entry)
#define VKPHYS_GRID_MODES(MODE) \
  MODE(GRID_HASH, 0u)           \
  MODE(GRID_CELL_RANGE, 1u)     \
  MODE(GRID_COUNT, 2u)          \
  MODE(GRID_WRITE, 3u)

// shaders/world_sweep.comp: SWEEP_SLAB and SWEEP_WALK per sorted position, the others per work
// item
#define VKPHYS_SWEEP_MODES(MODE) \
  MODE(SWEEP_WALK, 0u)           \
  MODE(SWEEP_COUNT, 1u)          \
  MODE(SWEEP_WRITE, 2u)          \
  MODE(SWEEP_SLAB, 3u)

// shaders/world_finalize.comp, one invocation
#define VKPHYS_FINALIZE_MODES(MODE) \
  MODE(FINALIZE_LISTS, 0u)          \
  MODE(FINALIZE_COLORS, 1u)         \
  MODE(FINALIZE_UNCOLORED, 2u)

// shaders/world_color.comp, per unit (incidence modes: per unit side; overflow count and fill:
// per unit of a colour list, indirect; overflow order: per body)
#define VKPHYS_COLOR_MODES(MODE) \
  MODE(COLOR_INIT, 0u)           \
  MODE(COLOR_PROPOSE, 1u)        \
  MODE(COLOR_ASSIGN, 2u)         \
  MODE(COLOR_KEY, 3u)            \
  MODE(COLOR_RANGE, 4u)          \
  MODE(INCIDENCE_KEY, 5u)        \
  MODE(INCIDENCE_RANGE, 6u)      \
  MODE(COLOR_GATHER, 7u)         \
  MODE(OVERFLOW_COUNT, 8u)       \
  MODE(OVERFLOW_FILL, 9u)        \
  MODE(OVERFLOW_ORDER, 10u)      \
  MODE(INCIDENCE_COUNT, 11u)     \
  MODE(INCIDENCE_FILL, 12u)

// shaders/world_unit.comp, per unit
#define VKPHYS_UNIT_MODES(MODE) \
  MODE(UNIT_PREPARE, 0u)        \
  MODE(UNIT_COLOR, 1u)          \
  MODE(UNIT_OVERFLOW_COLOR, 2u) \
  MODE(UNIT_JACOBI, 3u)         \
  MODE(UNIT_TARGETS, 4u)

// shaders/world_pcontact.comp, per stored particle contact (the gather's three modes: per body)
#define VKPHYS_PCONTACT_MODES(MODE) \
  MODE(PCONTACT_TARGETS, 0u)        \
  MODE(PCONTACT_JACOBI, 1u)         \
  MODE(PCONTACT_COLOR, 2u)          \
  MODE(PCONTACT_SETTLE, 3u)         \
  MODE(PCONTACT_GATHER, 4u)         \
  MODE(PCONTACT_GATHER_SETTLE, 5u)  \
  MODE(PCONTACT_GATHER_IMPACT_START, 6u)

// shaders/world_tree.comp, per joint tree (kernels/joint_trees.inl); TREE_SOLVE: push.y the kind
#define VKPHYS_TREE_MODES(MODE) \
  MODE(TREE_FACTOR, 0u)         \
  MODE(TREE_SOLVE, 1u)

// shaders/world_fused.comp, one workgroup for the whole scene
#define VKPHYS_FUSED_MODES(MODE) \
  MODE(FUSED_COLORING, 0u)       \
  MODE(FUSED_SWEEPS, 1u)

// shaders/world_commit.comp
#define VKPHYS_COMMIT_MODES(MODE) \
  MODE(COMMIT_PAIRS, 0u)          \
  MODE(COMMIT_HASH_CLEAR, 1u)     \
  MODE(COMMIT_HASH_INSERT, 2u)    \
  MODE(COMMIT_PARTICLE_CONTACTS, 3u)

// shaders/world_drive.comp: scheduled impulses (one invocation), kinematic paths (per path)
#define VKPHYS_DRIVE_MODES(MODE) \
  MODE(DRIVE_IMPULSES, 0u)       \
  MODE(DRIVE_PATH_VELOCITY, 1u)  \
  MODE(DRIVE_PATH_POSE, 2u)

// shaders/world_ode.comp (kernels/world_ode.inl, world_implicit.inl): push (mode, stage, h as
// float bits, role); per particle, but ODE_MARK per unit, CG_START one invocation and CG_LINES
// one per line (kernels/implicit.h, ode_pass_invocations)
#define VKPHYS_ODE_MODES(MODE) \
  MODE(ODE_SPRING_FORCE, 0u)   \
  MODE(ODE_BEGIN, 1u)          \
  MODE(ODE_EVAL, 2u)           \
  MODE(ODE_STAGE, 3u)          \
  MODE(ODE_END, 4u)            \
  MODE(ODE_MARK, 5u)           \
  MODE(IMPLICIT_SETUP, 6u)     \
  MODE(CG_START, 7u)           \
  MODE(CG_MATVEC, 8u)          \
  MODE(CG_UPDATE, 9u)          \
  MODE(CG_DIRECTION, 10u)      \
  MODE(IMPLICIT_END, 11u)      \
  MODE(CG_LINES, 12u)          \
  MODE(CG_LINE_SUM, 13u)       \
  MODE(STRAIN_GATHER, 14u)     \
  MODE(STRAIN_APPLY, 15u)

// Which targets a solve phase's rows get (kernels/world_units.inl, unit_targets):
//   PHASE_SOLVE     SPOOK's targets with the position correction
//   PHASE_VELOCITY  the same without it (the split impulse's second solve)
//   PHASE_RELAX     rigid velocity rows: stop the approach, close an open gap no faster than
//                   within the substep, no friction slip (Box2D v3's relax: the sweeps after a
//                   substep's positions, which take the position correction's speed back out)
#define VKPHYS_TARGET_PHASES(MODE) \
  MODE(PHASE_SOLVE, 0u)            \
  MODE(PHASE_VELOCITY, 1u)         \
  MODE(PHASE_RELAX, 2u)

// What one solver sweep does to each unit (kernels/world_units.inl).
#define VKPHYS_SWEEP_KINDS(MODE) \
  MODE(KIND_WARM, 0u)            \
  MODE(KIND_SOLVE, 1u)           \
  MODE(KIND_VELOCITY, 2u)        \
  MODE(KIND_IMPACT, 3u)          \
  MODE(KIND_NONE, 255u)

// Test-only fault injection (make_gpu_backend's `fault`, host/sim/backend.h): the world shaders'
// specialization constant VKPHYS_FAULT (shaders/world_common.glsl) picks a stage whose GPU kernel
// then computes something deliberately wrong, so that the tests can show `vkphys compare` catches
// it and names the stage. It is 0 in every other pipeline, where the driver folds the faulty
// branches away; the CPU backend has none. The value is 1 + the stage's index in the stage table.
//   FAULT_BROADPHASE   the particle grid tilts every particle contact's normal by ~6 degrees
//   FAULT_NARROWPHASE  every manifold point's gap is 1 cm too large (bodies sink 1 cm)
//   FAULT_PREDICT      gravity is applied twice in the first substep; with an explicit integrator
//                      every ODE step's first stage also counts its acceleration twice
//   FAULT_SOLVE        the iterations skip every even-numbered unit (warm start only)
// The stages a step's own NaN check names (kernels/world_bodies.inl, flag_nonfinite): their
// ordinals in VKPHYS_STAGE_TABLE (host/sim/backend.cpp checks them).
#define VKPHYS_CHECKED_STAGES(MODE) \
  MODE(STAGE_PREDICT, 4u)           \
  MODE(STAGE_SOLVE, 6u)

#define VKPHYS_FAULTS(MODE)   \
  MODE(FAULT_NONE, 0u)        \
  MODE(FAULT_BROADPHASE, 2u)  \
  MODE(FAULT_NARROWPHASE, 3u) \
  MODE(FAULT_PREDICT, 5u)     \
  MODE(FAULT_SOLVE, 7u)

KERNELS_BEGIN

#define VKPHYS_DEFINE_MODE(name, value) const uint name = value;
VKPHYS_BODY_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_GRID_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_SWEEP_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_FINALIZE_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_COLOR_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_UNIT_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_COMMIT_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_PCONTACT_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_FUSED_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_TREE_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_DRIVE_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_ODE_MODES(VKPHYS_DEFINE_MODE)
VKPHYS_TARGET_PHASES(VKPHYS_DEFINE_MODE)
VKPHYS_SWEEP_KINDS(VKPHYS_DEFINE_MODE)
VKPHYS_FAULTS(VKPHYS_DEFINE_MODE)
VKPHYS_CHECKED_STAGES(VKPHYS_DEFINE_MODE)
#undef VKPHYS_DEFINE_MODE

// WorldCounters::nonfinite: 0, or ((7 - stage) << 29) | (0x1FFFFFFF - i) for the body i a
// step's own check found NaN or infinite in `stage` (kernels/world_bodies.inl, flag_nonfinite).
// atomicMax keeps the earliest stage, then the lowest body there, whatever order the checks ran
// in. World indices stay below 2^24 (kMaxBodies + kMaxParticles + the planes), stages below 8.
KFN uint nonfinite_code(uint i, uint stage) {
  return ((7u - stage) << 29u) | (0x1FFFFFFFu - i);
}
KFN uint nonfinite_stage(uint code) {
  return 7u - (code >> 29u);
}
KFN uint nonfinite_body(uint code) {
  return 0x1FFFFFFFu - (code & 0x1FFFFFFFu);
}

// FUSED_SWEEPS's flag (above the two kinds): its last sweep is the step's last, so it also
// measures the solver residual (shaders/world_fused.comp, kernels/world_units.inl).
const uint FUSED_MEASURE_LAST = 0x10000u;

// ODE_END's and IMPLICIT_END's flag (above their stage 1): the first substep's, whose velocities
// the predict stage's NaN check reads (kernels/world_implicit.inl, ode_pass).
const uint ODE_END_CHECKS = 2u;

// Mass-split Jacobi passes over the overflow colour per sweep (kernels/world_coloring.inl). Jacobi
// converges more slowly than the colours' Gauss-Seidel: the 10-row pyramid at 2 colours (101 of
// 145 units in the overflow) sagged 2.6 mm in its first step with one pass (free fall: 2.8 mm),
// 2.2 mm with 2, 1.6 mm with 4 and 1.1 mm with 8, as the sequential overflow did. The overflow
// only holds units when every colour is in use, so the passes cost nothing elsewhere. A
// warm-start sweep applies each unit's stored impulse once: one pass.
KFN uint overflow_passes(uint kind) {
  return kind == KIND_WARM ? 1u : 8u;
}

KERNELS_END
#endif
