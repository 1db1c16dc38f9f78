/// \file
/// What a World's last step cost and how its backend's lists stood (World::statistics): the
/// numbers `vkphys run` writes to metrics.csv and `vkphys bench` and `vkphys soak` report.
#pragma once

#include <cstdint>
#include <vector>

#include "vkphys/export.h"

namespace vkphys {

/// One stage of the step (setup, broadphase, narrowphase, coloring, predict, prepare, solve,
/// integrate; the stage table in ARCHITECTURE.md) and its time: the mean over the steps of the
/// last World::step call (one step, or the n of step(n)).
struct StageTime {
  const char* name = "";  ///< the stage's name, also its label in `vkphys bench`
  /// [ms]: the CPU backend's wall clock, the GPU backend's device timestamps where the device
  /// has them (0 where it has none).
  double ms = 0.0;
  /// [bytes] what the stage's kernels read and write, modelled from the buffer layouts and the
  /// step's counts: a lower bound good to about 2x, the numerator of the bandwidth floor that
  /// `vkphys bench` prints (ARCHITECTURE.md, "What a step records, moves and could cost at best").
  std::uint64_t model_bytes = 0;
};

/// The last step's statistics beyond its contacts (World::contacts), its stage times the mean of
/// the last World::step call's steps; all zero before the first step of this World.
struct StepStatistics {
  /// The highest colour in use + 1, the overflow colour not counted (coloured scheme): the
  /// colours a sweep runs through (a colour below it can be empty when contacts keep theirs).
  std::uint32_t colors = 0;
  std::uint32_t overflow_units = 0;    ///< units in the overflow colour
  /// Units the step's colouring passes coloured: the contacts new this step (a contact that
  /// persists keeps its colour) and joints not coloured at load (coloured scheme).
  std::uint32_t colored_afresh = 0;
  std::uint32_t pair_capacity = 0;     ///< pairs the backend's lists hold before they grow
  std::uint32_t contact_capacity = 0;  ///< particle contacts the lists hold before they grow
  std::uint32_t regrows = 0;           ///< times the step was redone after its lists overflowed
  std::uint32_t dispatches = 0;        ///< compute dispatches per step (GPU)
  std::uint32_t barriers = 0;          ///< pipeline barriers per step (GPU)
  /// Explicit integrators: ODE steps per step or substep, steps redone because their error
  /// passed solver.adaptive's tolerance and the accepted step's error (0 otherwise).
  std::uint32_t ode_steps = 0, ode_redos = 0;
  float ode_error = 0.0f;  ///< see ode_steps
  /// Implicit integrator: conjugate-gradient iterations (summed over the substeps) and the
  /// largest final relative residual |r| / |b| of the solves (0 otherwise).
  std::uint32_t cg_iterations = 0;
  float cg_residual = 0.0f;  ///< see cg_iterations
  /// Implicit integrator: the step's solves that ended with their residual above
  /// solver.cg_tolerance (at solver.cg_max_iterations); the step used their result as it was.
  std::uint32_t cg_unmet = 0;
  /// GPU, implicit integrator: times the step was redone because a solve needed more CG
  /// iterations than its recording held (the GPU records about what the last steps needed;
  /// the result is the same either way). 0 on the CPU backend.
  std::uint32_t cg_redos = 0;
  /// GPU, coloured scheme: times the step was redone because its colouring needed more colours
  /// than the recording held (the GPU records the colours the last steps used; the result is the
  /// same either way). 0 on the CPU backend.
  std::uint32_t color_redos = 0;
  /// The solver residual: the largest change of a body's velocity [m/s] and of a rigid body's
  /// angular velocity [rad/s] in the step's last sweep; 0 where a further sweep would change
  /// nothing (ARCHITECTURE.md, "The solver residual").
  float solver_residual = 0.0f;
  float solver_residual_angular = 0.0f;  ///< see solver_residual
  std::uint64_t device_bytes = 0;        ///< device memory the GPU backend holds (0 on the CPU)
  std::vector<StageTime> stages;         ///< every stage, in step order
};

/// The stages' names in step order, as StepStatistics::stages names them (for a table's header
/// before any World has stepped).
VKPHYS_API std::vector<const char*> step_stage_names();

}  // namespace vkphys
