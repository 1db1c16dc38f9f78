// Seed 003's explicit integrators (digest T2-T5) as tables of stages, for the particle ODE
// d/dt (x, v) = (v, a(x, v)) that kernels/world_ode.inl steps over all particles at once.
//
// A method with S stages evaluates k_s = (v_s, a(x_s, v_s)) at stage states
//   (x_1, v_1) = (x0, v0),   (x_{s+1}, v_{s+1}) = (x0, v0) + offset_s h k_s,
// and ends at (x0, v0) + h sum_s weight_s k_s:
//   euler     S = 1  weights 1                       x0 + h f(x0)              (T2)
//   midpoint  S = 2  offsets 1/2; weights 0, 1       x0 + h f(x0 + h/2 f(x0))  (T3)
//   rk4       S = 4  offsets 1/2, 1/2, 1;            x0 + h (k1 + 2 k2 + 2 k3 + k4) / 6
//                    weights 1/6, 1/3, 1/3, 1/6                                   (T4)
// The field here is autonomous (forces depend on x and v, not t), so the stage times of T3/T4
// do not appear. Order p (global error O(h^p)): 1, 2, 4; step doubling's estimate of the local
// error grows as h^(p+1) (host/sim/ode_control.h).
#ifndef VKPHYS_KERNELS_ODE_H
#define VKPHYS_KERNELS_ODE_H
#include "kernels/common.h"

KERNELS_BEGIN

// vkphys/scene.h Integrator
#define VKPHYS_INTEGRATOR_SYMPLECTIC 0u
#define VKPHYS_INTEGRATOR_EULER 1u
#define VKPHYS_INTEGRATOR_MIDPOINT 2u
#define VKPHYS_INTEGRATOR_RK4 3u
#define VKPHYS_INTEGRATOR_IMPLICIT 4u  // kernels/implicit.h, not a stage table

// What the last stage of an ODE step does with its result (kernels/world_ode.inl, ode_stage).
#define VKPHYS_ODE_PLAIN 0u        // the result starts the next ODE step
#define VKPHYS_ODE_FULL 1u         // step doubling: keep the one-step result, restart from x0
#define VKPHYS_ODE_HALF_FIRST 2u   // the first of the two half steps: the result starts the second
#define VKPHYS_ODE_HALF_SECOND 3u  // the second: its error against the full step, then as PLAIN

KFN uint ode_stages(uint integrator) {
  if (integrator == VKPHYS_INTEGRATOR_RK4) return 4u;
  if (integrator == VKPHYS_INTEGRATOR_MIDPOINT) return 2u;
  return 1u;
}

KFN float ode_weight(uint integrator, uint s) {
  if (integrator == VKPHYS_INTEGRATOR_RK4) return (s == 1u || s == 2u) ? 1.0f / 3.0f : 1.0f / 6.0f;
  if (integrator == VKPHYS_INTEGRATOR_MIDPOINT) return s == 1u ? 1.0f : 0.0f;
  return 1.0f;
}

// The fraction of h by which k_s moves the next stage's state from (x0, v0).
KFN float ode_offset(uint integrator, uint s) {
  if (integrator == VKPHYS_INTEGRATOR_RK4) return s == 2u ? 1.0f : 0.5f;
  return 0.5f;  // midpoint's only offset (euler has no next stage)
}

// The method's order p.
KFN uint ode_order(uint integrator) {
  if (integrator == VKPHYS_INTEGRATOR_RK4) return 4u;
  return integrator == VKPHYS_INTEGRATOR_MIDPOINT ? 2u : 1u;
}

KERNELS_END
#endif
