// The adaptive step's controller (seed 003 section 3, step doubling), shared by both backends so
// they take the same decisions from the same error bits.
//
// Each step integrates the particles' forces with n ODE steps per step or substep; with
// solver.adaptive.tolerance > 0 every ODE step of h is also taken as two of h/2 and the step's
// error e is the largest difference between the two (kernels/world_ode.inl). A method of order p
// has local error C h^(p+1), and the estimate scales the same way. So:
//   e > tolerance                 the step is redone from its start with 2n (up to max_steps;
//                                 at max_steps it is kept, and the error is in the statistics)
//   e 2^(p+1) <= tolerance / 2    the next step takes n / 2: twice the step would still be
//                                 within the tolerance, with a factor 2 to spare so n does not
//                                 flip back and forth
// n moves by powers of two only: the GPU records the n ODE steps into its command buffer, and
// re-records only when n changes.
//
// The implicit method's recorded CG iterations R (kernels/world_implicit.inl, "Recorded
// iterations"): the GPU records R iterations a solve, not solver.cg_max_iterations, where R
// follows the step's largest need n (the most iterations one of its solves took):
//   a solve not done after R < cap iterations   the step is redone from its start with R = cap
//                                               (the GPU flags it: WorldCounters::cg_short)
//   after an accepted step, the target          T(n) = n + max(8, n / 4), rounded up to a
//                                               multiple of 8, at most the cap
//   T(n) > R (the need came near R)             R = T(n) at once: re-recorded before a redo
//   after a redo, and on the first step         R = T(n) at once (the need was unknown)
//   else, every kCgWindow accepted steps        R = the window's largest T, if below R
// so R grows before the need reaches it, and shrinks at most once a window when the need
// falls. The iterations a solve runs, and its stopping iteration, are those of the cap whatever
// R is (the passes past convergence do nothing), so R changes the speed, never the result.
// The CPU backend has no recording and keeps R = the cap.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/implicit.h"
#include "kernels/ode.h"
#include "kernels/stages.h"
#include "vkphys/scene.h"

namespace vkphys {

struct OdeControl {
  std::uint32_t steps = 1;  // n: ODE steps per step or substep
  // Implicit: R, the CG iterations recorded per solve; 0 until a step's need is known (the cap).
  std::uint32_t cg_recorded = 0;

  // Accepted steps over which R may shrink once (see above).
  static constexpr std::uint32_t kCgWindow = 16;

  // R: what for_each_pass records per solve.
  std::uint32_t cg_iterations(const SolverSettings& sv) const {
    return cg_recorded == 0 ? sv.cg_max_iterations : std::min(cg_recorded, sv.cg_max_iterations);
  }

  // Whether fewer iterations are recorded than the cap (a solve may then stop short).
  bool cg_short(const SolverSettings& sv) const {
    return sv.integrator == Integrator::implicit && cg_iterations(sv) < sv.cg_max_iterations;
  }

  // T(n): the iterations to record for a largest need of n.
  static std::uint32_t cg_target(const SolverSettings& sv, std::uint32_t need) {
    const std::uint32_t margin = std::max(8u, need / 4u);
    const std::uint32_t rounded = (need + margin + 7u) / 8u * 8u;
    return std::min(rounded, sv.cg_max_iterations);
  }

  // After a step whose GPU flag `stopped_short` says a solve ran out of R < cap iterations:
  // whether to redo it (with R = cap).
  bool cg_redo(const SolverSettings& sv, bool stopped_short) {
    if (!stopped_short || !cg_short(sv)) return false;
    cg_recorded = sv.cg_max_iterations;
    cg_fresh_ = true;
    return true;
  }

  // After an accepted step whose solves took at most `need` iterations: whether R changed.
  bool cg_relax(const SolverSettings& sv, std::uint32_t need) {
    if (sv.integrator != Integrator::implicit) return false;
    const std::uint32_t want = cg_target(sv, need);
    const std::uint32_t now = cg_iterations(sv);
    cg_peak_ = std::max(cg_peak_, want);
    const bool fresh = cg_fresh_ || cg_recorded == 0;
    if (!fresh && want <= now && ++cg_calm_ < kCgWindow) return false;
    // Grow at once, start from a fresh need at once, or shrink to the window's peak.
    const std::uint32_t next = fresh || want > now ? want : cg_peak_;
    cg_fresh_ = false;
    cg_calm_ = 0;
    cg_peak_ = 0;
    if (next == now && cg_recorded != 0) return false;
    cg_recorded = next;
    return next != now;
  }

  // Whether the force springs are strain-limited after each substep's rows
  // (kernels/strain_limit.inl; a limit without force springs is refused at load).
  static bool limits_strain(const SolverSettings& sv) { return sv.strain_limit.stretch > 0.0f; }

  // The strain limit's passes, after the rows and before the positions.
  template <class Pass>
  static void for_each_strain_pass(const SolverSettings& sv, float h, Pass&& pass) {
    for (std::uint32_t k = 0; k < sv.strain_limit.passes; ++k) {
      pass(kern::STRAIN_GATHER, 0u, h, VKPHYS_ODE_PLAIN);
      pass(kern::STRAIN_APPLY, 0u, h, VKPHYS_ODE_PLAIN);
    }
  }

  // Whether the particles that a row holds this step are marked (ODE_MARK) to take the
  // symplectic step: under the explicit methods only. The implicit step's kinematics are the
  // symplectic step's (v* first, then x += h v'), so every particle takes it and the rows'
  // impulses compose with it as they do with the symplectic step (kernels/world_implicit.inl).
  static bool marks_held(const SolverSettings& sv) {
    return sv.integrator != Integrator::symplectic && sv.integrator != Integrator::implicit;
  }

