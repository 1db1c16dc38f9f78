#version 450
#extension GL_GOOGLE_include_directive : require
// Force springs and the particles' explicit and implicit integrators (kernels/world_ode.inl,
// world_implicit.inl): one invocation per particle, per unit (ODE_MARK), per chunk of particles
// (CG_PARTIAL) or one (the CG's scalar steps); push: (VKPHYS_ODE_MODES, stage or which sum, h as
// float bits, role).
#include "world_common.glsl"

void main() {
  uint x = gl_GlobalInvocationID.x;
  if (push.x == ODE_MARK) {
    if (x < params.coloring.w) ode_mark_unit(x);
    return;
  }
  if (x >= ode_pass_invocations(push.x, params.kinds.y)) return;
  // Test-only (kernels/stages.h): the first stage's acceleration counts twice.
  if (VKPHYS_FAULT == FAULT_PREDICT && push.x == ODE_STAGE && push.y == 0u) ode_deriv[x] *= 2.0f;
  ode_pass(push.x, x, push.y, uintBitsToFloat(push.z), push.w);
}
