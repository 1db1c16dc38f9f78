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
#pragma once

#include <cstdint>

#include "kernels/implicit.h"
#include "kernels/ode.h"
#include "kernels/stages.h"
#include "vkphys/scene.h"

namespace vkphys {

struct OdeControl {
  std::uint32_t steps = 1;  // n: ODE steps per step or substep

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

  // After a step with error `error`: whether to redo it (with n doubled).
  bool redo(const SolverSettings& sv, float error) {
    if (!adaptive(sv) || !(error > sv.adaptive.tolerance) || steps >= sv.adaptive.max_steps) {
      return false;
    }
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
  template <class Pass>
  void for_each_pass(const SolverSettings& sv, float h, Pass&& pass) const {
    if (sv.integrator == Integrator::implicit) {
      implicit_passes(sv, h, pass);
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
    pass(kern::ODE_END, 0u, size, VKPHYS_ODE_PLAIN);
  }

 private:
  // Backward Euler: one linear solve per (sub)step, every CG iteration recorded as three passes
  // (four with the lines preconditioner) that carry their own reductions and scalar steps (the
  // passes after convergence do nothing; kernels/world_implicit.inl).
  template <class Pass>
  static void implicit_passes(const SolverSettings& sv, float h, Pass&& pass) {
    pass(kern::ODE_BEGIN, 0u, h, VKPHYS_ODE_PLAIN);
    const bool lines = sv.cg_preconditioner == CgPreconditioner::lines;
    pass(kern::IMPLICIT_SETUP, 0u, h, VKPHYS_ODE_PLAIN);
    // Lines: factor and solve (stage 1), then z and p = z.
    if (lines) {
      pass(kern::CG_LINES, 1u, h, VKPHYS_ODE_PLAIN);
      pass(kern::CG_LINE_SUM, 1u, h, VKPHYS_ODE_PLAIN);
    }
    pass(kern::CG_START, 0u, h, VKPHYS_ODE_PLAIN);
    for (std::uint32_t k = 0; k < sv.cg_max_iterations; ++k) {
      pass(kern::CG_MATVEC, 0u, h, VKPHYS_ODE_PLAIN);
      pass(kern::CG_UPDATE, 0u, h, VKPHYS_ODE_PLAIN);
      if (lines) pass(kern::CG_LINES, 0u, h, VKPHYS_ODE_PLAIN);
      pass(kern::CG_DIRECTION, 0u, h, VKPHYS_ODE_PLAIN);
    }
    pass(kern::IMPLICIT_END, 0u, h, VKPHYS_ODE_PLAIN);
  }
};

}  // namespace vkphys
