#version 450
#extension GL_GOOGLE_include_directive : require
// Per particle contact (kernels/contact_particle.inl, world_units.inl), in a pipeline of its
// own: the compiler then sees only the particle contact's rows, not every unit kind's (the
// Jacobi sweep of 100k particles ran 8x faster on lavapipe than in the shared unit kernel).
// push = (mode, phase or colour list, sweep kind, 0), mode: VKPHYS_PCONTACT_MODES;
// PCONTACT_COLOR runs one colour's particle contacts (indirect per colour list); PCONTACT_SETTLE
// moves the gathered copies into place (kernels/world_coloring.inl, particle contacts in colour
// order). PCONTACT_GATHER and the two modes after it run per body, not per contact:
// the Jacobi sweep in one dispatch (shaders/world_jacobi_gather.glsl), push = (mode, parity,
// sweep kind, measure).
#include "world_common.glsl"
#include "world_jacobi_gather.glsl"

void main() {
  uint t = gl_GlobalInvocationID.x;
  if (push.x >= PCONTACT_GATHER) {
    if (t >= params.counts.x) return;
    if (push.x == PCONTACT_GATHER) {
      jacobi_gather(t, push.y, push.z, push.w != 0u);
    } else if (push.x == PCONTACT_GATHER_SETTLE) {
      jacobi_gather_settle(t);
    } else {
      jacobi_gather_impact_start(t);
    }
    return;
  }
  if (push.x == PCONTACT_COLOR) {
    uint u = colored_unit(push.y, t);
    if (u != VKPHYS_UNCOLORED && !fault_skips_unit(u, push.z)) {
      pcontact_in_place(u - pcontact_unit_base(), push.z);
    }
    return;
  }
  if (t >= stored_pcontacts()) return;
  if (push.x == PCONTACT_TARGETS) {
    pcontact_targets(t, push.y);
  } else if (push.x == PCONTACT_SETTLE) {
    pcontact_settle(t);
  } else if (!fault_skips_unit(t + pcontact_unit_base(), push.z)) {
    jacobi_pcontact(t, push.z);
  }
}
