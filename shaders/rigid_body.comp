#version 450
#extension GL_GOOGLE_include_directive : require
// Per-body stages (kernels/rigid_bodies.inl, rigid_units.inl); push.x selects:
//   0 set-up   1 predict   2 predict again from the saved start (split impulse)
//   3 integrate   4 keep the position solve's velocities   5 Jacobi average of the copies
#include "rigid_common.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  switch (push.x) {
    case 0u: body_setup(i); break;
    case 1u: body_predict(i, true); break;
    case 2u: body_predict(i, false); break;
    case 3u: body_integrate(i); break;
    case 4u: body_save_position_velocity(i); break;
    default: jacobi_body(i); break;
  }
}
