#version 450
#extension GL_GOOGLE_include_directive : require
// Per-body stages (kernels/world_bodies.inl, world_units.inl); push.x: VKPHYS_BODY_MODES,
// push.y: the sweep kind for BODY_JACOBI_AVERAGE; for BODY_PREDICT, 1 in the first substep, whose
// velocities the predict stage's NaN check reads (kernels/world_bodies.inl, flag_nonfinite).
#include "world_common.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  switch (push.x) {
    case BODY_SETUP: body_setup(i); break;
    case BODY_PREDICT:
      body_predict(i, true);
      if (VKPHYS_FAULT == FAULT_PREDICT && body_vel[i].w > 0.0f) {  // test-only (stages.h)
        body_vel[i] += vec4(params.gravity_dt.w * vec3(params.gravity_dt), 0.0f);
      }
      if (push.y != 0u) note_nonfinite_velocity(i, STAGE_PREDICT);
      break;
    case BODY_PREDICT_AGAIN: body_predict(i, false); break;
    case BODY_PREDICT_CARRYING: body_predict_carrying(i); break;
    case BODY_INTEGRATE: body_integrate(i); break;
    case BODY_SAVE_POS_VEL: body_save_position_velocity(i); break;
    case BODY_JACOBI_AVERAGE: jacobi_body(i, push.y); break;
    case BODY_KEEP_REFERENCE: body_keep_reference(i); break;
    case BODY_RESIDUAL: body_residual(i); break;
    case BODY_CHECK_PREDICTED: note_nonfinite_velocity(i, STAGE_PREDICT); break;
    default: break;
  }
}