  bool adaptive(const SolverSettings& sv) const {
    return sv.integrator != Integrator::symplectic && sv.integrator != Integrator::implicit &&
           sv.adaptive.tolerance > 0.0f;
  }

  // Whether a step with an error over the tolerance is redone (n can still double). The GPU's
  // recording flags such a step itself (WorldCounters::ode_over), so its commit is skipped.
  bool may_redo(const SolverSettings& sv) const {
    return adaptive(sv) && steps < sv.adaptive.max_steps;
  }

  // After a step with error `error`: whether to redo it (with n doubled).
  bool redo(const SolverSettings& sv, float error) {
    if (!may_redo(sv) || !(error > sv.adaptive.tolerance)) return false;
    steps *= 2;
    if (steps > sv.adaptive.max_steps) steps = sv.adaptive.max_steps;
    return true;
  }

  // After an accepted step: whether n changed (halved) for the next one.
  bool relax(const SolverSettings& sv, float error) {
    if (!adaptive(sv) || steps <= 1) return false;
    const float grow =
        static_cast<float>(1u << (kern::ode_order(static_cast<std::uint32_t>(sv.integrator)) + 1u));
    if (!(error * grow <= 0.5f * sv.adaptive.tolerance)) return false;
    steps /= 2;
    return true;
  }

  // The ODE step of n steps over a (sub)step of `h`, the same float on both backends.
  float step_size(float h) const { return h / static_cast<float>(steps); }

  // The passes that integrate the particles over one (sub)step of `h` (kernels/world_ode.inl,
  // world_implicit.inl), in order: pass(mode, stage, ODE step size, role), mode one of
  // kernels/stages.h's ODE modes, each over kern::ode_pass_invocations(mode, P, lines)
  // invocations.
  // Both backends run exactly this sequence.
  // `sub`: the substep (the first's end passes check for NaN as the predict stage's).
  template <class Pass>
  void for_each_pass(const SolverSettings& sv, float h, std::uint32_t sub, Pass&& pass) const {
    const std::uint32_t checks = sub == 0 ? kern::ODE_END_CHECKS : 0u;
    if (sv.integrator == Integrator::implicit) {
      implicit_passes(sv, h, checks, pass);
      return;
    }
    const std::uint32_t stages = kern::ode_stages(static_cast<std::uint32_t>(sv.integrator));
    auto ode_step = [&](float size, std::uint32_t role) {
      for (std::uint32_t s = 0; s < stages; ++s) {
        pass(kern::ODE_EVAL, s, size, role);
        pass(kern::ODE_STAGE, s, size, role);
      }
    };
    const float size = step_size(h);
    const float half = 0.5f * size;
    pass(kern::ODE_BEGIN, 0u, size, VKPHYS_ODE_PLAIN);
    for (std::uint32_t k = 0; k < steps; ++k) {
      if (adaptive(sv)) {
        ode_step(size, VKPHYS_ODE_FULL);
        ode_step(half, VKPHYS_ODE_HALF_FIRST);
        ode_step(half, VKPHYS_ODE_HALF_SECOND);
      } else {
        ode_step(size, VKPHYS_ODE_PLAIN);
      }
    }
    // Stage 1: a step over the tolerance will be redone (kernels/world_ode.inl, ode_flag_over).
    pass(kern::ODE_END, (may_redo(sv) ? 1u : 0u) | checks, size, VKPHYS_ODE_PLAIN);
  }

 private:
  bool cg_fresh_ = false;      // R was set to the cap by a redo: take the next need at once
  std::uint32_t cg_calm_ = 0;  // accepted steps in the window so far
  std::uint32_t cg_peak_ = 0;  // the window's largest target

  // Backward Euler: one linear solve per (sub)step, R CG iterations recorded as three passes
  // each (four with the lines preconditioner) that carry their own reductions and scalar steps
  // (the passes after convergence do nothing; kernels/world_implicit.inl). A short recording's
  // IMPLICIT_END (stage 1) flags a solve that it stopped unconverged.
  template <class Pass>
  void implicit_passes(const SolverSettings& sv, float h, std::uint32_t checks, Pass&& pass) const {
    pass(kern::ODE_BEGIN, 0u, h, VKPHYS_ODE_PLAIN);
    const bool lines = sv.cg_preconditioner == CgPreconditioner::lines;
    // The stage a load past float range is named in (check_implicit_load).
    const std::uint32_t stage = checks != 0u ? kern::STAGE_PREDICT : kern::STAGE_SOLVE;
    pass(kern::IMPLICIT_SETUP, stage, h, VKPHYS_ODE_PLAIN);
    // Lines: factor and solve (stage 1), then z and p = z.
    if (lines) {
      pass(kern::CG_LINES, 1u, h, VKPHYS_ODE_PLAIN);
      pass(kern::CG_LINE_SUM, 1u, h, VKPHYS_ODE_PLAIN);
    }
    pass(kern::CG_START, 0u, h, VKPHYS_ODE_PLAIN);
    for (std::uint32_t k = 0; k < cg_iterations(sv); ++k) {
      pass(kern::CG_MATVEC, 0u, h, VKPHYS_ODE_PLAIN);
      pass(kern::CG_UPDATE, 0u, h, VKPHYS_ODE_PLAIN);
      if (lines) pass(kern::CG_LINES, 0u, h, VKPHYS_ODE_PLAIN);
      pass(kern::CG_DIRECTION, 0u, h, VKPHYS_ODE_PLAIN);
    }
    pass(kern::IMPLICIT_END, (cg_short(sv) ? 1u : 0u) | checks, h, VKPHYS_ODE_PLAIN);
  }
};

}  // namespace vkphys
