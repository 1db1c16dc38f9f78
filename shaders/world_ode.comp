#version 450
#extension GL_GOOGLE_include_directive : require
// Force springs and the particles' explicit integrators (kernels/world_ode.inl), one invocation
// per particle (ODE_MARK: per unit); push: (VKPHYS_ODE_MODES, stage, h as float bits, role).
#include "world_common.glsl"

void main() {
  if (push.x == ODE_MARK) {
    if (gl_GlobalInvocationID.x < params.coloring.w) ode_mark_unit(gl_GlobalInvocationID.x);
    return;
  }
  uint i = params.kinds.x + gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  switch (push.x) {
    case ODE_SPRING_FORCE:
      spring_force_pass(i);
      break;
    case ODE_BEGIN:
      ode_begin(i);
      break;
    case ODE_EVAL:
      ode_eval(i);
      break;
    case ODE_STAGE:
      // Test-only (kernels/stages.h): the first stage's acceleration counts twice.
      if (VKPHYS_FAULT == FAULT_PREDICT && push.y == 0u) ode_deriv[i - params.kinds.x] *= 2.0f;
      ode_stage(i, push.y, uintBitsToFloat(push.z), push.w);
      break;
    case ODE_END:
      ode_end(i);
      break;
    default:
      break;
  }
}
